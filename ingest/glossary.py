"""The multilingual glossary (``corpus/glossary.toml``) and its tagger.

The glossary is curated data: bridge-law concepts, each with an English key and its
terms in Finnish, Swedish, Greek and Estonian, as the books themselves use them. At
ingest, :func:`glossary_stage` tags every node title and text with spaCy
``PhraseMatcher`` s per language: on lemmas (:func:`word_keys`), on Snowball stems for
forms the lemma dictionary does not know, and on exact forms for abbreviations. Terms
are tokenised by the same :func:`ingest.nlp.pipeline` as the text and keyed by the
same functions, so both are lemmatised alike; the longest match wins. It writes

* ``concepts(id, en, terms, laws, note)``: one row per concept (``terms`` is JSON
  ``{lang: [term, ...]}``, ``laws`` JSON ``[law number, ...]`` as integers);
* ``concept_terms(concept, lang, term, folded, lemmas, stems)``: the folded term, its
  folded lemmas and its Snowball stems, so a query can be matched at serve time
  without the lemmatiser;
* ``concept_hits(concept, node, doc, lang, term, surface, field, start, end)``: every
  tagged span, ``field`` is ``title`` or ``text`` and the offsets index that field;
* ``concept_forms(form, concept, lang, term, kind)``: every folded form a query may
  match (the term, its lemma and stem forms, and each surface form seen in the books).

The readers (:func:`concepts`, :func:`concept_detail`, :func:`node_concepts`,
:func:`lookup_term`) are serve-time safe: they only read those tables.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import unicodedata
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from . import store
from .corpus import DEFAULT_CORPUS, CorpusError, read_toml
from .languages import LANGS  # noqa: E402

GLOSSARY_FILE = "glossary.toml"
FIELDS = {"key", "en", "laws", "note", "forms", *LANGS}
_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

SCHEMA = """
CREATE TABLE concepts (id TEXT PRIMARY KEY, en TEXT NOT NULL, terms TEXT NOT NULL,
  laws TEXT NOT NULL, note TEXT NOT NULL);
CREATE TABLE concept_terms (concept TEXT NOT NULL, lang TEXT NOT NULL, term TEXT NOT NULL,
  folded TEXT NOT NULL, lemmas TEXT NOT NULL, stems TEXT NOT NULL);
CREATE INDEX concept_terms_concept ON concept_terms(concept);
CREATE TABLE concept_hits (concept TEXT NOT NULL, node TEXT NOT NULL, doc TEXT NOT NULL,
  lang TEXT NOT NULL, term TEXT NOT NULL, surface TEXT NOT NULL, field TEXT NOT NULL,
  start INTEGER NOT NULL, end INTEGER NOT NULL);
CREATE INDEX concept_hits_concept ON concept_hits(concept);
CREATE INDEX concept_hits_node ON concept_hits(node);
CREATE TABLE concept_forms (form TEXT NOT NULL, concept TEXT NOT NULL, lang TEXT NOT NULL,
  term TEXT NOT NULL, kind TEXT NOT NULL);
