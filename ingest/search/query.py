"""The query side of search: analyse what a user typed, match, rank, highlight, expand.

Serve-time safe: it reads the tables :mod:`ingest.search.index` wrote and only uses
the cheap parts of the language pipeline (:func:`ingest.nlp.fold` and the Snowball
:func:`ingest.nlp.stem`), never the lemma dictionaries.

How a query is matched:

1. A query that is a provision label in any form (``16 B 1``, ``lag 16B1``, ``20ΣΤ5``,
   ``sv-2007/16B1``) first returns that provision in every document (score
   :data:`LABEL_SCORE`), then the texts that cite it. A label written among words
   (``16B1 otillåten upplysning``) puts that provision first, and the other words are
   searched as below.
2. Otherwise every query word becomes a group of alternatives: its folded surface form,
   its lemma from ``lemma_forms`` (if the corpus has the word) and the lemmas of corpus
   words with the same Snowball stem. A word the corpus does not have also matches by
   its stem as a prefix and, if it is a compound of corpus words, by its parts.
3. Groups are joined with AND; if that finds fewer than ``limit`` hits, the OR of the
   groups fills the list below them. Ranking is FTS5 BM25 with the column weights of
   :data:`WEIGHTS` (titles count more than bodies, surface forms more than compound
   parts).
4. Provision text comes first: a subject-index entry or a chapter heading that matches
   brings the provisions it points to (the index entry's targets, the chapter's laws)
   into the list at its place, a little below it (:data:`POINTED_WEIGHT`), with the
   entry as their ``see_also``; the entries themselves go below every provision.
5. ``expand=True`` also searches the glossary translations of the query (their hits
   fill the list below the query's own hits) and adds, after each hit, its aligned
   provisions in the other documents (:mod:`ingest.search.expand`).

User text never reaches ``MATCH`` as such: only word pieces (letters and digits) are
quoted into the expression, so FTS syntax in a query is just punctuation.
"""

from __future__ import annotations

import html
import re
import sqlite3
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from lawgraph.ingest import nlp
from lawgraph.ingest.labels import normalise_label

from .analyze import query_words
from .compound import LINKS, split_compound
from .expand import aligned_hits, glossary_alternatives
from .snippet import Highlight, node_snippet
from .tables import SearchTables, search_tables

MAX_QUERY_CHARS = 1000
MAX_WORDS = 32
MAX_LIMIT = 100
MIN_PREFIX = 4
LABEL_SCORE = 1000.0
#: BM25 weights of the columns of ``search_fts``: node, doc, lang, kind (unindexed),
#: title, body, title_lemmas, body_lemmas, parts.
WEIGHTS = (0.0, 0.0, 0.0, 0.0, 4.0, 1.0, 3.0, 1.0, 0.3)
#: What ``kind=`` accepts -> the kind group stored in the index.
KIND_FILTERS = {
    "law": "law",
    "text": "law",
    "definition": "definition",
    "index": "index",
    "index_term": "index",
    "topic": "topic",
    "other": "other",
}
#: Kinds of node that point to provisions rather than state rules.
POINTERS = frozenset({"index_term", "chapter"})
LAW_KINDS = frozenset({"law", "section", "subsection", "item", "subitem"})
#: A pointed-to provision's score relative to the entry pointing to it.
POINTED_WEIGHT = 0.9
_ID_RE = re.compile(r"^\s*([a-z]{2}-\d{4}s?)\s*/\s*(\S.*)$")
_GREEK = re.compile(r"[\u0370-\u03ff\u1f00-\u1fff]")


class SearchError(ValueError):
    """The search request is not valid (the message says why)."""


@dataclass
class WordMatch:
    """The alternatives one query word matches."""

    word: str
    tokens: set[str] = field(default_factory=set)
    prefixes: set[str] = field(default_factory=set)
    compounds: set[tuple[str, str]] = field(default_factory=set)
    known: bool = False

    def expr(self) -> str:
        """The FTS5 expression of the group (tokens are word pieces: safe to quote)."""
        alts = [f'"{t}"' for t in sorted(self.tokens)]
        alts += [f'"{p}"*' for p in sorted(self.prefixes)]
        alts += [f'("{a}" AND "{b}")' for a, b in sorted(self.compounds)]
        return "(" + " OR ".join(alts) + ")"


