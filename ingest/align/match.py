"""Deciding equivalents: identity as the prior, content to overrule it, none when unsure.

For one pair of documents, provisions of the earlier document are matched top down
(laws, then sections, subsections, items), so a sub-provision is judged knowing
where its parent went. Each provision's candidates are its label twin, the
provisions most similar to it anywhere in the other book (so a provision that moved
to another law is found), and those are scored by the calibrated model
(:mod:`.calibration`): the score is the probability that the pair is equivalent.

* The label twin is kept (``same``) unless another candidate beats it by
  :data:`calibration.MARGIN`; a twin whose text is nearly identical
  (:data:`calibration.IDENTICAL`) is never overruled.
* Another candidate that wins is ``renumbered`` (same law) or ``moved`` (another law);
  each provision of the other book is the equivalent of at most one provision.
* A winner below :data:`calibration.SHOW` is not shown: the provision has no reliable
  equivalent there, and the row kept for it is ``flagged`` with relation ``none``
  (its ``b`` is the closest candidate, for the evidence).
* A same-label twin that loses is flagged ``not-equivalent``; a twin between
  :data:`calibration.PARTIAL` and :data:`calibration.SHOW` whose law was rewritten is
  ``partial``: related, shown as such, never as an equivalent.
* A provision without a one-to-one equivalent whose content is spread over several
  provisions of the other book is ``split`` (seen from the other side: ``merged``).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import calibration
from .evidence import law_of
from .label import Corpus
from .score import PairSpace, features

CANDIDATES = 6
"""Most similar provisions of the other book considered per provision."""
LEVELS = ("law", "section", "subsection", "item", "subitem")


@dataclass
class Row:
    """One alignment row before it is written."""

    a: str
    b: str
    method: str
    score: float
    flagged: int
    evidence: dict
    relation: str = "same"


@dataclass
class Decision:
    """The outcome for one provision of ``doc_a``."""

    a: str
    b: str | None
    relation: str
    p: float
    feats: dict
    twin: str | None = None
    twin_p: float | None = None
    closest: str | None = None
    closest_p: float | None = None


def _ancestors(corpus: Corpus, nid: str) -> list[str]:
    out = []
    p = corpus.provs[nid].parent
    while p in corpus.provs:
        out.append(p)
        p = corpus.provs[p].parent
    return out


def _related(corpus: Corpus, x: str, y: str) -> bool:
    """Whether one of two provisions of the same document contains the other."""
    return x == y or x in _ancestors(corpus, y) or y in _ancestors(corpus, x)


class PairMatcher:
    """Matches the provisions of ``space.a.doc`` to those of ``space.b.doc``."""

    def __init__(self, corpus: Corpus, space: PairSpace):
        self.corpus = corpus
        self.space = space
        self.doc_a, self.doc_b = space.a.doc, space.b.doc
        self.match: dict[str, str] = {}
        self.taken: dict[str, str] = {}
        self.decisions: dict[str, Decision] = {}
        self.cache: dict[tuple[str, str], tuple[float, dict]] = {}

    def _parent_match(self, a: str, b: str) -> bool | None:
        parent = self.corpus.provs[a].parent
        if parent not in self.corpus.provs:
            return None
        counterpart = self.match.get(parent)
        if counterpart is None:
            return None
        return counterpart in _ancestors(self.corpus, b)

    def prob(self, a: str, b: str) -> tuple[float, dict]:
        """Calibrated probability that ``a`` and ``b`` are equivalent, and the signals."""
        key = (a, b)
        if key not in self.cache:
            f = features(self.space, self.corpus, a, b, self._parent_match(a, b))
            f["margin"] = self._margin(a, b, f["lex"])
            self.cache[key] = (calibration.probability(f), f)
        return self.cache[key]

    def _margin(self, a: str, b: str, lex: float) -> float:
        """How much better ``b`` fits ``a`` than the best rival of ``b`` that is neither
        ``b``'s ancestor nor its descendant (siblings and the rest of the book), and
        than the best rival of ``a`` on the other side."""
        best = 0.0
        for other in self.space.top(a, CANDIDATES):
            if not _related(self.corpus, other, b):
                best = max(best, sum(self.space.lexical(a, other)) / 2)
        for other in self.space.top_rev(b, CANDIDATES):
            if not _related(self.corpus, other, a):
                best = max(best, sum(self.space.lexical(other, b)) / 2)
        return lex - best

    def candidates(self, a: str) -> list[str]:
        """The label twin first, then the most similar provisions of the other book."""
        out = []
        twin = self.corpus.by_label[self.doc_b].get(self.corpus.provs[a].label)
        if twin is not None and twin in self.space.b.index:
            out.append(twin)
        parent = self.corpus.provs[a].parent
        if parent in self.match:
            for c in self.corpus.provs[self.match[parent]].children:
                if c not in out and c in self.space.b.index:
                    out.append(c)
        for b in self.space.top(a, CANDIDATES):
            if b not in out:
                out.append(b)
        return out

    def run(self) -> dict[str, Decision]:
        """Decide every provision with text, laws first."""
        provs = [self.corpus.provs[nid] for nid in self.space.a.ids]
        for level in LEVELS:
            pending = [p.id for p in provs if p.kind == level]
            self._decide_level(pending)
        return self.decisions

    def _decide_level(self, pending: list[str]) -> None:
        wishes: dict[str, list[tuple[float, str, dict]]] = {}
        for a in pending:
            scored = sorted(((*self.prob(a, b), b) for b in self.candidates(a)),
                            key=lambda x: -x[0])  # fmt: skip
            wishes[a] = [(p, b, f) for p, f, b in scored]
        # identity first: a twin that is clearly the best keeps its label partner
        order = sorted(pending, key=lambda a: -self._choice(a, wishes[a])[0])
        for a in order:
            self._settle(a, wishes[a])

    def _choice(self, a: str, wishes: list[tuple[float, str, dict]]) -> tuple[float, str | None]:
        """The best free candidate, the label twin first unless another beats it by
        :data:`calibration.MARGIN` (a nearly identical twin is never beaten)."""
        twin = self.corpus.by_label[self.doc_b].get(self.corpus.provs[a].label)
        free = [(p, b, f) for p, b, f in wishes if b not in self.taken]
        if not free:
            return 0.0, None
        mine = next(((p, f) for p, b, f in free if b == twin), None)
        if mine is None:
            return free[0][0], free[0][1]
        if mine[1]["lex_min"] >= calibration.IDENTICAL:
            return mine[0], twin
        other = next(((p, b) for p, b, _ in free if b != twin), None)
        if other is not None and other[0] >= mine[0] + calibration.MARGIN:
            return other
        return mine[0], twin

    def _settle(self, a: str, wishes: list[tuple[float, str, dict]]) -> None:
        twin = self.corpus.by_label[self.doc_b].get(self.corpus.provs[a].label)
        twin_p = next((p for p, b, _ in wishes if b == twin), None)
        p, b = self._choice(a, wishes)
        feats = next((f for q, c, f in wishes if c == b), {})
        closest = next(((q, c) for q, c, _ in wishes if c not in self.taken), (None, None))
        d = Decision(a, None, "none", p, feats, twin, twin_p, closest[1], closest[0])
        if b is not None and p >= calibration.SHOW:
            same_law = law_of(self.corpus.provs[a].label) == law_of(self.corpus.provs[b].label)
            if b == twin:
                d.relation = "same"
            else:
                d.relation = "renumbered" if same_law else "moved"
            d.b = b
            self.match[a] = b
            self.taken[b] = a
        elif b is not None and b == twin and p >= calibration.PARTIAL:
            d.b = b
            d.relation = "partial"
        self.decisions[a] = d


def split_rows(corpus: Corpus, matcher: PairMatcher) -> list[tuple[str, list[str]]]:
    """Provisions left without an equivalent whose content is spread over several
    provisions of the other book that are themselves left over (or only partly
    matched): ``(a, [b1, b2, ...])`` in document order."""
    out = []
    space = matcher.space
    for a, d in matcher.decisions.items():
        if d.relation not in ("none", "partial"):
            continue
        parts = []
        for b in space.top(a, CANDIDATES):
            if b in matcher.taken or any(_related(corpus, b, x) for x in parts):
                continue
            ab, ba = space.lexical(a, b)
            if ba >= calibration.SPLIT_PART and space.length_z(a, b) > 1.0:
                parts.append(b)
        if len(parts) >= 2:
            out.append((a, parts))
    return out
