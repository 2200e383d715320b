"""Divergence checks for aligned provisions: where one version says what the other does not.

For every aligned pair of provisions (rows of ``alignments`` that are not flagged,
provisions only, no topics) a table of small pure checks compares the two sides:

* ``cited-targets``: the provisions each side cites, compared through labels
  (``sv-2007/16B`` corresponds to ``fi-2007/16B``) and, across editions, through the
  alignment's best counterpart. A citation of an ancestor or descendant of a cited
  provision counts as the same target.
* ``numbers``: digits, percentages and number words (per-language tables), after the
  citation spans, page prefixes and label-like tokens are removed.
* ``structure``: sub-provisions one side has and the other lacks (by label and by count).
* ``national-addition``: national notes (el-2017 ``greek_note``), national footnotes
  and references to national supplement laws; unmatched supplement laws (sv-2007
  94–116, fi-1997 SR1–SR6) are reported against the other document with no partner.
* ``length-ratio``: the log length ratio of the pair against the normal ratio of its
  language pair, calibrated from the corpus itself (median and MAD of every pair);
  a robust z-score beyond :data:`LENGTH_Z` is flagged.
* ``concept-missing``: a glossary concept tagged in one side and absent in the other
  (only concepts with a term in both languages).

Each finding is ``{type, severity, weight, evidence, message}``. A finding's weight is
``SEVERITY_WEIGHT[severity] * TYPE_FACTOR[type]``; a pair's divergence score is the sum
of its findings' weights. Evidence names the documents (``{"fi-2007": [...], ...}``)
so it reads the same whichever way round a pair is shown.

The comparison scope of a pair is each node's own text when both nodes have children
(or both have none), and the node's whole subtree when only one side subdivides (the
text then lives at different depths), unless the divided side's parts have counterparts
of their own (then its own text is the pair's). Footnotes are never part of the scope; they
only feed the national-addition check.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import sqlite3
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from lawgraph.ingest import store
from lawgraph.ingest.nlp import lemma, words

from ..model import decode_attrs
from ..processes import die_with_parent, forking_allowed
from .calibration import unconfirmed
from .checks import (
    CHECKS,
    CONCEPT_MAX_SHARE,
    GREEK_NOTE,
    RENDER_P,
    Side,
    calibrate,
    finding,
    number_mentions,
    run_checks,
    strip_spans,
)

__all__ = [
    "CHECKS",
    "FAMILIES",
    "divergence_row",
    "divergence_stage",
    "node_divergences",
    "divergences_by_node",
]

PROVISION_KINDS = ("law", "section", "subsection", "item", "subitem")

SCHEMA = """
CREATE TABLE IF NOT EXISTS divergences (
  id TEXT NOT NULL, family TEXT NOT NULL, a TEXT, b TEXT, doc_a TEXT NOT NULL,
  doc_b TEXT NOT NULL, label TEXT NOT NULL,
  type TEXT NOT NULL, severity TEXT NOT NULL, weight REAL NOT NULL, evidence TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS divergences_id ON divergences(id);
CREATE INDEX IF NOT EXISTS divergences_a ON divergences(a);
CREATE INDEX IF NOT EXISTS divergences_b ON divergences(b);
CREATE INDEX IF NOT EXISTS divergences_docs ON divergences(doc_a, doc_b);
CREATE TABLE IF NOT EXISTS divergence_scores (
  a TEXT, b TEXT, doc_a TEXT NOT NULL, doc_b TEXT NOT NULL, label TEXT NOT NULL,
  score REAL NOT NULL, count INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS divergence_scores_docs ON divergence_scores(doc_a, doc_b);
CREATE INDEX IF NOT EXISTS divergence_scores_pair ON divergence_scores(a, b);
CREATE TABLE IF NOT EXISTS divergence_gaps (
  doc TEXT NOT NULL, other TEXT NOT NULL, node TEXT NOT NULL, label TEXT NOT NULL,
  kind TEXT NOT NULL, law TEXT, national INTEGER NOT NULL
);
"""

# ------------------------------------------------------------------------ the stage


@dataclass
class _Corpus:
    """What the stage reads from the store, indexed for the checks."""

    langs: dict[str, str]
    editions: dict[str, str]
    order: dict[str, int]
    nodes: dict[str, dict]
    kids: dict[str, list[str]]
    footnotes: dict[str, list[dict]]
    cites: dict[str, list[dict]]
    labels: dict[str, str]
    by_label: dict[tuple[str, str], str]
    national: set[str]
    textless: set[tuple[str, str]]
    truncated: set[tuple[str, str]]
    concepts: dict[str, set[str]]
    concept_langs: dict[str, set[str]]
    concept_share: dict[tuple[str, str], float] = field(default_factory=dict)
    terms: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    #: (node, concept) -> the words of the node that the glossary tagged as the concept
    hit_words: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    #: (language, other language) -> lemma -> its likely translations (learned lexicon)
    renders: dict[tuple[str, str], dict[str, set[str]]] = field(default_factory=dict)
    #: (node, the other node of its pair) -> the node's sentences the sentence alignment
    #: of the pair left without a counterpart
    unmatched: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    #: (a, b) -> their one-to-one aligned sentences (a's, b's)
    beads: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)
    #: label twins the alignment calls ``partial`` (same label and some shared wording,
    #: rewritten or replaced): reported as one finding each; their details are not
    #: compared (they are different rules). An unconfirmed twin
    #: (:func:`.calibration.unconfirmed`) is compared as an equivalent.
    rewritten: dict[tuple[str, str], float] = field(default_factory=dict)
    #: of those, the twins one of which has the shape of a pointer to another law
    #: (:meth:`.match.PairMatcher.pointing`): the pointer and what it cites
    points_away: dict[tuple[str, str], tuple[str, list[str]]] = field(default_factory=dict)
    #: per-node results reused by every pair the node is in (numbers, words, lemmas)
    memo: dict[tuple, Any] = field(default_factory=dict)
    """Values computed once per key (number mentions, lemma sets, rarities)."""
    #: (node, other document) whose only alignment there is a flagged label match
    contradicted: set[tuple[str, str]] = field(default_factory=set)
    counterpart: dict[tuple[str, str], str] = field(default_factory=dict)


def _load(con: sqlite3.Connection) -> _Corpus:
    docs = con.execute("SELECT id, language, edition, ord FROM documents").fetchall()
    c = _Corpus(
        langs={d[0]: d[1] for d in docs},
        editions={d[0]: d[2] for d in docs},
        order={d[0]: d[3] for d in docs},
        nodes={},
        kids=defaultdict(list),
        footnotes=defaultdict(list),
        cites=defaultdict(list),
        labels={},
        by_label={},
        national=set(),
        textless=set(),
        truncated=set(),
        concepts=defaultdict(set),
        concept_langs=defaultdict(set),
    )
    rows = con.execute(
        "SELECT id, doc, label, kind, law, text, parent, attrs, title FROM nodes ORDER BY doc, ord"
    ).fetchall()
    decoded = [decode_attrs(r[7]) for r in rows]
    for r, attrs in zip(rows, decoded, strict=True):
        c.labels[r[0]] = r[2]
        if attrs.get("supplement") or attrs.get("national"):
            c.national.add(r[0])
        if r[3] == "law" and attrs.get("has_text") is False or attrs.get("has_text") == 0:
            c.textless.add((r[1], r[4] or r[2]))
        if r[3] == "law" and attrs.get("truncated"):
            c.truncated.add((r[1], r[4] or r[2]))
    for r, attrs in zip(rows, decoded, strict=True):
        if r[3] == "footnote" and r[6]:
            c.footnotes[r[6]].append({"id": r[0], "text": r[5], "attrs": attrs})
        if r[3] not in PROVISION_KINDS or (r[1], r[4]) in c.textless:
            continue
        c.nodes[r[0]] = {
            "id": r[0],
            "doc": r[1],
            "label": r[2],
            "kind": r[3],
            "law": r[4],
            "text": r[5],
            "parent": r[6],
            "attrs": attrs,
            "title": r[8],
        }
        c.by_label[(r[1], r[2])] = r[0]
        if r[6]:
            c.kids[r[6]].append(r[0])
    for r in con.execute(
        "SELECT source, target, reason, raw, ref, start, end, field FROM citations ORDER BY rowid"
    ):
        c.cites[r[0]].append(
            {
                "target": r[1],
                "reason": r[2],
                "raw": r[3],
                "ref": r[4],
                "start": r[5],
                "end": r[6],
                "field": r[7],
            }
        )
    if store.has_table(con, "concept_hits"):
        hits = con.execute("SELECT node, concept, surface FROM concept_hits")
        for node, concept, surface in hits:
            c.concepts[node].add(concept)
            c.hit_words.setdefault((node, concept), set()).update(words(surface))
    if store.has_table(con, "sentence_pairs"):
        for a, b, bead, a_text, b_text in con.execute(
            "SELECT a, b, bead, a_text, b_text FROM sentence_pairs "
            "WHERE bead IN ('1-0', '0-1') ORDER BY a, b, n"
        ):
            if bead == "1-0":
                c.unmatched.setdefault((a, b), []).append(a_text)
            else:
                c.unmatched.setdefault((b, a), []).append(b_text)
        for a, b, a_text, b_text in con.execute(
            "SELECT a, b, a_text, b_text FROM sentence_pairs WHERE bead = '1-1' ORDER BY a, b, n"
        ):
            c.beads.setdefault((a, b), []).append((a_text, b_text))
    if store.has_table(con, "lexicon"):
        for la, lb, wa, wb in con.execute(
            "SELECT lang_a, lang_b, word_a, word_b FROM lexicon WHERE max(p_ab, p_ba) >= ? "
            "AND length(word_a) > 3 AND length(word_b) > 3",  # no articles
            (RENDER_P,),
        ):
            c.renders.setdefault((la, lb), {}).setdefault(wa, set()).add(wb)
            c.renders.setdefault((lb, la), {}).setdefault(wb, set()).add(wa)
    sizes = Counter(n["doc"] for n in c.nodes.values())
    tagged = Counter(
        (c.nodes[n]["doc"], k) for n, ks in c.concepts.items() if n in c.nodes for k in ks
    )
    c.concept_share = {key: v / sizes[key[0]] for key, v in tagged.items()}
    if store.has_table(con, "concept_terms"):
        for concept, lang, folded in con.execute("SELECT concept, lang, folded FROM concept_terms"):
            c.concept_langs[concept].add(lang)
            c.terms.setdefault(lang, {}).setdefault(concept, []).append(folded)
    return c


def _pairs(con: sqlite3.Connection, c: _Corpus) -> tuple[list[tuple[str, str, float]], str]:
    """Aligned provision pairs ``(a, b, score)``, ``a`` in the earlier document.

    Non-flagged rows of ``alignments`` between provisions; while that table is absent
    or has no provision rows, pairs of the same label in two documents.
    """
    pairs: dict[tuple[str, str], float] = {}
    source = "alignments"
    if store.has_table(con, "alignments"):
        for a, b, score, flagged, relation, evidence in con.execute(
            "SELECT a, b, score, flagged, relation, CASE WHEN relation = 'partial' "
            "THEN evidence END FROM alignments"
        ):
            if relation == "topic" or a not in c.nodes or b not in c.nodes:
                continue
            if flagged:
                if relation == "not-equivalent":  # a ``none`` row only names a candidate
                    c.contradicted |= {(a, c.nodes[b]["doc"]), (b, c.nodes[a]["doc"])}
                continue
            if c.order[c.nodes[a]["doc"]] > c.order[c.nodes[b]["doc"]]:
                a, b = b, a
            if c.nodes[a]["doc"] == c.nodes[b]["doc"]:
                continue
            pairs[(a, b)] = max(pairs.get((a, b), 0.0), float(score or 0.0))
            if relation == "partial" and not unconfirmed(relation, float(score or 0.0)):
                c.rewritten[(a, b)] = float(score or 0.0)
                away = json.loads(evidence or "{}").get("points_away")
                if away:
                    c.points_away[(a, b)] = (away["pointer"], list(away["cites"]))
    if not pairs:
        source = "labels"
        docs = sorted({n["doc"] for n in c.nodes.values()}, key=c.order.__getitem__)
        for i, da in enumerate(docs):
            for db in docs[i + 1 :]:
                for nid, n in c.nodes.items():
                    if n["doc"] == da and (db, n["label"]) in c.by_label:
                        pairs[(nid, c.by_label[(db, n["label"])])] = 1.0
    for (a, b), score in pairs.items():
        for x, y in ((a, b), (b, a)):
            key = (x, c.nodes[y]["doc"])
            best = c.counterpart.get(key)
            if best is None or pairs.get(_ordered(c, x, best), 0.0) < score:
                c.counterpart[key] = y
    checked = [(a, b, s) for (a, b), s in pairs.items() if (a, b) not in c.rewritten]
    return checked, source


def _ordered(c: _Corpus, x: str, y: str) -> tuple[str, str]:
    return (x, y) if c.order[c.nodes[x]["doc"]] < c.order[c.nodes[y]["doc"]] else (y, x)


def _subtree(c: _Corpus, nid: str) -> list[str]:
    key = ("subtree", nid)
    if key not in c.memo:
        out, todo = [], [nid]
        while todo:
            n = todo.pop(0)
            out.append(n)
            todo[:0] = c.kids.get(n, [])
        c.memo[key] = out
    return list(c.memo[key])


def _map_label(c: _Corpus, target: str | None, label: str, doc: str, other: str) -> str:
    """A cited provision as a label of the other document (through the alignment)."""
    if target and c.editions[doc] != c.editions[other]:
        mapped = c.counterpart.get((target, other))
        if mapped:
            return c.nodes[mapped]["label"]
    return label


def _side(c: _Corpus, nid: str, other_id: str, scope: str) -> Side:
    n, other = c.nodes[nid], c.nodes[other_id]
    doc, odoc = n["doc"], other["doc"]
    lang = c.langs[doc]
    members = _subtree(c, nid) if scope == "subtree" else [nid]
    text = " ".join(c.nodes[m]["text"] for m in members if c.nodes[m]["text"])
    side = Side(
        id=nid,
        doc=doc,
        lang=lang,
        label=n["label"],
        kind=n["kind"],
        scope=scope,
        text=text,
        edition=str(c.editions[doc]),
        own_text=bool(n["text"].strip()),
    )
    first = _opening(c, nid)
    if first is not None:
        side.opening = c.nodes[first]["label"]
    for m in members:
        cites = c.cites.get(m, [])
        spans = [(x["start"], x["end"]) for x in cites if x["field"] == "text"]
        counted, mentioned = _node_numbers(c, m, lang, spans)
        side.numbers += counted
        side.mentioned += mentioned
        for x in cites:
            side.mentioned += _cited_numbers(c, x["target"])
            label = c.labels.get(x["target"]) if x["target"] else None
            if label is None and x["reason"] == "no-text":
                label = x["ref"]
            if label is None or (x["target"] and x["target"].split("/", 1)[1].startswith("def/")):
                continue
            side.targets.setdefault(label, x["raw"])
            side.mapped.setdefault(label, _map_label(c, x["target"], label, doc, odoc))
            if (
                x["target"]
                and c.editions[doc] != c.editions[odoc]
                and (x["target"], odoc) not in c.counterpart
            ):
                side.unmapped.add(label)
            if x["target"] in c.national:
                side.national.append(
                    {
                        "kind": "supplement-reference",
                        "id": m,
                        "text": x["raw"],
                        "target": x["target"],
                    }
                )
        attrs = c.nodes[m]["attrs"]
        if attrs.get("greek_note"):
            notes = GREEK_NOTE.findall(c.nodes[m]["text"]) or [c.nodes[m]["text"][-160:]]
            side.national += [{"kind": "greek-note", "id": m, "text": t} for t in notes]
        if m in c.national:
            side.national.append({"kind": "supplement", "id": m, "text": n["label"]})
        for fn in c.footnotes.get(m, []):
            cited = [x["target"] for x in c.cites.get(fn["id"], []) if x["target"] in c.national]
            if fn["attrs"].get("greek_note") or cited:
                side.national.append(
                    {"kind": "national-footnote", "id": fn["id"], "text": fn["text"]}
                )
        side.concepts |= {k for k in c.concepts.get(m, ()) if _telling(c, k, doc, odoc)}
    near = _subtree(c, nid) + ([n["parent"]] if n["parent"] in c.nodes else [])
    side.nearby_concepts = {k for m in near for k in c.concepts.get(m, ())}
    key = ("around", nid, scope)  # the same provision is a side of a pair with every book
    if key not in c.memo:
        around = {*members, *near}
        c.memo[key] = (
            frozenset().union(*(_node_words(c, m) for m in around)),
            frozenset().union(*(_node_lemmas(c, m, lang) for m in around)),
        )
    around_words, around_lemmas = c.memo[key]
    side.words = around_words  # read only: shared by the sides of every pair
    side.terms = c.terms.get(lang, {})
    side.lemmas = around_lemmas
    side.unmatched = list(c.unmatched.get((nid, other_id), []))
    for sentence in side.unmatched:
        side.sentence_lemmas[sentence] = [lemma(lang, w) for w in words(sentence)]
    side.sentences = list(c.beads.get((nid, other_id), []))
    side.sentences += [(y, x) for x, y in c.beads.get((other_id, nid), [])]
    table = c.renders.get((lang, c.langs[odoc]), {})
    same_language = lang == c.langs[odoc]
    for ws in side.sentence_lemmas.values():
        for w in ws:
            side.word_renders[w] = set(table.get(w, ())) | ({w} if same_language else set())
            side.rarity[w] = _rarity(c, doc, lang, w)
    for k in side.concepts:
        rkey = ("renders", nid, scope, k, c.langs[odoc])
        if rkey not in c.memo:
            said = _said(c, nid, scope, members, k, lang)
            c.memo[rkey] = frozenset(
                {t for w in said for t in table.get(w, ())} | (said if same_language else set())
            )
        side.renders[k] = c.memo[rkey]
    for k in c.kids.get(nid, []):
        mapped = c.counterpart.get((k, odoc))
        if mapped:
            side.children[c.labels[k]] = c.nodes[mapped]["label"]
            side.aligned_children.add(c.labels[k])
        else:
            side.children[c.labels[k]] = None if (k, odoc) in c.contradicted else c.labels[k]
        side.reach[c.labels[k]] = {
            c.nodes[got]["label"]
            for d in _subtree(c, k)[1:]
            if (got := c.counterpart.get((d, odoc)))
        }
    side.below = {c.labels[d] for d in _subtree(c, nid)[1:]}
    return side


def _cited_numbers(c: _Corpus, target: str | None) -> Counter:
    """The numbers a cited provision below law level states (with its sub-provisions): a
    book that sends the reader to "79C" for the 30 minutes says them by reference."""
    if not target or target not in c.nodes or c.nodes[target]["kind"] == "law":
        return Counter()
    key = ("cited-numbers", target)
    if key not in c.memo:
        lang = c.langs[c.nodes[target]["doc"]]
        out: Counter = Counter()
        for m in _subtree(c, target):
            spans = [(x["start"], x["end"]) for x in c.cites.get(m, []) if x["field"] == "text"]
            out += _node_numbers(c, m, lang, spans)[1]
        c.memo[key] = out
    return c.memo[key]


def _node_numbers(c: _Corpus, nid: str, lang: str, spans: list) -> tuple[Counter, Counter]:
    """The numbers a node's text states (counted ones, and every one it mentions), with
    its citations blanked out; computed once per node."""
    key = ("numbers", nid)
    if key not in c.memo:
        plain = strip_spans(c.nodes[nid]["text"], spans)
        c.memo[key] = number_mentions(lang, plain)
    return c.memo[key]


def _rarity(c: _Corpus, doc: str, lang: str, word: str) -> float:
    """log(provisions of ``doc`` / provisions of ``doc`` whose text has the lemma)."""
    df, n = _frequencies(c, doc, lang)
    return math.log((n + 1) / (df.get(word, 0) + 1))


def _frequencies(c: _Corpus, doc: str, lang: str) -> tuple[Counter, int]:
    """The lemmas of ``doc``'s nodes: in how many nodes each is, and how many nodes there
    are; made once (before the checks' second process is forked, which then has them)."""
    key = ("df", doc)
    if key not in c.memo:
        df: Counter = Counter()
        mine = [n for n, x in c.nodes.items() if x["doc"] == doc]
        for n in mine:
            df.update(_node_lemmas(c, n, lang))
        c.memo[key] = (df, len(mine))
    return c.memo[key]


def _node_words(c: _Corpus, nid: str) -> frozenset:
    key = ("words", nid)
    if key not in c.memo:
        c.memo[key] = frozenset(words(c.nodes[nid]["text"]))
    return c.memo[key]


def _node_lemmas(c: _Corpus, nid: str, lang: str) -> frozenset:
    key = ("lemmas", nid)
    if key not in c.memo:
        c.memo[key] = frozenset(lemma(lang, w) for w in _node_words(c, nid))
    return c.memo[key]


def _said(c: _Corpus, nid: str, scope: str, members: list[str], k: str, lang: str) -> set:
    """The lemmas of the words that expressed concept ``k`` in ``members`` (the scope
    ``scope`` of ``nid``); computed once per provision, scope and concept."""
    key = ("said", nid, scope, k)
    if key not in c.memo:
        c.memo[key] = frozenset(
            lemma(lang, w) for m in members for w in c.hit_words.get((m, k), ())
        )
    return set(c.memo[key])


def _telling(c: _Corpus, concept: str, doc: str, other: str) -> bool:
    """Whether a concept's absence can mean something between two documents: it has
    terms in both languages and is not too common in either document."""
    key = ("telling", concept, doc, other)
    if key not in c.memo:
        c.memo[key] = _telling_now(c, concept, doc, other)
    return c.memo[key]


def _telling_now(c: _Corpus, concept: str, doc: str, other: str) -> bool:
    langs = c.concept_langs.get(concept)
    if langs is not None and not {c.langs[doc], c.langs[other]} <= langs:
        return False
    return max(c.concept_share.get((d, concept), 0.0) for d in (doc, other)) <= CONCEPT_MAX_SHARE


def _scope(c: _Corpus, a: str, b: str) -> str:
    """``own`` text for both sides, or ``subtree`` when one side subdivides and the other
    does not, so the one's text lives at another depth. Not when the divided side has a
    text of its own and its parts have counterparts of their own in the other book: the
    pair is then its own text's (fi-1997 Law 39's opening sentence is el-2017 39A, and
    its 39A and 39B are el-2017 39B and 39C)."""
    if bool(c.kids.get(a)) == bool(c.kids.get(b)):
        return "own"
    whole, part = (a, b) if c.kids.get(a) else (b, a)
    other = c.nodes[part]["doc"]
    own_parts = (c.counterpart.get((m, other)) for m in _subtree(c, whole)[1:])
    if c.nodes[whole]["text"] and any(x not in (None, part) for x in own_parts):
        return "own"
    return "subtree"


def _gaps(c: _Corpus, pairs: list[tuple[str, str, float]]) -> list[dict]:
    """Provisions of one document with no partner in another (tops of unmatched subtrees).

    A provision whose counterpart exists without text (a truncated book) is not a gap,
    nor is the undivided opening provision of one whose text is all in its parts when the
    other book's counterpart of the whole has a text of its own: that text is where the
    opening went (1997 7B "Kukin pelaaja ottaa kortit ..." is word for word the 2007 7B1, the
    first part of a 7B with no text of its own).
    """
    partners: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for a, b, _ in pairs:
        partners[a][c.nodes[b]["doc"]].append(b)
        partners[b][c.nodes[a]["doc"]].append(a)
    docs = sorted({n["doc"] for n in c.nodes.values()}, key=c.order.__getitem__)
    out = []
    for nid, n in c.nodes.items():
        parent = n["parent"] if n["parent"] in c.nodes else None
        for other in docs:
            if other == n["doc"] or other in partners[nid]:
                continue
            if parent and other not in partners[parent]:
                continue
            if parent and _opening_of(c, nid, parent, partners[parent][other]):
                continue
            law = n["law"] or n["label"]
            if (other, law) in c.textless or (other, law) in c.truncated:
                continue
            out.append(
                {
                    "doc": n["doc"],
                    "other": other,
                    "node": nid,
                    "label": n["label"],
                    "kind": n["kind"],
                    "law": n["law"],
                    "national": int(nid in c.national),
                }
            )
    return out


def _opening(c: _Corpus, nid: str) -> str | None:
    """The first part of ``nid`` when ``nid`` has no text of its own and that part is not
    divided: where another book's own text of the whole may have gone (a divided opening
    may add parts: 2007 16B1(b))."""
    kids = c.kids.get(nid)
    if not kids or c.nodes[nid]["text"].strip() or c.kids.get(kids[0]):
        return None
    return kids[0]


def _opening_of(c: _Corpus, nid: str, parent: str, counterparts: list[str]) -> bool:
    """Whether ``nid`` is the :func:`_opening` of ``parent`` while one of the parent's
    counterparts has a text of its own."""
    return _opening(c, parent) == nid and any(c.nodes[x]["text"].strip() for x in counterparts)


def _rewritten_finding(c: _Corpus, a: str, b: str, score: float) -> dict:
    da, db = c.nodes[a]["doc"], c.nodes[b]["doc"]
    # the score is the alignment's probability that the two are equivalent, not a share
    # of their words: named as what it is
    odds = f"the alignment gives {score:.0%} that they are equivalent"
    if c.editions[da] == c.editions[db]:
        msg = (
            f"{a} and {b} carry the same label but do not say the same: the two "
            f"translations differ in substance ({odds})"
        )
    else:
        msg = (
            f"{a} and {b} carry the same label but do not say the same: between the "
            f"{c.editions[da]} and {c.editions[db]} editions the rule under this label was "
            f"rewritten or replaced ({odds})"
        )
    if c.nodes[a]["kind"] == "law" == c.nodes[b]["kind"] and c.editions[da] != c.editions[db]:
        msg = (
            f"{a} and {b} are the laws of one number, but as wholes they do not say the "
            f"same: between the {c.editions[da]} and {c.editions[db]} editions the law's "
            f"provisions were rearranged, rewritten or replaced ({odds}); each provision's "
            f"own equivalents say where its rule is now"
        )
    away = c.points_away.get((a, b))
    if away and c.editions[da] != c.editions[db]:
        other = b if away[0] == a else a
        msg = (
            f"{a} and {b} carry the same label, but {away[0]} is much shorter and cites "
            f"{', '.join(away[1])}, which {other} does not: between the {c.editions[da]} "
            f"and {c.editions[db]} editions the rule may have moved rather than been "
            f"rewritten; read both ({odds})"
        )
    return finding("rewritten", "medium", {da: [a], db: [b], "alignment": round(score, 4)}, msg)


def _gap_finding(c: _Corpus, gap: dict) -> dict:
    nid, doc, other = gap["node"], gap["doc"], gap["other"]
    what = "national supplement" if gap["national"] else "provision"
    type_ = "national-addition" if gap["national"] else "structure"
    n = c.nodes[nid]
    evidence = {doc: [gap["label"]], other: [], "title": n["title"] or n["text"][:160]}
    # a national supplement is the federation's own rule, expected and no translation fault
    severity = "low" if gap["national"] else "high" if gap["kind"] == "law" else "medium"
    return finding(
        type_,
        severity,
        evidence,
        f"{doc} has {what} {gap['label']}; {other} has no counterpart",
    )


def divergence_stage(con: sqlite3.Connection) -> dict:
    """Compare every aligned provision pair and write ``divergences`` and scores.

    Also writes ``divergence_gaps``: per document pair, the provisions one has and the
    other lacks. Never raises on the real corpus; returns statistics, including the
    length-ratio calibration per language pair.
    """
    t0 = time.perf_counter()
    c = _load(con)
    pairs, source = _pairs(con, c)
    rows, cal = _checked(c, pairs)
    for (a, b), score in sorted(c.rewritten.items()):
        rows.append(
            (
                a,
                b,
                c.nodes[a]["doc"],
                c.nodes[b]["doc"],
                c.nodes[a]["label"],
                _rewritten_finding(c, a, b, score),
            )
        )
    gaps = _gaps(c, pairs)
    for g in gaps:
        if g["kind"] != "law" or (g["other"], g["label"]) in c.by_label:
            continue  # a law the other book has under the same number was rewritten, not lost
        first = c.order[g["doc"]] < c.order[g["other"]]
        ga, gb = (g["node"], None) if first else (None, g["node"])
        da, db = (g["doc"], g["other"]) if first else (g["other"], g["doc"])
        rows.append((ga, gb, da, db, g["label"], _gap_finding(c, g)))
    ids = finding_ids([(a, b, da, db, f) for a, b, da, db, _label, f in rows])
    # the tables are made only now: until here the stage reads, and takes no write lock
    # from a stage writing beside it
    con.executescript(SCHEMA)
    con.executemany(
        "INSERT INTO divergences VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                fid,
                family_of(c, da, db, f["type"]),
                a,
                b,
                da,
                db,
                label,
                f["type"],
                f["severity"],
                f["weight"],
                json.dumps(f["evidence"], ensure_ascii=False),
                f["message"],
            )
            for fid, (a, b, da, db, label, f) in zip(ids, rows, strict=True)
        ],
    )
    scores: dict[tuple, list] = {}
    for a, b, da, db, label, f in rows:
        s = scores.setdefault((a, b, da, db, label), [0.0, 0])
        s[0] += f["weight"]
        s[1] += 1
    con.executemany(
        "INSERT INTO divergence_scores VALUES (?,?,?,?,?,?,?)",
        [(*k, round(v[0], 3), v[1]) for k, v in scores.items()],
    )
    con.executemany(
        "INSERT INTO divergence_gaps VALUES (?,?,?,?,?,?,?)",
        [
            (g["doc"], g["other"], g["node"], g["label"], g["kind"], g["law"], g["national"])
            for g in gaps
        ],
    )
    by_type = Counter(f["type"] for *_, f in rows)
    by_docs = Counter(f"{da}~{db}" for _, _, da, db, _, _ in rows)
    return {
        "pairs": len(pairs),
        "pairs_from": source,
        "divergences": len(rows),
        "scored_pairs": len(scores),
        "gaps": len(gaps),
        "by_type": dict(sorted(by_type.items())),
        "by_documents": dict(sorted(by_docs.items())),
        "length_calibration": "; ".join(
            f"{k} ×{v['median_ratio']} (MAD {v['mad']:.3f}, n {v['n']})" for k, v in cal.items()
        ),
        "calibration": {
            k: {x: round(y, 4) if isinstance(y, float) else y for x, y in v.items()}
            for k, v in cal.items()
        },
        "seconds": round(time.perf_counter() - t0, 2),
    }


PARALLEL_MIN = 1000
"""With fewer aligned pairs than this the checks run in one process (a second one does
not pay for itself; the five books have about 2,100)."""


def _sides(c: _Corpus, pairs: list[tuple[str, str, float]]) -> list[tuple[Side, Side]]:
    return [(_side(c, a, b, _scope(c, a, b)), _side(c, b, a, _scope(c, a, b))) for a, b, _ in pairs]


def _findings(sides: list[tuple[Side, Side]], cal: dict) -> list[list[tuple]]:
    """The findings of each pair of ``sides``, one list per pair."""
    return [
        [(sa.id, sb.id, sa.doc, sb.doc, sa.label, f) for f in run_checks(sa, sb, cal)]
        for sa, sb in sides
    ]


def _checked(c: _Corpus, pairs: list[tuple[str, str, float]]) -> tuple[list[tuple], dict]:
    """The findings of every pair, in order, and the length calibration of all of them.

    With worker processes allowed (:func:`ingest.processes.default_workers`), a forked process
    makes the sides of about half of the pairs and checks them, while this one does the
    rest: the calibration, made here from every side, is handed to it between the two
    steps, so the findings are those of one process. The pairs are shared out by law
    (:func:`_shared_out`): a provision is a side of a pair with every other book, and
    what is worked out for it once serves them all.
    """
    theirs = _shared_out(c, pairs) if _parallel(len(pairs)) else []
    if not theirs:
        every = _sides(c, pairs)
        cal = calibrate(every)
        return [row for found in _findings(every, cal) for row in found], cal
    taken = set(theirs)
    mine = [i for i in range(len(pairs)) if i not in taken]
    for doc in sorted({c.nodes[x]["doc"] for a, b, _ in pairs for x in (a, b)}):
        _frequencies(c, doc, c.langs[doc])  # both processes read them: made once, here
    child = _Half.start(c, [pairs[i] for i in theirs])
    try:
        sides: dict[int, tuple[Any, Any]] = dict(
            zip(mine, _sides(c, [pairs[i] for i in mine]), strict=True)
        )
        sides.update(zip(theirs, child.sides(), strict=True))
        cal = calibrate([sides[i] for i in range(len(pairs))])
        child.calibrated(cal)  # it checks its pairs while this process checks its own
        found = dict(zip(mine, _findings([sides[i] for i in mine], cal), strict=True))
        found.update(zip(theirs, child.findings(), strict=True))
    except BaseException:
        child.close(at_once=True)
        raise
    child.close()
    return [row for i in range(len(pairs)) for row in found[i]], cal


def _shared_out(c: _Corpus, pairs: list[tuple[str, str, float]]) -> list[int]:
    """The indexes of the pairs for the second process: whole laws (the law number of the
    pair's first provision, in every book), the largest first, each to the process with
    fewer pairs so far."""
    by_law: dict[str, list[int]] = {}
    for i, (a, _b, _s) in enumerate(pairs):
        n = c.nodes[a]
        by_law.setdefault(n["law"] or n["label"], []).append(i)
    laws = sorted(by_law, key=lambda k: (-len(by_law[k]), k))
    halves: tuple[list[int], list[int]] = ([], [])
    for law in laws:
        min(halves, key=len).extend(by_law[law])
    return sorted(halves[1])


def _parallel(n_pairs: int) -> bool:
    return n_pairs >= PARALLEL_MIN and forking_allowed()


@dataclass(frozen=True)
class _Measured:
    """A side as :func:`.checks.calibrate` reads it (handed over instead of the side)."""

    lang: str
    text: str


class _Half:
    """The pairs :func:`_shared_out` gives a forked process, checked there (see
    :func:`_checked`)."""

    def __init__(self, process, pipe) -> None:
        self.process = process
        self.pipe = pipe

    @classmethod
    def start(cls, c: _Corpus, pairs: list[tuple[str, str, float]]) -> _Half:
        import multiprocessing as mp

        ctx = mp.get_context("fork")
        mine, theirs = ctx.Pipe()
        args = (c, pairs, theirs, os.getpid())
        process = ctx.Process(target=_check_half, args=args, daemon=True)
        process.start()
        theirs.close()
        return cls(process, mine)

    def _recv(self):
        try:
            got = self.pipe.recv()
        except EOFError:
            got = ("error", "the divergence checks' worker process died")
        if got[0] == "error":
            raise RuntimeError(got[1])
        return got[1:]

    def sides(self) -> list[tuple[Any, Any]]:
        """What :func:`.checks.calibrate` reads of its sides (language and text)."""
        return self._recv()[0]

    def calibrated(self, cal: dict) -> None:
        """Hand the calibration over: the process checks its pairs with it."""
        self.pipe.send(cal)

    def findings(self) -> list[list[tuple]]:
        """The findings of its pairs (after :meth:`calibrated`), one list per pair."""
        from lawgraph.ingest import lemma_table

        rows, answers = self._recv()
        lemma_table.merge(answers)  # the dictionary answers it asked, for the lemma table
        return rows

    def close(self, at_once: bool = False) -> None:
        """Wait for the process to end (``at_once``: stop it, as when this one failed)."""
        self.pipe.close()
        if not at_once:
            self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join()


def _check_half(c: _Corpus, pairs: list[tuple[str, str, float]], pipe, parent: int) -> None:
    from lawgraph.ingest import lemma_table

    die_with_parent(parent)
    lemma_table.take_new()
    try:
        sides = _sides(c, pairs)
        pipe.send(
            ("sides", [(_Measured(a.lang, a.text), _Measured(b.lang, b.text)) for a, b in sides])
        )
        cal = pipe.recv()
        pipe.send(("rows", _findings(sides, cal), lemma_table.take_new()))
    except (EOFError, BrokenPipeError):  # the parent gave up
        pass
    except Exception as exc:  # the parent raises it
        with contextlib.suppress(OSError):  # unless it is gone
            pipe.send(("error", repr(exc)))
    finally:
        pipe.close()


FAMILIES = ("translation", "edition", "national")
"""Findings come in three families, never mixed: ``translation`` divergences between two
translations of one edition (fi-2007 / sv-2007), ``edition`` changes between editions
(what 2007 or 2017 changed from 1997, or 2017 from 2007) and ``national`` additions (a
federation's own laws, footnotes and notes), listed once."""


def family_of(c: _Corpus, doc_a: str, doc_b: str, type_: str) -> str:
    """The family of one finding (:data:`FAMILIES`)."""
    if type_ == "national-addition":
        return "national"
    return "translation" if c.editions[doc_a] == c.editions[doc_b] else "edition"


VOLATILE = frozenset({"alignment", "ratio", "normal_ratio", "z", "chars", "count", "counterpart"})
"""Evidence that depends on the whole corpus (the usual length ratio, an alignment score,
a cited target's counterpart) and so is left out of a finding's id."""


def _identity(evidence):
    """What identifies a finding: its evidence without :data:`VOLATILE` parts."""
    if isinstance(evidence, dict):
        return {k: _identity(v) for k, v in evidence.items() if k not in VOLATILE}
    if isinstance(evidence, list):
        return [_identity(v) for v in evidence]
    return evidence


def finding_ids(rows: list[tuple]) -> list[str]:
    """A stable id per finding ``(a, b, doc_a, doc_b, finding)``: a hash of the two
    provisions, the type and what the evidence says (not the message, whose wording may
    change, nor figures that depend on the whole corpus), so the same input gives the same
    ids, a review outlives a re-ingest, and an edit elsewhere in a book leaves it be. Two findings
    that would hash alike get ``-2``, ``-3`` in input order."""
    out: list[str] = []
    seen: Counter[str] = Counter()
    for a, b, da, db, f in rows:
        key = json.dumps(
            [a, b, da, db, f["type"], _identity(f["evidence"])], ensure_ascii=False, sort_keys=True
        )
        fid = hashlib.sha256(key.encode()).hexdigest()[:12]
        seen[fid] += 1
        out.append(fid if seen[fid] == 1 else f"{fid}-{seen[fid]}")
    return out


# ---------------------------------------------------------------- read by the compare stage


def divergence_row(r: sqlite3.Row) -> dict:
    """One row of ``divergences`` as a dict, its evidence decoded."""
    d = {k: r[k] for k in r.keys()}  # noqa: SIM118
    d["evidence"] = json.loads(d["evidence"])
    return d


_HEAVIEST_FIRST = "ORDER BY weight DESC, doc_a, doc_b, type, rowid"
"""The order of a node's divergences (:func:`node_divergences`, :func:`divergences_by_node`)."""


def node_divergences(con: sqlite3.Connection, node_id: str) -> list[dict]:
    """Every divergence one of whose sides is ``node_id``, heaviest first."""
    if not store.has_table(con, "divergences"):
        return []
    rows = con.execute(
        f"SELECT * FROM divergences WHERE a = ? OR b = ? {_HEAVIEST_FIRST}",
        (node_id, node_id),
    )
    return [divergence_row(r) for r in rows]


def divergences_by_node(con: sqlite3.Connection) -> dict[str, list[dict]]:
    """:func:`node_divergences` of every node at once (one read of the table): node id ->
    its divergences, in that order."""
    out: dict[str, list[dict]] = {}
    if not store.has_table(con, "divergences"):
        return out
    rows = con.execute(f"SELECT * FROM divergences {_HEAVIEST_FIRST}").fetchall()
    for r in rows:
        d = divergence_row(r)
        for node in {d["a"], d["b"]} - {None}:
            out.setdefault(node, []).append(d)
    return out