CREATE INDEX concept_forms_form ON concept_forms(form);
"""


class GlossaryError(CorpusError):
    """The glossary file is missing, malformed or inconsistent (names the concept)."""


@dataclass(frozen=True)
class Concept:
    """One glossary concept.

    Attributes:
        key: English slug, the concept id (``penalty-card``).
        en: English name (``penalty card``).
        terms: per language, the terms in dictionary form, as the books use them.
        laws: WBF law numbers where the concept is central.
        note: free comment.
        forms: inflected forms the lemmatiser does not relate to their term, mapped to
            that term (e.g. Finnish ``revokin`` -> ``revokki``).
    """

    key: str
    en: str
    terms: dict[str, tuple[str, ...]]
    laws: tuple[int, ...] = ()
    note: str = ""
    forms: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict:
        """The JSON-ready shape the readers return."""
        return {
            "id": self.key,
            "en": self.en,
            "terms": {k: list(v) for k, v in self.terms.items()},
            "laws": list(self.laws),
            "note": self.note,
        }


# --------------------------------------------------------------------------- loading


def load_glossary(path: str | Path | None = None) -> list[Concept]:
    """Parse and validate the glossary file.

    Args:
        path: the TOML file; default ``corpus/glossary.toml``.

    Returns:
        The concepts in file order.

    Raises:
        GlossaryError: naming the file and the concept, for a missing or malformed file,
            an unknown field or language, an empty or non-string term list, a duplicate
            key, a missing ``en``, or a form whose term the concept lacks.
    """
    path = Path(path) if path else DEFAULT_CORPUS / GLOSSARY_FILE
    data = read_toml(path, "glossary", GlossaryError)
    entries = data.get("concept")
    if not isinstance(entries, list) or not entries:
        raise GlossaryError(f"{path}: no [[concept]] entries")
    out: list[Concept] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries, start=1):
        concept = _concept(entry, f"{path}: concept #{i}")
        if concept.key in seen:
            raise GlossaryError(f"{path}: concept #{i}: duplicate key {concept.key!r}")
        seen.add(concept.key)
        out.append(concept)
    return out


def _concept(entry: dict, where: str) -> Concept:
    key = entry.get("key")
    if not isinstance(key, str) or not _SLUG.match(key):
        raise GlossaryError(f"{where}: key must be a lowercase slug, got {key!r}")
    where = f"{where} ({key})"
    unknown = sorted(set(entry) - FIELDS)
    if unknown:
        raise GlossaryError(
            f"{where}: unknown field or language {', '.join(map(repr, unknown))} "
            f"(languages: {', '.join(LANGS)})"
        )
    en = entry.get("en")
    if not isinstance(en, str) or not en.strip():
        raise GlossaryError(f"{where}: missing English name 'en'")
    terms: dict[str, tuple[str, ...]] = {}
    for lang in LANGS:
        if lang not in entry:
            continue
        value = entry[lang]
        if not isinstance(value, list) or not value:
            raise GlossaryError(f"{where}: '{lang}' must be a non-empty list of terms")
        if not all(isinstance(t, str) and t.strip() for t in value):
            raise GlossaryError(f"{where}: '{lang}' holds an empty or non-string term")
        if len(set(value)) != len(value):
            raise GlossaryError(f"{where}: '{lang}' lists a term twice")
        terms[lang] = tuple(t.strip() for t in value)
    if not terms:
        raise GlossaryError(f"{where}: no terms in any language")
    laws = entry.get("laws", [])
    if not isinstance(laws, list) or not all(isinstance(n, int) and 1 <= n <= 93 for n in laws):
        raise GlossaryError(f"{where}: 'laws' must be a list of WBF law numbers 1-93")
    note = entry.get("note", "")
    if not isinstance(note, str):
        raise GlossaryError(f"{where}: 'note' must be a string")
    forms = entry.get("forms", {})
    all_terms = {t for ts in terms.values() for t in ts}
    if not isinstance(forms, dict) or not all(
        isinstance(k, str) and k.strip() and v in all_terms for k, v in forms.items()
    ):
        raise GlossaryError(f"{where}: 'forms' must map inflected forms to the concept's terms")
    return Concept(key, en.strip(), terms, tuple(laws), note.strip(), dict(forms))


# --------------------------------------------------------------------------- tagging


@dataclass
class _Pattern:
    concept: str
    lang: str
    term: str
    text: str  # the term itself, or an inflected form of it


def glossary_stage(con: sqlite3.Connection) -> dict:
    """Load the glossary beside the corpus, tag every node, write the glossary tables.

    A corpus folder without ``glossary.toml`` gets empty tables.

    Raises:
        GlossaryError: for a broken glossary file (shown as a clean ingest error).
    """
    t0 = time.perf_counter()
    con.executescript(SCHEMA)
    corpus_dir = Path(store.meta(con, "corpus_dir") or DEFAULT_CORPUS)
    path = corpus_dir / GLOSSARY_FILE
    if not path.is_file():
        return {"concepts": 0, "hits": 0, "missing": str(path)}
    glossary = load_glossary(path)
    con.executemany(
        "INSERT INTO concepts VALUES (?,?,?,?,?)",
        [
            (
                c.key,
                c.en,
                json.dumps(c.as_dict()["terms"], ensure_ascii=False),
                json.dumps(list(c.laws)),
                c.note,
            )
            for c in glossary
        ],
    )
    docs_by_lang: dict[str, list[str]] = defaultdict(list)
    for row in con.execute("SELECT id, language FROM documents ORDER BY ord"):
        docs_by_lang[row[1]].append(row[0])
    hits: list[tuple] = []
    term_rows: list[tuple] = []
    for lang in LANGS:
        patterns = [
            _Pattern(c.key, lang, t, t) for c in glossary for t in c.terms.get(lang, ())
        ] + [
            _Pattern(c.key, lang, term, form)
            for c in glossary
            for form, term in c.forms.items()
            if term in c.terms.get(lang, ())
        ]
        if not patterns:
            continue
        term_rows += _term_rows(lang, [p for p in patterns if p.text == p.term])
        hits += _tag_language(con, lang, docs_by_lang.get(lang, []), patterns)
    con.executemany("INSERT INTO concept_terms VALUES (?,?,?,?,?,?)", term_rows)
    con.executemany("INSERT INTO concept_hits VALUES (?,?,?,?,?,?,?,?,?)", hits)
    con.executemany("INSERT INTO concept_forms VALUES (?,?,?,?,?)", _form_rows(term_rows, hits))
    con.commit()
    return _stats(glossary, term_rows, hits, time.perf_counter() - t0)


def _term_rows(lang: str, patterns: list[_Pattern]) -> list[tuple]:
    """``concept_terms`` rows: folded term, its folded lemmas and its stems."""
    from .nlp import lemma, stem, words

    return [
        (
            p.concept,
            lang,
            p.term,
            " ".join(words(p.term)),
            " ".join(lemma(lang, w) for w in words(p.term)),
            " ".join(stem(lang, w) for w in words(p.term)),
        )
        for p in patterns
    ]


def _tag_language(
    con: sqlite3.Connection, lang: str, docs: list[str], patterns: list[_Pattern]
) -> list[tuple]:
    """Tag the titles and texts of ``docs`` with ``patterns``; longest match wins.

    Three matchers run over each field: exact lowercase forms for abbreviations
    (``VPV``, ``ΑΣΑ``), lemmas (:func:`word_keys`) and Snowball stems for forms the
    dictionary does not know. A stem match is dropped where it only merges two known
    words of different lemmas (``katsoja`` / ``katsoa``). On equal spans an exact
    match wins, then a lemma match, then the concept listed first in the file.
    """
    from spacy.matcher import PhraseMatcher

    from .nlp import fold, pipeline

    if not docs:
        return []
    nlp = pipeline(lang, lemmas=False)
    matchers = [PhraseMatcher(nlp.vocab, attr=a) for a in ("LOWER", "LEMMA", "NORM")]
    texts = [p.text for p in patterns]
    # Capitals lose Greek accents: match the accentless form of every term as well.
    variants = [(i, fold(t)) for i, t in enumerate(texts) if fold(t) != t.lower()]
    owners = [*range(len(texts)), *(i for i, _ in variants)]
    groups: dict[int, list] = defaultdict(list)
    for i, pdoc in zip(owners, _keyed(lang, nlp, texts + [v for _, v in variants]), strict=True):
        groups[i].append(pdoc)
    keys: dict[int, int] = {}
    for i, p in enumerate(patterns):
        label = f"{p.concept}#{lang}#{i}"
        keys[nlp.vocab.strings.add(label)] = i
        is_abbreviation = p.text.isupper() and len(p.text) <= 5
        for m in matchers[:1] if is_abbreviation else matchers[1:]:
            m.add(label, groups[i])
    marks = ",".join("?" * len(docs))
    rows = con.execute(
        f"SELECT id, doc, title, text FROM nodes WHERE doc IN ({marks}) ORDER BY doc, ord", docs
    ).fetchall()
    jobs = [(r[0], r[1], f, r[i]) for r in rows for i, f in ((2, "title"), (3, "text")) if r[i]]
    out = []
    for (node, doc_id, fld, _), doc in zip(
        jobs, _keyed(lang, nlp, [j[3] for j in jobs]), strict=True
    ):
        found = _candidates(lang, doc, matchers, keys, groups)
        taken: set[int] = set()
        for _, start, _via, i, end in found:
            if taken.intersection(range(start, end)):
                continue
            taken.update(range(start, end))
            p = patterns[i]
            span = doc[start:end]
            out.append(
                (
                    p.concept,
                    node,
                    doc_id,
                    lang,
                    p.term,
                    span.text,
                    fld,
                    span.start_char,
                    span.end_char,
                )
            )
    return out


def _candidates(lang: str, doc, matchers: list, keys: dict[int, int], groups: dict) -> list:
    """The matches of ``doc``, as ``(-length, start, matcher, pattern, end)``, in the order
    they are considered in (longest first; on equal spans exact, then lemma, then stem).

    A stem match is kept only if :func:`_stem_match_ok`; one whose span an exact or a
    lemma match has already is never taken (that one sorts first), so it is not checked.
    """
    exact = [(via, key, start, end) for via in (0, 1) for key, start, end in matchers[via](doc)]
    spans = {(start, end) for _, _, start, end in exact}
    stems = [
        (2, key, start, end)
        for key, start, end in matchers[2](doc)
        if (start, end) not in spans and _stem_match_ok(lang, doc[start:end], groups[keys[key]])
    ]
    return sorted(
        (start - end, start, via, keys[key], end) for via, key, start, end in exact + stems
    )


def _keyed(lang: str, nlp, texts: list[str]):
    """Tokenise ``texts``; each word's lemma key goes to ``lemma_``, its stem to ``norm_``."""
    from .nlp import fold

    for doc in nlp.pipe(texts, batch_size=256, disable=["sentencizer"]):
        for tok in doc:
            if tok.is_alpha:
                _known, tok.lemma_, tok.norm_ = word_keys(lang, tok.text)
            else:
                tok.lemma_ = tok.norm_ = fold(tok.text)
        yield doc