@dataclass
class Request:
    """A validated search request."""

    q: str
    doc: str | None
    lang: str | None
    kind: str | None
    limit: int
    expand: bool
    langs: dict[str, str]  # document id -> language


def _check(con, q, doc, lang, kind, limit, expand) -> Request:
    if q is None or not isinstance(q, str):
        raise SearchError("missing query: give a word, a phrase or a provision label")
    if len(q) > MAX_QUERY_CHARS:
        raise SearchError(f"query too long: {len(q)} characters (at most {MAX_QUERY_CHARS})")
    # full-width letters and digits (ＲＥＶＯＫＥ, １６Ｂ１) as the books write them
    q = " ".join(unicodedata.normalize("NFKC", q).replace("\x00", " ").split())
    if len(q) > MAX_QUERY_CHARS:  # a few characters stand for many (ﷺ)
        raise SearchError(f"query too long: {len(q)} characters (at most {MAX_QUERY_CHARS})")
    if not q:
        raise SearchError("empty query: give a word, a phrase or a provision label")
    langs = search_tables(con).langs
    if doc is not None and doc not in langs:
        raise SearchError(f"unknown document {doc!r} (known: {', '.join(langs)})")
    if lang is not None and lang not in set(langs.values()):
        known = ", ".join(sorted(set(langs.values())))
        raise SearchError(f"unknown language {lang!r} (known: {known})")
    if kind is not None and kind not in KIND_FILTERS:
        raise SearchError(f"unknown kind {kind!r} (known: {', '.join(KIND_FILTERS)})")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise SearchError(f"limit must be a whole number from 1 to {MAX_LIMIT}, not {limit!r}")
    return Request(
        q, doc, lang, KIND_FILTERS.get(kind) if kind else None, limit, bool(expand), langs
    )


def _query_langs(req: Request, words: list[str]) -> list[str]:
    if req.doc:
        return [req.langs[req.doc]]
    if req.lang:
        return [req.lang]
    present = sorted(set(req.langs.values()))
    if any(_GREEK.search(w) for w in words):
        return [x for x in present if x == "el"]
    if all(w.isdigit() for w in words):
        return present
    return [x for x in present if x != "el"]


def analyse_word(con: sqlite3.Connection, word: str, langs: list[str]) -> WordMatch:
    """Return the alternatives a folded query word matches in the given languages."""
    t = search_tables(con)
    m = WordMatch(word, {word})
    rows = [(lang, *t.forms[(lang, word)]) for lang in sorted(langs) if (lang, word) in t.forms]
    stems = {lang: stem for lang, _, stem in rows}
    m.tokens.update(lemma for _, lemma, _ in rows)
    m.known = bool(rows)
    if not m.known:
        stems = {lang: nlp.stem(lang, word) for lang in langs}
    for lang, s in stems.items():
        m.tokens.update(t.stem_lemmas.get((lang, s), ()))
    if m.known or word.isdigit():
        return m
    m.prefixes = {s for s in stems.values() if len(s) >= MIN_PREFIX and s != word}
    for lang in langs:
        if lang in LINKS:
            parts = split_compound(word, lang, _vocabulary(t, lang, word))
            if parts:
                m.compounds.add(parts)
    return m


def _vocabulary(t: SearchTables, lang: str, word: str):
    """Lemma lookup for the pieces of ``word`` (for splitting an unseen compound)."""
    pieces = {word[:i] for i in range(1, len(word))} | {word[i:] for i in range(1, len(word))}
    found = {p: t.forms[(lang, p)][0] for p in pieces if (lang, p) in t.forms}
    lemmas = t.lemmas.get(lang, set())
    for p in pieces:
        if p in lemmas:
            found.setdefault(p, p)
    return found.get


_SCORE = f"-bm25(search_fts, {', '.join(map(str, WEIGHTS))}) AS score"


