"""Content alignment: where labels lie, solve the assignment by content.

For each pair of documents, law by law, the children of two equivalent
provisions (sections of a law, subsections of a section, items of a subsection)
are matched by content score with :func:`scipy.optimize.linear_sum_assignment`.
A match between different labels that clearly beats the label matches of both
its ends becomes a ``content`` alignment, and the label matches it contradicts
are flagged. Matches between equal labels confirm the label alignment
(``label+content``). Equivalent pairs are descended into, so a renumbered
section's subsections are matched under their real counterpart.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from .evidence import Fingerprint, compare, section_of
from .label import Corpus, label_pairs

MIN_CONTENT = 0.4
"""A content alignment needs at least this content score."""
MIN_WEIGHT = 2.0
"""... and at least this much evidence (sum of the weights of the signals seen)."""
CONTRADICT = 0.15
"""A label match below this content score (with enough evidence) is contradicted
even when no better counterpart shows; laws are exempt (their numbers are stable)."""
MARGIN = {"cross-edition": 0.12, "same-edition": 0.25}
"""How much a content match must beat the label matches it contradicts."""


@dataclass
class Row:
    """One alignment row before it is written."""

    a: str
    b: str
    method: str
    score: float
    flagged: int
    evidence: dict


@dataclass
class PairAligner:
    """Aligns one pair of documents."""

    corpus: Corpus
    fps: dict[str, Fingerprint]
    doc_a: str
    doc_b: str
    idf: dict[str, float]
    remap: dict[str, str] = field(default_factory=dict)
    bridges: list[tuple[str, dict[str, str], dict[str, str]]] = field(default_factory=list)
    """``(doc C, map doc_a -> C, map C -> doc_b)`` of pairs aligned before this one."""
    cache: dict[tuple[str, str], dict] = field(default_factory=dict)
    confirmed: set[tuple[str, str]] = field(default_factory=set)
    content: dict[tuple[str, str], dict] = field(default_factory=dict)
    contradicted: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    laws: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.laws = frozenset(
            self.corpus.provs[nid].label
            for d in (self.doc_a, self.doc_b)
            for nid in self.corpus.by_label[d].values()
            if self.corpus.provs[nid].kind == "law" and self.corpus.provs[nid].has_text
        )
        self.laws = frozenset(
            law for law in self.laws
            if all(self.corpus.by_label[d].get(law) for d in (self.doc_a, self.doc_b))
            and all(self.corpus.provs[self.corpus.by_label[d][law]].has_text
                    for d in (self.doc_a, self.doc_b))
        )  # fmt: skip

    def score(self, a: str, b: str) -> dict:
        """The content comparison of two provisions (cached)."""
        key = (a, b)
        if key not in self.cache:
            extra, via = self._bridge(a, b)
            s = compare(self.fps[a], self.fps[b], self.remap, self.idf, extra, self.laws)
            if via:
                s["via"] = via
            self.cache[key] = s
        return self.cache[key]

    def _bridge(self, a: str, b: str) -> tuple[dict[str, float], list[str]]:
        """Whether ``a``'s counterpart in a third document has ``b`` as its counterpart."""
        votes, via = [], []
        for _doc_c, a_to_c, c_to_b in self.bridges:
            c = a_to_c.get(a)
            if c is None or c not in c_to_b:
                continue
            votes.append(1.0 if c_to_b[c] == b else 0.0)
            via.append(c)
        return ({"bridge": sum(votes) / len(votes)} if votes else {}), via

    def _value(self, a: str, b: str) -> float:
        s = self.score(a, b)
        return s["score"] if s["score"] is not None else 0.0

    def run(self) -> None:
        """Match every law present (with text) in both documents, top down."""
        la = self.corpus.by_label[self.doc_a]
        lb = self.corpus.by_label[self.doc_b]
        for label, a in la.items():
            p = self.corpus.provs[a]
            if (
                p.kind == "law"
                and label in lb
                and p.has_text
                and self.corpus.provs[lb[label]].has_text
            ):
                self.match_children(a, lb[label])

    def _label_twin(self, node: str, other_doc: str) -> str | None:
        return self.corpus.by_label[other_doc].get(self.corpus.provs[node].label)

    def match_children(self, pa: str, pb: str) -> None:
        """Assign the children of two equivalent provisions to each other."""
        provs = self.corpus.provs
        ca, cb = provs[pa].children, provs[pb].children
        if not ca or not cb:
            return
        m = np.array([[self._value(a, b) for b in cb] for a in ca])
        rows, cols = linear_sum_assignment(-m)
        margin = MARGIN[self.corpus.relation(self.doc_a, self.doc_b)]
        index_a = {a: i for i, a in enumerate(ca)}
        index_b = {b: j for j, b in enumerate(cb)}
        for i, j in zip(rows, cols, strict=True):
            a, b = ca[i], cb[j]
            s = self.score(a, b)
            if provs[a].label == provs[b].label:
                if s["score"] is not None:
                    self.confirmed.add((a, b))
                self.match_children(a, b)
                continue
            if s["score"] is None or s["score"] < MIN_CONTENT or s["weight"] < MIN_WEIGHT:
                continue
            twin_b = self._label_twin(a, self.doc_b)
            twin_a = self._label_twin(b, self.doc_a)
            rivals = []
            if twin_b is not None:
                rivals.append((a, twin_b))
            if twin_a is not None:
                rivals.append((twin_a, b))
            beaten = all(
                self._rival_value(x, y, index_a, index_b, m) <= s["score"] - margin
                for x, y in rivals
            )
            if not beaten:
                continue
            self.content[(a, b)] = s
            for pair in rivals:
                self.contradicted.setdefault(pair, []).append(f"{a}={b}")
            self.match_children(a, b)

    def _rival_value(self, x, y, index_a, index_b, m) -> float:
        if x in index_a and y in index_b:
            return float(m[index_a[x], index_b[y]])
        return self._value(x, y)

    def section_remap(self) -> dict[str, str]:
        """Section labels of ``doc_a`` mapped to ``doc_b`` by the content matches found."""
        out = {}
        for a, b in self.content:
            pa, pb = self.corpus.provs[a], self.corpus.provs[b]
            if pa.kind == "section":
                out[section_of(pa.label)] = section_of(pb.label)
        return out

    def rows(self) -> list[Row]:
        """Label rows (confirmed, plain or flagged) and content rows."""
        out: list[Row] = []
        flagged: set[tuple[str, str]] = set()
        provs = self.corpus.provs
        for a, b in label_pairs(self.corpus, self.doc_a, self.doc_b):
            s = dict(self.score(a, b)) if a in self.fps and b in self.fps else {"score": None}
            content = s.get("score")
            parent_pair = (provs[a].parent, provs[b].parent)
            reason = None
            if (a, b) in self.contradicted:
                reason = {"contradicted_by": self.contradicted[(a, b)]}
            elif parent_pair in flagged and (a, b) not in self.confirmed:
                reason = {"parent_flagged": f"{parent_pair[0]}={parent_pair[1]}"}
            elif (
                provs[a].kind not in ("law", "definition")
                and content is not None
                and content < CONTRADICT
                and s["weight"] >= MIN_WEIGHT
            ):
                reason = {"content_disagrees": True}
            if reason:
                flagged.add((a, b))
                s.update(reason)
                out.append(Row(a, b, "label", content or 0.0, 1, s))
                continue
            method = "label+content" if (a, b) in self.confirmed else "label"
            score = 0.5 if content is None else 0.5 + 0.5 * content
            if not provs[a].has_text or not provs[b].has_text:
                s["no_text"] = [x for x in (a, b) if not provs[x].has_text]
            out.append(Row(a, b, method, round(score, 4), 0, s))
        for (a, b), s in self.content.items():
            out.append(Row(a, b, "content", s["score"], 0, dict(s)))
        return out