def _stem_match_ok(lang: str, span, pdocs: list) -> bool:
    """Whether a stem match is more than two known words of different lemmas sharing a stem."""
    for pdoc in pdocs:
        if len(pdoc) != len(span):
            continue
        ok = True
        for tok, ptok in zip(span, pdoc, strict=True):
            if not tok.is_alpha or tok.lower_ == ptok.lower_:
                continue
            known, lem, stem = word_keys(lang, tok.text)
            pknown, plem, _ = word_keys(lang, ptok.text)
            if len(stem) < 3 or (known and pknown and lem != plem):
                ok = False
                break
        if ok:
            return True
    return False


@lru_cache(maxsize=200_000)
def word_keys(lang: str, word: str) -> tuple[bool, str, str]:
    """Return (known to the dictionary, lemma key, stem) for one word.

    The lemma key is the pipeline's lemma (:func:`ingest.nlp.lemma`), except where
    simplemma only guessed and cut the word short of its own stem (Finnish
    ``pelinviejä`` -> ``peli``): then the word's lowercase form stands for itself.
    Ingest time only (simplemma).
    """
    from .lemma_table import lookup
    from .nlp import fold, lemma, stem

    low = unicodedata.normalize("NFC", word).lower()
    known = lookup(lang, low)[0]
    lem, st = lemma(lang, word), stem(lang, low)
    if not known and len(lem) < len(st):
        lem = "~" + fold(low)
    return known, lem, st