def _match(con: sqlite3.Connection, expr: str, req: Request, limit: int) -> list[tuple]:
    if not (req.doc or req.lang or req.kind):
        # Without a filter the rows' nodes come from memory: reading the node column
        # loads each matching row's whole stored text (a third of the query's time).
        nodes = search_tables(con).fts_nodes
        sql = f"SELECT rowid, {_SCORE} FROM search_fts WHERE search_fts MATCH ? "
        rows = con.execute(sql + "ORDER BY score DESC LIMIT ?", (expr, limit)).fetchall()
        return [(nodes[rowid], score) for rowid, score in rows]
    sql = f"SELECT node, {_SCORE} FROM search_fts WHERE search_fts MATCH ?"
    args: list = [expr]
    for col, value in (("doc", req.doc), ("lang", req.lang), ("kind", req.kind)):
        if value:
            sql += f" AND {col} = ?"
            args.append(value)
    sql += " ORDER BY score DESC LIMIT ?"
    args.append(limit)
    return con.execute(sql, args).fetchall()


def _append(con: sqlite3.Connection, req: Request, scored: list, expr: str) -> int:
    """Add the matches of ``expr`` not yet in ``scored``, ranked below them; return how many."""
    if len(scored) >= req.limit:
        return 0
    seen = {s[0] for s in scored}
    floor = min((s[1] for s in scored), default=None)
    new = [s for s in _match(con, expr, req, req.limit) if s[0] not in seen]
    for node_id, score in new:
        scored.append((node_id, min(score, floor * 0.99) if floor is not None else score))
    return len(new)


def _titles(t: SearchTables, ids: list[str]) -> dict[str, str]:
    return {i: t.nodes[i].title for i in ids if i in t.nodes}


def _passes(req: Request, node_id: str) -> bool:
    """Whether an added hit (an aligned counterpart) passes the document and language filters."""
    doc = node_id.split("/", 1)[0]
    return (not req.doc or doc == req.doc) and (not req.lang or req.langs.get(doc) == req.lang)


def _label(q: str) -> tuple[str | None, str | None]:
    """Return (document or None, canonical label) if the query is a provision label."""
    if len(q) > 40:
        return None, None
    doc, text = None, q
    m = _ID_RE.match(q)
    if m:
        doc, text = m.group(1), m.group(2)
    if not any(c.isdecimal() for c in text):
        return None, None  # a label has its law's number (normalise_label would say no)
    try:
        return doc, normalise_label(text)
    except ValueError:
        return None, None


_SPELT_OVER = 5
"""Words a label written among other words may be spelt over (``lag 16 B 1``)."""


def _label_among_words(con: sqlite3.Connection, q: str) -> tuple[str | None, str | None, str]:
    """A provision label written among words (``16B1 otillåten upplysning``, ``lag 16 B 1
    otillåten``, ``korvaava tulos 12C1``, ``77 § korvaus``): (document or None, canonical
    label, the other words), or (None, None, q); the first one that is written so, the
    longest spelling first, and that some book has.

    A number alone, or followed by a one-letter word (``13 korttia``, ``2 i rad``, ``12 ή
    περισσότερα``), is a label only after a law word (``lag 13 kort``) or before ``§``:
    among words it is more often a count.
    """
    tokens = q.split()
    known = search_tables(con).by_label
    for i, token in enumerate(tokens):
        if not any(c.isdecimal() for c in token):
            continue
        pieces = [
            (start, end)
            for start in (i - 1, i)
            if start >= 0
            for end in range(min(len(tokens), start + _SPELT_OVER), i, -1)
        ]
        for start, end in sorted(pieces, key=lambda p: p[0] - p[1]):
            words = tokens[start:end]
            after_law_word = start < i
            spelt = words[-1] == "§" or any(c.isdecimal() for c in words[-1])
            lettered = len(words) == 1 and any(c.isalpha() for c in token.split("/")[-1])
            if not (after_law_word or lettered or (spelt and len(words) > 1)):
                continue
            doc, label = _label(" ".join(words))
            rest = " ".join(tokens[:start] + tokens[end:])
            if label is None or not query_words(rest):
                continue
            if any(doc is None or n.startswith(f"{doc}/") for n in known.get(label, ())):
                return doc, label, rest
    return None, None, q


def _label_hits(con: sqlite3.Connection, req: Request, doc: str | None, label: str) -> list:
    if req.kind not in (None, "law"):
        return []
    out = []
    for node_id in search_tables(con).by_label.get(label, ()):
        ndoc = node_id.split("/", 1)[0]
        if (doc or req.doc) and ndoc != (doc or req.doc):
            continue
        if req.lang and req.langs[ndoc] != req.lang:
            continue
        out.append((node_id, LABEL_SCORE))
    return out


