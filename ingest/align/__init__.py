"""Alignment of provisions across languages and editions.

The ``align`` ingest stage (:func:`align_stage`) writes the ``alignments`` table:

* ``label`` rows pair provisions with the same canonical label in two documents
  (and same-language definitions with the same slug); ``relation`` says whether
  the documents are of the same edition (fi-2007/sv-2007) or not;
* content evidence (:mod:`.evidence`) scores every pair; where a renumbering shows,
  ``content`` rows pair the provisions that really correspond (:mod:`.content`) and
  the label rows they contradict are kept with ``flagged = 1``; label rows the
  content confirms become ``label+content``;
* ``topic`` rows rank laws for each Estonian topic by glossary concepts
  (:mod:`.topics`).

Serve-time readers (:func:`aligned`, :func:`alignments`, :func:`equivalent`,
:func:`topic_candidates`) live in :mod:`.query`.
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass, field

from .evidence import fingerprints
from .explain import anchors, length_words, matched_terms, why
from .label import Corpus, load_corpus
from .lexicon import (
    Bags,
    Lexicon,
    idf_weights,
    learn_all,
    pair_similarities,
    tokens,
    write_lexicons,
)
from .match import PairMatcher, Row, split_rows
from .query import EQUIVALENT, aligned, alignments, equivalent, topic_candidates
from .score import pair_space
from .sentences import sentence_pairs, sentence_rows, write_sentences
from .topics import topic_rows

__all__ = [
    "align_corpus",
    "align_stage",
    "aligned",
    "alignments",
    "equivalent",
    "sentence_pairs",
    "topic_candidates",
]

SCHEMA = """
CREATE TABLE alignments (
  a TEXT NOT NULL, b TEXT NOT NULL, doc_a TEXT NOT NULL, doc_b TEXT NOT NULL,
  editions TEXT NOT NULL, relation TEXT NOT NULL, method TEXT NOT NULL, score REAL NOT NULL,
  flagged INTEGER NOT NULL, evidence TEXT NOT NULL
);
CREATE INDEX alignments_a ON alignments(a);
CREATE INDEX alignments_b ON alignments(b);
CREATE INDEX alignments_docs ON alignments(doc_a, doc_b);
"""

TITLE_SAME = 0.5
"""Title-only laws (fi-2007 19-93): share of title words with a translation in the other
title from which two titles are taken to name the same law."""


@dataclass
class Alignment:
    """Everything one alignment run decided, before it is written."""

    corpus: Corpus
    lexicons: dict[tuple[str, str], Lexicon]
    matchers: dict[tuple[str, str], PairMatcher] = field(default_factory=dict)
    rows: dict[tuple[str, str], list[Row]] = field(default_factory=dict)
    sentences: list[tuple] = field(default_factory=list)


def align_corpus(con: sqlite3.Connection) -> Alignment:
    """Learn the lexicon and decide the equivalents of every pair of law documents
    (reads nodes, citations and glossary hits of the store; writes nothing)."""
    corpus = load_corpus(con)
    bags = Bags.build(corpus)
    lexicons = learn_all(corpus, bags)
    idf = idf_weights(corpus, bags)
    fps = fingerprints(con, corpus)
    out = Alignment(corpus, lexicons)
    for doc_a, doc_b in corpus.doc_pairs():
        langs = tuple(sorted((corpus.docs[doc_a].language, corpus.docs[doc_b].language)))
        lex = lexicons[langs]
        space = pair_space(corpus, bags, lex, idf, doc_a, doc_b, fps)
        matcher = PairMatcher(corpus, space)
        matcher.run()
        rows = _decision_rows(corpus, bags, lex, idf, space, matcher)
        rows += _title_rows(corpus, lex, doc_a, doc_b)
        rows += _definition_rows(corpus, doc_a, doc_b)
        out.matchers[(doc_a, doc_b)] = matcher
        out.rows[(doc_a, doc_b)] = rows
        out.sentences += _sentences(corpus, lex, space, rows)
    return out


def align_stage(con: sqlite3.Connection) -> dict:
    """Learn the lexicon, align provisions across documents and write the ``lexicon``
    and ``alignments`` tables.

    Returns:
        Row counts per document pair and relation, lexicon size, and seconds taken.
    """
    started = time.perf_counter()
    con.executescript(SCHEMA)
    result = align_corpus(con)
    lex_rows = write_lexicons(con, result.lexicons)
    write_sentences(con, result.sentences)
    counts: Counter = Counter()
    for (doc_a, doc_b), rows in result.rows.items():
        _write(con, rows, doc_a, doc_b, result.corpus.relation(doc_a, doc_b))
        counts.update(f"{doc_a}|{doc_b}|{r.relation}" for r in rows)
    for doc_b, rows in topic_rows(con, result.corpus, _law_equivalents(result)).items():
        doc_a = next(iter({r.a.split("/", 1)[0] for r in rows}), "")
        _write(con, rows, doc_a, doc_b, "topic")
        counts.update(f"{doc_a}|{doc_b}|topic" for _ in rows)
    con.commit()
    return {
        "rows": sum(counts.values()),
        "lexicon": lex_rows,
        "sentence_pairs": len(result.sentences),
        "training_pairs": {"-".join(k): v.pairs_used for k, v in result.lexicons.items()},
        "by_pair": dict(sorted(counts.items())),
        "seconds": round(time.perf_counter() - started, 3),
    }


def _law_equivalents(result: Alignment) -> dict[str, set[str]]:
    """Law node -> the law nodes shown as its equivalents in other books."""
    out: dict[str, set[str]] = {}
    provs = result.corpus.provs
    for rows in result.rows.values():
        for r in rows:
            if r.flagged or r.relation not in EQUIVALENT:
                continue
            if provs[r.a].kind == "law" and provs[r.b].kind == "law":
                out.setdefault(r.a, set()).add(r.b)
                out.setdefault(r.b, set()).add(r.a)
    return out


def _sentences(corpus: Corpus, lex: Lexicon, space, rows: list[Row]) -> list[tuple]:
    """Aligned sentences of the own texts of every pair shown as equivalent."""
    out = []
    ratio = math.exp(space.log_ratio)
    for r in rows:
        if r.flagged or r.relation not in EQUIVALENT:
            continue
        pa, pb = corpus.provs[r.a], corpus.provs[r.b]
        if not pa.text or not pb.text:
            continue
        la, lb = corpus.docs[pa.doc].language, corpus.docs[pb.doc].language
        out += sentence_rows(r.a, r.b, pa.text, pb.text, la, lb, lex, ratio)
    return out


def _evidence(corpus, bags, lex, idf, space, a, b, relation, p, feats, twin=None, twin_p=None):
    pa, pb = corpus.provs[a], corpus.provs[b]
    ev = {
        "why": why(relation, p, pa.label, pb.label, twin and corpus.provs[twin].label, twin_p,
                   feats),
        "terms": matched_terms(corpus, bags, lex, idf, a, b),
        "signals": {k: round(v, 3) for k, v in feats.items()},
    }  # fmt: skip
    ev.update(anchors(space, a, b))
    length = length_words(space, a, b)
    if length:
        ev["length"] = length
    return ev


def _decision_rows(corpus, bags, lex, idf, space, matcher) -> list[Row]:
    rows: list[Row] = []
    args = (corpus, bags, lex, idf, space)
    for a, d in matcher.decisions.items():
        if d.b is not None:
            method = "label+content" if d.relation in ("same", "partial") else "content"
            ev = _evidence(*args, a, d.b, d.relation, d.p, d.feats, d.twin, d.twin_p)
            rows.append(Row(a, d.b, method, round(d.p, 4), 0, ev, d.relation))
        if d.twin is not None and d.twin != d.b:
            p, feats = matcher.prob(a, d.twin)
            ev = _evidence(*args, a, d.twin, "not-equivalent", p, feats)
            if d.b is not None:
                ev["replaced_by"] = d.b
            rows.append(Row(a, d.twin, "label", round(p, 4), 1, ev, "not-equivalent"))
        elif d.b is None and d.closest is not None:
            p, feats = matcher.prob(a, d.closest)
            ev = _evidence(*args, a, d.closest, "none", p, feats)
            rows.append(Row(a, d.closest, "candidate", round(p, 4), 1, ev, "none"))
    for a, parts in split_rows(corpus, matcher):
        for b in parts:
            p, feats = matcher.prob(a, b)
            ev = _evidence(*args, a, b, "split", p, feats)
            ev["parts"] = parts
            rows.append(Row(a, b, "content", round(p, 4), 0, ev, "split"))
    return _dedupe(rows)


def _dedupe(rows: list[Row]) -> list[Row]:
    """One row per pair: a shown row wins over a flagged one."""
    best: dict[tuple[str, str], Row] = {}
    for r in rows:
        key = (r.a, r.b)
        if key not in best or (best[key].flagged and not r.flagged):
            best[key] = r
    return list(best.values())


def _title_rows(corpus: Corpus, lex, doc_a: str, doc_b: str) -> list[Row]:
    """Laws that only one side has text for (fi-2007 19-93 give only their titles):
    compared by their titles through the lexicon."""
    rows = []
    for x_doc, y_doc in ((doc_a, doc_b), (doc_b, doc_a)):
        x_lang, y_lang = corpus.docs[x_doc].language, corpus.docs[y_doc].language
        ys = [corpus.provs[n] for n in corpus.by_label[y_doc].values()
              if corpus.provs[n].kind in ("law", "section") and corpus.provs[n].title]  # fmt: skip
        y_tokens = {y.id: tokens(y_lang, y.title) for y in ys}
        xs = [corpus.provs[n] for n in corpus.by_label[x_doc].values()
              if corpus.provs[n].kind == "law" and not corpus.provs[n].has_text
              and corpus.provs[n].title]  # fmt: skip
        if not xs or not ys:
            continue
        x_tokens = {x.id: tokens(x_lang, x.title) for x in xs}
        flip = lex.lang_a != x_lang
        pairs = [(y_tokens[y.id], x_tokens[x.id]) if flip else (x_tokens[x.id], y_tokens[y.id])
                 for x in xs for y in ys]  # fmt: skip
        sims = pair_similarities(lex, pairs).reshape(len(xs), len(ys))
        for xi, x in enumerate(xs):
            nid = x.id
            scored = [(float(sims[xi, yi]), y.label == x.label, y.id) for yi, y in enumerate(ys)]
            if not scored:
                continue
            scored.sort(key=lambda s: (-s[0], not s[1], s[2]))
            twin = next((s for s in scored if s[1]), None)
            best = scored[0]
            if twin is not None and twin[0] >= TITLE_SAME and twin[0] >= best[0] - 0.2:
                pick, relation = twin, "same"
            elif best[0] >= TITLE_SAME:
                pick, relation = best, "moved"
            else:
                pick, relation = None, "none"
            a, b = (nid, None) if x_doc == doc_a else (None, nid)
            if pick is not None:
                other = pick[2]
                a, b = (nid, other) if x_doc == doc_a else (other, nid)
                ev = {"why": f"Titles only ({x_doc} has no text for this law): "
                             f"{pick[0]:.0%} of the title words translate to each other.",
                      "titles": [corpus.provs[a].title, corpus.provs[b].title]}  # fmt: skip
                rows.append(Row(a, b, "title", round(pick[0], 4), 0, ev, relation))
            if twin is not None and (pick is None or twin[2] != pick[2]):
                other = twin[2]
                a, b = (nid, other) if x_doc == doc_a else (other, nid)
                ev = {"why": f"Same law number, but the titles do not match "
                             f"({twin[0]:.0%} of the words translate).",
                      "titles": [corpus.provs[a].title, corpus.provs[b].title]}  # fmt: skip
                rows.append(Row(a, b, "label", round(twin[0], 4), 1, ev, "not-equivalent"))
    return rows


def _definition_rows(corpus: Corpus, doc_a: str, doc_b: str) -> list[Row]:
    """Same-language definitions with the same term."""
    if corpus.docs[doc_a].language != corpus.docs[doc_b].language:
        return []
    da, db = corpus.defs.get(doc_a, {}), corpus.defs.get(doc_b, {})
    ev = {"why": "The same term is defined in both books."}
    return [Row(a, db[slug], "label", 1.0, 0, dict(ev), "same")
            for slug, a in da.items() if slug in db]  # fmt: skip


def _write(con: sqlite3.Connection, rows: list[Row], doc_a: str, doc_b: str, rel: str) -> None:
    con.executemany(
        "INSERT INTO alignments VALUES (?,?,?,?,?,?,?,?,?,?)",
        [
            (r.a, r.b, doc_a, doc_b, rel, r.relation, r.method, r.score, r.flagged,
             json.dumps(r.evidence, ensure_ascii=False, sort_keys=True))
            for r in rows
        ],
    )  # fmt: skip