def _form_rows(term_rows: list[tuple], hits: list[tuple]) -> list[tuple]:
    from .nlp import words

    forms: dict[tuple, None] = {}
    for concept, lang, term, folded, lemmas, stems in term_rows:
        forms[(folded, concept, lang, term, "term")] = None
        forms[(lemmas, concept, lang, term, "lemma")] = None
        forms[(stems, concept, lang, term, "stem")] = None
    for concept, _node, _doc, lang, term, surface, *_ in hits:
        forms[(" ".join(words(surface)), concept, lang, term, "surface")] = None
    return [f for f in forms if f[0]]


def _stats(glossary: list[Concept], term_rows: list[tuple], hits: list[tuple], secs: float):
    hit_terms = {(h[0], h[3], h[4]) for h in hits}
    per_lang = {lang: sum(1 for r in term_rows if r[1] == lang) for lang in LANGS}
    missing = sorted(
        f"{r[0]}:{r[1]}:{r[2]}" for r in term_rows if (r[0], r[1], r[2]) not in hit_terms
    )
    return {
        "concepts": len(glossary),
        "terms": len(term_rows),
        "hits": len(hits),
        "nodes_tagged": len({h[1] for h in hits}),
        "terms_without_hits": len(missing),
        "seconds": round(secs, 2),
        "terms_per_lang": per_lang,
        "unmatched": missing[:50],
    }