def align_pair(
    corpus: Corpus,
    fps: dict[str, Fingerprint],
    doc_a: str,
    doc_b: str,
    idf: dict[str, float],
    done: dict[tuple[str, str], dict[str, str]] | None = None,
) -> list[Row]:
    """All label and content rows of one document pair.

    A first pass finds renumbered sections; a second pass re-scores with the cited
    targets of ``doc_a`` mapped through those sections, so a citation of the old
    section counts as a citation of its new number.

    Args:
        done: best counterpart maps ``{(doc_x, doc_y): {node in x: node in y}}`` of the
            pairs aligned before; a third document aligned to both gives a bridge signal.
    """
    done = done or {}
    bridges = [
        (c, done[(doc_a, c)], done[(c, doc_b)])
        for c in corpus.law_docs()
        if c not in (doc_a, doc_b) and (doc_a, c) in done and (c, doc_b) in done
    ]
    first = PairAligner(corpus, fps, doc_a, doc_b, idf, bridges=bridges)
    first.run()
    remap = first.section_remap()
    if not remap:
        return first.rows()
    second = PairAligner(corpus, fps, doc_a, doc_b, idf, remap=remap, bridges=bridges)
    second.run()
    return second.rows()


def best_map(rows: list[Row]) -> tuple[dict[str, str], dict[str, str]]:
    """Each node's best non-flagged counterpart, in both directions."""
    rank = {"content": 2, "label+content": 1, "label": 0}
    best: dict[str, tuple] = {}
    for r in rows:
        if r.flagged:
            continue
        for x, y in ((r.a, r.b), (r.b, r.a)):
            key = (rank[r.method], r.score)
            if x not in best or key > best[x][0]:
                best[x] = (key, y)
    a_docs = {r.a.split("/", 1)[0] for r in rows}
    forward = {x: y for x, (_, y) in best.items() if x.split("/", 1)[0] in a_docs}
    backward = {x: y for x, (_, y) in best.items() if x.split("/", 1)[0] not in a_docs}
    return forward, backward


def pair_order(corpus: Corpus) -> list[tuple[str, str]]:
    """Document pairs in the order to align them: same language or same edition first
    (the strongest evidence), then the pair with the most bridges already available
    (ties: the pair with the most provisions on its smaller side)."""
    langs = {d: corpus.docs[d].language for d in corpus.docs}
    first = [(a, b) for a, b in corpus.doc_pairs()
             if langs[a] == langs[b] or corpus.relation(a, b) == "same-edition"]  # fmt: skip
    first.sort(key=lambda p: langs[p[0]] != langs[p[1]])
    rest = [p for p in corpus.doc_pairs() if p not in first]
    done = {frozenset(p) for p in first}
    order = list(first)
    while rest:

        def bridges(p):
            return sum(
                1 for c in corpus.law_docs()
                if c not in p and {frozenset((p[0], c)), frozenset((c, p[1]))} <= done
            )  # fmt: skip

        def size(p):
            return min(sum(1 for x in corpus.by_label[d]) for d in p)

        nxt = max(rest, key=lambda p: (bridges(p), size(p)))
        rest.remove(nxt)
        done.add(frozenset(nxt))
        order.append(nxt)
    return order