def _pointed(t: SearchTables, node_id: str) -> list[str]:
    """The provisions an index entry (its targets) or a chapter heading (its laws) points to."""
    row = t.nodes[node_id]
    if row.kind == "index_term":
        ids = [f"{row.doc}/{x}" for x in row.targets]
        return [i for i in ids if i in t.nodes]
    return list(t.laws_under.get(node_id, ()))


def _text_first(
    con: sqlite3.Connection, req: Request, scored: list[tuple]
) -> tuple[list[tuple], dict[str, list[str]]]:
    """Rank provision text above the index entries and chapter headings pointing to it.

    Returns the new ranking and, per provision brought in or confirmed by an entry, the
    entries that point to it (its "see also").
    """
    see_also: dict[str, list[str]] = {}
    if req.kind not in (None, "law") or not scored:
        return scored, see_also
    t = search_tables(con)
    text: list[tuple] = []
    pointers: list[tuple] = []
    for node_id, score, *rest in scored:
        kind = t.nodes[node_id].kind if node_id in t.nodes else ""
        if kind not in POINTERS:
            text.append((node_id, score, *rest))
            continue
        if req.kind is None:
            pointers.append((node_id, score))
        for target in _pointed(t, node_id):
            see_also.setdefault(target, []).append(node_id)
            text.append((target, score * POINTED_WEIGHT))
    best: dict[str, tuple] = {}
    for row in text:
        if row[0] not in best or row[1] > best[row[0]][1]:
            best[row[0]] = row
    if req.kind == "law":
        best = {k: v for k, v in best.items() if k in t.nodes and t.nodes[k].kind in LAW_KINDS}
    ranked = sorted(best.values(), key=lambda row: -row[1])
    floor = min((row[1] for row in ranked), default=None)
    for node_id, score in pointers:
        ranked.append((node_id, min(score, floor * 0.99) if floor is not None else score))
    return ranked, {k: v for k, v in see_also.items() if k in best}


def _highlight(con: sqlite3.Connection, groups: list[WordMatch], langs: list[str]) -> Highlight:
    tokens = sorted({t for g in groups for t in g.tokens})
    hl = Highlight(set(tokens), tuple(sorted({p for g in groups for p in g.prefixes})))
    t = search_tables(con)
    for lang in langs:  # the surface forms of the tokens and of compounds they are part of
        for token in tokens:
            hl.surfaces.update(t.surfaces.get((lang, token), ()))
            for word in t.compounds.get((lang, token), ()):
                hl.surfaces.update(t.surfaces.get((lang, word), ()))
    return hl


def _hits(con: sqlite3.Connection, scored: list[tuple], hl: Highlight, langs: dict) -> list:
    t = search_tables(con)
    nodes = t.nodes
    out = []
    for node_id, score, *via in scored:
        r = nodes.get(node_id)
        if r is None:
            continue
        snippet = node_snippet(r.title, r.text, hl)
        if not snippet and node_id in t.opening:  # its text is all in its items
            label, text = t.opening[node_id]
            snippet = f"{html.escape(label)}: {node_snippet('', text, hl)}"
        hit = {
            "id": node_id,
            "doc": r.doc,
            "lang": langs.get(r.doc),
            "kind": r.kind,
            "label": r.label,
            "law": r.law,
            "title": r.title,
            "snippet": snippet,
            "score": round(score, 3),
        }
        if r.kind == "index_term":  # labels the book's own index gets wrong drop
            hit["targets"] = [x for x in (f"{r.doc}/{t}" for t in r.targets) if x in nodes]
        if via:
            hit["via"], hit["via_relation"] = via[0], via[1]
        out.append(hit)
    return out