# --------------------------------------------------------------------------- readers


def concepts(con: sqlite3.Connection, ids: Collection[str] | None = None) -> list[dict]:
    """Every concept (or those of ``ids``) in glossary order, with hit counts.

    Returns:
        ``[{"id", "en", "terms": {lang: [term, ...]}, "laws": [int, ...], "note",
        "hits": {lang: {term: count}}}, ...]``; empty if the store has no glossary.
    """
    if not store.has_table(con, "concepts"):
        return []
    only, args = "", list(ids or ())
    if ids is not None:
        only = f"WHERE {{}} IN ({','.join('?' * len(args))})"
    counts: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
    for row in con.execute(
        f"SELECT concept, lang, term, count(*) FROM concept_hits {only.format('concept')} "
        "GROUP BY concept, lang, term",
        args,
    ):
        counts[row[0]][row[1]][row[2]] = row[3]
    out = []
    for row in con.execute(
        f"SELECT id, en, terms, laws, note FROM concepts {only.format('id')} ORDER BY rowid", args
    ):
        terms = json.loads(row[2])
        hits = {lang: {t: counts[row[0]][lang].get(t, 0) for t in ts} for lang, ts in terms.items()}
        out.append(
            {
                "id": row[0],
                "en": row[1],
                "terms": terms,
                "laws": json.loads(row[3]),
                "note": row[4],
                "hits": hits,
            }
        )
    return out


def concept_detail(con: sqlite3.Connection, concept_id: str) -> dict | None:
    """One concept with where it occurs, or None if there is no such concept.

    Returns:
        The :func:`concepts` entry plus ``"occurrences": {doc: [node id, ...]}`` (in
        document and book order) and ``"term_nodes": {lang: {term: {doc: [node id]}}}``.
    """
    found = concepts(con, [concept_id])
    if not found:
        return None
    detail = found[0]
    occurrences: dict[str, list[str]] = {}
    term_nodes: dict[str, dict[str, dict[str, list[str]]]] = {}
    rows = con.execute(
        "SELECT h.doc, h.node, h.lang, h.term FROM concept_hits h "
        "JOIN nodes n ON n.id = h.node JOIN documents d ON d.id = h.doc "
        "WHERE h.concept = ? ORDER BY d.ord, n.ord, h.start",
        (concept_id,),
    )
    for doc, node, lang, term in rows:
        nodes = occurrences.setdefault(doc, [])
        if node not in nodes:
            nodes.append(node)
        per_doc = term_nodes.setdefault(lang, {}).setdefault(term, {}).setdefault(doc, [])
        if node not in per_doc:
            per_doc.append(node)
    detail["occurrences"] = occurrences
    detail["term_nodes"] = term_nodes
    return detail


def node_concepts(con: sqlite3.Connection, node_id: str) -> set[str]:
    """The ids of the concepts tagged in one node's title or text."""
    if not store.has_table(con, "concept_hits"):
        return set()
    rows = con.execute("SELECT DISTINCT concept FROM concept_hits WHERE node = ?", (node_id,))
    return {r[0] for r in rows}


def lookup_term(
    con: sqlite3.Connection, text: str, lang: str | None = None, parts: bool = False
) -> list[dict]:
    """Concepts one of whose terms matches ``text`` (serve-time safe: no lemmatiser).

    ``text`` is folded (lowercase, Greek accents off) and compared with each term's
    folded form, its lemmas, every inflected form the books use, and finally, word by
    word, with its Snowball stems; an English name or key matches too. With ``parts``,
    when ``text`` is a term itself, the longer terms it is a word of follow (``tikki``,
    trick, then ``virheellinen tikki``, defective trick): what a reader filtering the
    glossary wants, not what a search should translate a word into.

    Args:
        con: a store connection.
        text: a term in any case and inflection (``revokki``, ``ΡΕΝΌΝΣ``, ``salgamise``).
        lang: restrict the match to one language's terms (``fi``, ``sv``, ``el``,
            ``et``; ``en`` for the English names).
        parts: add the longer terms ``text`` is part of, after every whole match.

    Returns:
        :func:`concepts` entries, best match first, each with ``"matched": [{"lang",
        "term", "via"}]`` where ``via`` is ``en``, ``term``, ``lemma``, ``surface``,
        ``lemma-table`` (the search index's surface-to-lemma table), ``stem`` or, after
        every whole match, ``part`` (a longer term the query's words are part of).

    Raises:
        ValueError: for an unknown ``lang``.
    """
    from .nlp import stem, words

    if lang is not None and lang not in (*LANGS, "en"):
        raise ValueError(f"unknown language {lang!r}; expected one of {', '.join(LANGS)}, en")
    query = " ".join(words(unicodedata.normalize("NFKC", text)))  # full-width letters too
    if not query or not store.has_table(con, "concept_forms"):
        return []
    matched: dict[str, list[dict]] = {}
    rank: dict[str, int] = {}

    def add(concept: str, lang_: str, term: str, via: str, score: int) -> None:
        entries = matched.setdefault(concept, [])
        if not any(e["lang"] == lang_ and e["term"] == term for e in entries):
            entries.append({"lang": lang_, "term": term, "via": via})
        rank[concept] = min(rank.get(concept, score), score)

    if lang in (None, "en"):
        for row in con.execute("SELECT id, en FROM concepts"):
            if query in (" ".join(words(row[1])), " ".join(words(row[0]))):
                add(row[0], "en", row[1], "en", 0)

    langs = LANGS if lang in (None, "en") else (lang,)
    if lang != "en":
        marks = ",".join("?" * len(langs))
        for concept, lang_, term, kind in con.execute(
            f"SELECT concept, lang, term, kind FROM concept_forms WHERE form = ? "
            f"AND kind != 'stem' AND lang IN ({marks}) "
            "ORDER BY CASE kind WHEN 'term' THEN 0 WHEN 'lemma' THEN 1 ELSE 2 END",
            (query, *langs),
        ):
            add(concept, lang_, term, kind, 1)
        for lang_ in langs:
            lemmas = _table_lemmas(con, lang_, query.split())
            for concept, term in con.execute(
                "SELECT concept, term FROM concept_forms WHERE form = ? AND kind = 'lemma' "
                "AND lang = ?",
                (lemmas, lang_),
            ):
                add(concept, lang_, term, "lemma-table", 1)
            stems = " ".join(stem(lang_, w) for w in query.split())
            for concept, term in con.execute(
                "SELECT concept, term FROM concept_forms WHERE form = ? AND kind = 'stem' "
                "AND lang = ?",
                (stems, lang_),
            ):
                add(concept, lang_, term, "stem", 2)
    if parts and matched:  # a term itself: the longer terms it is a word of
        _longer_terms(con, query, langs if lang != "en" else (), lang in (None, "en"), add)
    by_id = {c["id"]: c for c in concepts(con, matched)}
    order = sorted(matched, key=lambda c: (rank[c], list(by_id).index(c)))
    return [{**by_id[c], "matched": matched[c]} for c in order if c in by_id]