def search(
    con: sqlite3.Connection,
    q: str,
    doc: str | None = None,
    lang: str | None = None,
    kind: str | None = None,
    limit: int = 20,
    expand: bool = False,
) -> dict:
    """Search the corpus.

    Args:
        con: a read-only store connection.
        q: what the user typed: words in any of the languages, or a provision label.
        doc: only this document.
        lang: only documents in this language (``fi``, ``sv``, ``el``, ``et``).
        kind: only this kind of node: ``law`` (law text), ``definition``, ``index``
            (index terms), ``topic`` or ``other`` (prefaces, chapter headings).
        limit: the number of hits (1 to :data:`MAX_LIMIT`), aligned provisions added by
            ``expand`` not counted.
        expand: translate the query through the glossary and add, after each hit, its
            aligned provisions in the other documents (those carry ``via``: the hit's id).

    Returns:
        ``{"query", "label", "mode", "hits": [{"id", "doc", "lang", "kind", "label",
        "law", "title", "snippet", "score", ("targets"), ("via", "via_relation"),
        ("see_also": [{"id", "title"}])}],
        "took_ms"}``; ``see_also`` lists the index entries and chapter headings that
        brought a provision into the list or point to it. The snippet is HTML-escaped
        with matches in ``<mark>`` (a provision with no words of its own shows the first
        of its items that has some, after that item's label); ``label`` is the canonical
        label when the query names a provision (alone, or among words: their hits come
        after the provision's and ``mode`` says how they matched); ``mode`` is
        ``label``, ``all`` (every word matched), ``any`` (some words), ``translation``
        (only glossary translations matched) or ``none``.

    Raises:
        SearchError: for an empty or too long query, no searchable word, an unknown
            document, language or kind, or a limit out of range.
    """
    t0 = time.perf_counter()
    req = _check(con, q, doc, lang, kind, limit, expand)
    result: dict[str, Any] = {
        "query": req.q,
        "label": None,
        "mode": "none",
        "hits": [],
        "took_ms": 0.0,
    }
    if not search_tables(con).indexed:
        result["took_ms"] = round((time.perf_counter() - t0) * 1000, 2)
        return result
    label_doc, label = _label(req.q)
    rest = None  # the words beside a label written among them
    if label is None:
        label_doc, label, rest = _label_among_words(con, req.q)
    scored = _label_hits(con, req, label_doc, label) if label else []
    label_hits = bool(scored)  # the whole query is a label, or a label comes first
    # the words beside a label are searched below its provisions, if there is room
    only_label = label_hits and (rest is None or len(scored) >= req.limit)
    if only_label and label is not None:
        result["label"], result["mode"] = label, "label"
        words = query_words(label)
        groups = [WordMatch(" ".join(words), {" ".join(words)})]
    else:
        words = list(dict.fromkeys(query_words(rest if label_hits and rest else req.q)))
        words = words[:MAX_WORDS]
        if not words:
            shown = f"“{req.q.strip()}”" if req.q.strip().isprintable() else "the query"
            raise SearchError(f"no word to search for in {shown}: give letters or digits")
        langs = _query_langs(req, words)
        groups = [analyse_word(con, w, langs) for w in words]
    alts: list[str] = []
    alt_groups: list[WordMatch] = []
    alt_langs: list[str] = []
    if req.expand and not only_label:
        typed = rest if label_hits and rest else req.q
        alts, alt_groups, alt_langs = glossary_alternatives(con, typed, words, analyse_word)
    if _append(con, req, scored, " AND ".join(g.expr() for g in groups)) and not only_label:
        result["mode"] = "all"
    if len(groups) > 1 and _append(con, req, scored, " OR ".join(g.expr() for g in groups)):
        result["mode"] = "any" if result["mode"] == "none" else result["mode"]
    if alts and _append(con, req, scored, " OR ".join(alts)):
        result["mode"] = "translation" if result["mode"] == "none" else result["mode"]
    see_also: dict[str, list[str]] = {}
    if not only_label:  # a label's provisions keep their place above the words' hits
        scored, see_also = _text_first(con, req, scored)
    scored = scored[: req.limit]
    hl_langs = sorted(set(req.langs.values()) if req.expand else _query_langs(req, words))
    hl = _highlight(con, groups + alt_groups, sorted(set(hl_langs) | set(alt_langs)))
    if req.expand:
        scored = [s for s in aligned_hits(con, scored) if _passes(req, s[0])]
    result["label"] = label if label_hits else None
    result["hits"] = _hits(con, scored, hl, req.langs)
    titles = _titles(search_tables(con), sorted({p for ps in see_also.values() for p in ps}))
    for hit in result["hits"]:
        if hit["id"] in see_also:
            hit["see_also"] = [{"id": p, "title": titles.get(p, "")} for p in see_also[hit["id"]]]
    result["took_ms"] = round((time.perf_counter() - t0) * 1000, 2)
    return result