def _longer_terms(con: sqlite3.Connection, query: str, langs, english: bool, add) -> None:
    """:func:`lookup_term`'s ``parts``: the terms of ``langs`` (and, if ``english``, the
    English names) that hold the folded ``query`` as whole words, as written, by lemma
    or by stem; each passed to ``add`` as a ``part`` match."""
    from .nlp import stem, words

    def within(form: str, text: str) -> bool:
        return f" {text} " in f" {form} " and form != text

    if english:
        for concept, en in con.execute("SELECT id, en FROM concepts"):
            if within(" ".join(words(en)), query):
                add(concept, "en", en, "part", 3)
    for lang_ in langs:
        asked = {
            "term": {query},
            "lemma": {query, _table_lemmas(con, lang_, query.split())} - {""},
            "stem": {" ".join(stem(lang_, w) for w in query.split())},
        }
        for concept, term, kind, form in con.execute(
            "SELECT concept, term, kind, form FROM concept_forms WHERE lang = ? "
            "AND kind IN ('term', 'lemma', 'stem')",
            (lang_,),
        ):
            if any(within(form, text) for text in asked[kind]):
                add(concept, lang_, term, "part", 3)


def _table_lemmas(con: sqlite3.Connection, lang: str, words_: list[str]) -> str:
    """The words' lemmas from the search index's ``lemma_forms`` table ('' if unknown)."""
    if not store.has_table(con, "lemma_forms"):
        return ""
    out = []
    for w in words_:
        row = con.execute(
            "SELECT lemma FROM lemma_forms WHERE lang = ? AND surface = ?", (lang, w)
        ).fetchone()
        if row is None:
            return ""
        out.append(row[0])
    return " ".join(out)


def same_term_definitions(con: sqlite3.Connection, node_id: str) -> list[dict]:
    """The definitions in the other books of the term a definition defines, through the
    glossary: a definition defines a concept when a term of it is the whole of the
    definition's title (``fi-1997/def/revokki`` "Revokki" and ``sv-2007/def/revoke``
    "Revoke" are both the concept ``revoke``). Serve-time safe.

    Returns:
        ``[{"id", "doc", "title", "text", "concept", "en"}]`` in manifest order; empty for a node
        that is not a definition or whose title is no glossary term.
    """
    rows = con.execute(
        """
        SELECT n2.id, n2.doc, n2.title, n2.text, h2.concept, c.en
        FROM nodes n1
        JOIN concept_hits h1 ON h1.node = n1.id AND h1.field = 'title'
             AND h1.start = 0 AND h1."end" = length(n1.title)
        JOIN concept_hits h2 ON h2.concept = h1.concept AND h2.field = 'title'
             AND h2.start = 0 AND h2.doc != n1.doc
        JOIN nodes n2 ON n2.id = h2.node AND n2.kind = 'definition'
             AND h2."end" = length(n2.title)
        JOIN concepts c ON c.id = h2.concept
        JOIN documents d ON d.id = n2.doc
        WHERE n1.id = ? AND n1.kind = 'definition'
        ORDER BY d.ord, n2.ord
        """,
        (node_id,),
    ).fetchall()
    out: dict[str, dict] = {}
    for nid, doc, title, text, concept, en in rows:
        out.setdefault(
            nid,
            {"id": nid, "doc": doc, "title": title, "text": text, "concept": concept, "en": en},
        )
    return list(out.values())
