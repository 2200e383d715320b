"""Deciding equivalents: structure and wording together, none when unsure.

For one pair of documents the provisions are matched top down. The laws of both
books, then the children of every matched pair, are lined up twice on their lexical
similarity (:mod:`.score`, with a small bonus for the same label and a penalty for an
unusual length ratio): once by a monotone sequence alignment (Needleman-Wunsch: order
is kept, a provision may be left without a partner, so an inserted or deleted
provision shifts its neighbours' numbers without dragging them along) and once by an
assignment (:func:`scipy.sparse.csgraph.min_weight_full_bipartite_matching`, which allows two
provisions to swap places, as 2017 swapped 16C and 16D). A pair both agree on is
taken; where they differ, the swap is taken only if it is clearly better.

Provisions left without a partner are then looked up in the whole other book, so a
provision that moved to another law is found (2007 Law 23 is 2017 72C): the pair must
be each other's best match and clear the next best by a margin.

Every pair then gets a calibrated probability (:mod:`.calibration`) from its signals
(lexical similarity both ways, margins over the rivals in its row and column, whether
the structure and the sequence agree, the label, the length ratio). Pairs below
:data:`calibration.SHOW` are not shown: "no reliable equivalent". A label twin that is
not the equivalent is flagged ``not-equivalent``; one that still shares some wording
(rewritten, or another rule under the old label) is ``partial``. The relation of a shown
pair is ``same`` (same label), ``renumbered`` (same law) or ``moved`` (another law).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import min_weight_full_bipartite_matching

from . import calibration
from .evidence import law_of
from .label import Corpus
from .score import PairSpace, features

CANDIDATES = 8
"""Most similar provisions of the other book considered per provision."""
OPEN_FIT = 0.1
"""A candidate that fits less than this (similarity after label bonus and length penalty)
is not scored for :meth:`PairMatcher.open_candidates`: none of the bundled books' reaches
the probability a confirmation through a third book needs (the lowest that does fits 0.19),
and leaving them out spares a third of the scoring."""
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


def _related(corpus: Corpus, x: str, y: str) -> bool:
    """Whether one of two provisions of the same document contains the other."""
    return x == y or x in corpus.above(y) or y in corpus.above(x)


def monotone_pairs(score: np.ndarray) -> list[tuple[int, int]]:
    """Needleman-Wunsch: the order-keeping pairs that maximise the summed ``score``
    (only positive scores are worth a pair; a gap costs nothing).

    A row of the table at a time: the best sum up to ``(i, j)`` is the larger of taking
    the pair (the row above, one column back, plus its score) and leaving ``a[i]`` out
    (the row above), carried along the row by a running maximum (leaving ``b[j]`` out).
    The way back takes, at each cell, the first of pair, skip ``a``, skip ``b`` that
    gives the cell's sum."""
    m, n = score.shape
    best = np.zeros((m + 1, n + 1))
    for i in range(1, m + 1):
        above = best[i - 1]
        best[i, 1:] = np.maximum.accumulate(np.maximum(above[:-1] + score[i - 1], above[1:]))
    table, scores = best.tolist(), score.tolist()
    out = []
    i, j = m, n
    while i > 0 and j > 0:
        here = table[i][j]
        if table[i - 1][j - 1] + scores[i - 1][j - 1] == here:
            if scores[i - 1][j - 1] > 0:
                out.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif table[i - 1][j] == here:
            i -= 1
        else:
            j -= 1
    return out[::-1]


def _islands(chosen: dict[int, tuple[int, str]], m: int, n: int) -> list[tuple[int, int]]:
    """Single provisions left between two matched neighbours on both sides (a 1-1 bead
    between anchors, as in sentence alignment): ``(i, j)`` pairs."""
    anchors = sorted((i, j) for i, (j, _) in chosen.items())
    if any(b[1] <= a[1] for a, b in zip(anchors, anchors[1:], strict=False)):
        return []  # crossings: no order to read gaps from
    out = []
    for (i1, j1), (i2, j2) in zip([(-1, -1), *anchors], [*anchors, (m, n)], strict=True):
        if i2 - i1 == 2 and j2 - j1 == 2:
            out.append((i1 + 1, j1 + 1))
    return out


def assigned_pairs(score: np.ndarray) -> list[tuple[int, int]]:
    """The assignment with the largest summed ``score`` (crossings allowed): every row or
    every column (whichever are fewer) gets a partner, and only positive pairs are kept.
    The costs are shifted to be positive, as the sparse solver reads a zero as no edge
    (:mod:`scipy.sparse.csgraph` instead of :mod:`scipy.optimize`, whose import costs a
    cold ingest a sixth of a second)."""
    if not score.size:
        return []
    cost = score.max() - score + 1.0
    rows, cols = min_weight_full_bipartite_matching(sparse.csr_matrix(cost))
    return [(int(i), int(j)) for i, j in zip(rows, cols, strict=True) if score[i, j] > 0]


class PairMatcher:
    """Matches the provisions of ``space.a.doc`` to those of ``space.b.doc``."""

    def __init__(
        self, corpus: Corpus, space: PairSpace, bridges: dict[str, set[str]] | None = None
    ):
        """``bridges``: for provisions of ``doc_a``, where their counterparts in third
        books are matched to in ``doc_b`` (a first pass over every pair of books)."""
        self.corpus = corpus
        self.space = space
        self.doc_a, self.doc_b = space.a.doc, space.b.doc
        self.bridges = bridges
        self._scale: tuple[float, float] | None = None
        self.lex = self._normalised((space.ab + space.ba) / 2)
        self.fits = self._fit_matrix()
        self.match: dict[str, str] = {}
        self.taken: dict[str, str] = {}
        self.how: dict[str, str] = {}
        """How each match was found: ``both`` (sequence and assignment agree),
        ``sequence``, ``swap``, ``island``, ``search``, ``refined``, ``leaves`` or
        ``pointer``."""
        self.decisions: dict[str, Decision] = {}
        self.pointers: dict[str, tuple[str, str]] = {}
        """Pairs found by following a pointer (:meth:`_follow_pointers`): for the provision
        of ``doc_a``, the pointer and the provision it cites."""
        self.leaf_seq: dict[str, str] = {}
        """Within every pair of matched laws, the order-keeping pairing of their
        undivided provisions (:meth:`_leaf_sequences`)."""
        self.cache: dict[tuple[str, str], tuple[float, dict]] = {}
        self._rival_lists: dict[tuple[bool, str], list[tuple[float, str]]] = {}
        self.same_edition = corpus.relation(self.doc_a, self.doc_b) == "same-edition"
        """Two translations of one edition: the label is the identity far more often."""

    # -- similarity ------------------------------------------------------------------

    def _normalised(self, lex: np.ndarray) -> np.ndarray:
        """Similarity on one scale for every pair of books: two books in one language
        share words outright and score higher than a translation does, so the median of
        all pairs is mapped to :data:`calibration.SCALE_ANY` and the median of the
        label twins (mostly true pairs) to :data:`calibration.SCALE_TWIN`."""
        sa, sb = self.space.a, self.space.b
        labels = {self.corpus.provs[b].label: j for j, b in enumerate(sb.ids)}
        twins = [
            lex[i, labels[self.corpus.provs[a].label]]
            for i, a in enumerate(sa.ids)
            if self.corpus.provs[a].label in labels
        ]
        if len(twins) < 10 or lex.size == 0:
            return lex
        low, high = float(np.median(lex)), float(np.median(twins))
        if high - low < 0.05:
            return lex
        scale = (calibration.SCALE_TWIN - calibration.SCALE_ANY) / (high - low)
        self._scale = (low, scale)
        return np.clip(calibration.SCALE_ANY + (lex - low) * scale, 0.0, 1.0)

    def normalise(self, value: float) -> float:
        """A similarity computed outside the matrices, put on the same scale."""
        if self._scale is None:
            return value
        low, scale = self._scale
        return float(min(1.0, max(0.0, calibration.SCALE_ANY + (value - low) * scale)))

    def lexical(self, a: str, b: str) -> float:
        i, j = self.space.a.index.get(a), self.space.b.index.get(b)
        return 0.0 if i is None or j is None else float(self.lex[i, j])

    def _fit_matrix(self) -> np.ndarray:
        """:meth:`fit` of every pair at once."""
        sa, sb, space = self.space.a, self.space.b, self.space
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.log(sb.lengths[None, :] / sa.lengths[:, None])
        z = np.abs(ratio - space.log_ratio) / max(space.log_spread, 0.05)
        z = np.where(np.isfinite(z), np.minimum(z, 6.0), 6.0) / 6.0
        fits = self.lex - calibration.LENGTH_PENALTY * z
        for a, targets in (self.bridges or {}).items():
            i = sa.index.get(a)
            for b in targets:
                j = sb.index.get(b)
                if i is not None and j is not None:
                    fits[i, j] += calibration.BRIDGE
        labels_b = {self.corpus.provs[b].label: j for j, b in enumerate(sb.ids)}
        for i, a in enumerate(sa.ids):
            j = labels_b.get(self.corpus.provs[a].label)
            if j is not None:
                fits[i, j] += calibration.IDENTITY
        if calibration.CITED:
            fits += calibration.CITED * self._cited_agreement()
        return fits

    def _cited_agreement(self) -> np.ndarray:
        """Dice agreement of the other laws two provisions cite (0 where either cites
        none): a reference survives translation and rewording alike (1997 81C6 and 2007
        81C3 both point to Law 79, whatever their words)."""
        sa, sb = self.space.a, self.space.b
        laws: dict[str, int] = {}

        def entries(ids: list[str]) -> tuple[list[int], list[int]]:
            rows, cols = [], []
            for i, nid in enumerate(ids):
                fp = self.space.fps.get(nid)
                own = self.corpus.provs[nid].law
                for law in fp.cites_law if fp is not None else ():
                    if law != own:
                        rows.append(i)
                        cols.append(laws.setdefault(law, len(laws)))
            return rows, cols

        ea, eb = entries(sa.ids), entries(sb.ids)
        ma = sparse.csr_matrix((np.ones(len(ea[0])), ea), shape=(len(sa.ids), len(laws)))
        mb = sparse.csr_matrix((np.ones(len(eb[0])), eb), shape=(len(sb.ids), len(laws)))
        shared = (ma @ mb.T).toarray()
        na, nb = np.asarray(ma.sum(axis=1)).ravel(), np.asarray(mb.sum(axis=1)).ravel()
        total = na[:, None] + nb[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total > 0, 2 * shared / total, 0.0)

    def fit(self, a: str, b: str) -> float:
        """Lexical similarity with the label bonus and the length penalty."""
        i, j = self.space.a.index.get(a), self.space.b.index.get(b)
        return 0.0 if i is None or j is None else self.fits.item(i, j)

    # -- structure -------------------------------------------------------------------

    def _kids(self, nid: str | None, doc: str) -> list[str]:
        if nid is None:
            index = self.space.a.index if doc == self.doc_a else self.space.b.index
            return [x for x in index if self.corpus.provs[x].kind == "law"]
        index = self.space.a.index if doc == self.doc_a else self.space.b.index
        return [c for c in self.corpus.provs[nid].children if c in index]

    def _line_up(self, pa: str | None, pb: str | None) -> None:
        ca, cb = self._kids(pa, self.doc_a), self._kids(pb, self.doc_b)
        ca = [a for a in ca if a not in self.match]
        cb = [b for b in cb if b not in self.taken]
        if not ca or not cb:
            return
        fit = np.array([[self.fit(a, b) for b in cb] for a in ca]) - calibration.THETA
        seq = set(monotone_pairs(fit))
        asg = set(assigned_pairs(fit))
        chosen = {}
        for i, j in seq:
            chosen[i] = (j, "both" if (i, j) in asg else "sequence")
        for i, j in asg - seq:
            # a crossing pair wins only if it beats what the sequence gave both ends
            rival_i = fit[i, chosen[i][0]] if i in chosen else 0.0
            owner = next((k for k, (jj, _) in chosen.items() if jj == j), None)
            rival_j = fit[owner, j] if owner is not None else 0.0
            if fit[i, j] >= max(rival_i, rival_j) + calibration.SWAP_MARGIN:
                if owner is not None:
                    del chosen[owner]
                chosen[i] = (j, "swap")
        for i, j in _islands(chosen, len(ca), len(cb)):
            if fit[i, j] + calibration.THETA >= calibration.ISLAND:
                chosen[i] = (j, "island")
        for i, (j, how) in sorted(chosen.items()):
            a, b = ca[i], cb[j]
            if a in self.match or b in self.taken:
                continue
            self._take(a, b, how)
        for i, (j, _) in sorted(chosen.items()):
            a, b = ca[i], cb[j]
            if self.match.get(a) == b:
                self._line_up(a, b)

    def _take(self, a: str, b: str, how: str) -> None:
        self.match[a] = b
        self.taken[b] = a
        self.how[a] = how

    def _search(self, a: str) -> None:
        """Look for a partner of an unmatched provision in the whole other book.

        Not when the other book gives only the title of the provision's law (fi-2007
        beyond Law 18): its counterpart is most likely in the text that is missing."""
        law = self.corpus.by_label[self.doc_b].get(self.corpus.provs[a].law)
        if law is not None and not self.corpus.provs[law].has_text:
            return
        best = [b for b in self.space.top(a, CANDIDATES) if self._free_for(a, b)]
        if not best:
            return
        b = best[0]
        back = [
            x
            for x in self.space.top_rev(b, CANDIDATES)
            if x not in self.match or self.match[x] == b
        ]
        if not back or back[0] != a:
            return
        rival = max(
            (self.fit(a, x) for x in best[1:] if not _related(self.corpus, x, b)), default=0.0
        )
        if self.fit(a, b) - rival < calibration.SEARCH_MARGIN:
            return
        if self.fit(a, b) < calibration.THETA:
            return
        holder = self.taken.get(b)
        if holder is not None:  # a weak structural pair gives way (2017 Law 23 to 72C)
            self._release(holder)
        self._take(a, b, "search")
        self._line_up(a, b)

    def _release_outfitted(self) -> None:
        """Undo a line-up pair when a provision elsewhere in the other book fits ``a``
        far better and ``a`` fits it best of all its own book: the structure paired
        what sat in the same place, but the rule moved (1997 27C, on a claim that a
        revoke took place, is 2017 27A2, while 2017 27C now says something else). The
        whole-book search then decides, with its own tests."""
        for a, b in list(self.match.items()):
            if self.match.get(a) != b or self.how.get(a) == "search":
                continue
            best = next(
                (x for x in self.space.top(a, CANDIDATES) if not _related(self.corpus, x, b)), None
            )
            if best is None:
                continue
            if self.fit(a, best) < self.fit(a, b) + calibration.OUTFIT:
                continue
            back = self.space.top_rev(best, 1)
            if back and back[0] == a:
                self._release(a)

    def _free_for(self, a: str, b: str) -> bool:
        """Whether ``b`` is free, or held by a pair that fits clearly worse than ``a``."""
        holder = self.taken.get(b)
        if holder is None:
            return True
        if _related(self.corpus, holder, a):
            return False  # a sub-provision does not take its parent's partner
        margin = calibration.SEARCH_MARGIN
        if self._twin_in_place(holder, b):
            margin = calibration.TWIN_HOLD
        return self.fit(holder, b) + margin <= self.fit(a, b)

    def _twin_in_place(self, x: str, b: str) -> bool:
        """Whether ``x`` (of ``doc_a``) and ``b`` carry the same label and the counterpart of
        ``x``'s parent holds ``b`` (:meth:`_parent_match`; a law has no parent): the
        structure and the label agree on the pair."""
        px = self.corpus.provs[x]
        if px.label != self.corpus.provs[b].label:
            return False
        return px.parent not in self.corpus.provs or self._parent_match(x, b) is True

    def _release(self, a: str) -> None:
        """Undo the match of ``a`` and of everything matched below it."""
        for d in self.corpus.descendants(a):
            b = self.match.pop(d, None)
            if b is not None:
                self.taken.pop(b, None)
                self.how.pop(d, None)
                self.pointers.pop(d, None)

    def _refine(self) -> None:
        """The most specific counterpart: a provision without sub-provisions matched to
        one with them takes the sub-provision that says the same (1997 12B, one
        paragraph, is 2007 12B2, not all of 12B), and the reverse."""
        for a, b in list(self.match.items()):
            if "law" in (self.corpus.provs[a].kind, self.corpus.provs[b].kind):
                continue  # a law stays matched to a law: the book did not divide it
            ka, kb = self._kids(a, self.doc_a), self._kids(b, self.doc_b)
            if not ka and kb:
                best = max(((self.fit(a, c), c) for c in kb if c not in self.taken), default=None)
                if best and best[0] >= self.fit(a, b) - calibration.SPECIFIC:
                    del self.taken[b]
                    self._take(a, best[1], self.how[a])
            elif ka and not kb:
                best = max(((self.fit(c, b), c) for c in ka if c not in self.match), default=None)
                if best and best[0] >= self.fit(a, b) - calibration.SPECIFIC:
                    del self.match[a]
                    self.how.pop(a, None)
                    self._take(best[1], b, "refined")

    def _leaves(self, law: str, doc: str) -> list[str]:
        index = self.space.a.index if doc == self.doc_a else self.space.b.index
        return [
            d
            for d in self.corpus.descendants(law)[1:]
            if d in index and not any(c in index for c in self.corpus.provs[d].children)
        ]

    def _leaf_sequences(self) -> None:
        """Line up the undivided provisions of two matched laws in order, whatever
        their depth: a section list of one edition that became the item list of one
        section in another (1997 80A-F are 2017 80B2(a)-(f)) keeps its order, and order
        tells apart short items whose wording alone is ambiguous. An undivided
        provision left without a partner takes its partner in that line-up when the
        partner is free, and so does one that only a whole-book search by wording
        paired when the partner in order fits nearly as well."""
        for a, b in list(self.match.items()):
            if self.corpus.provs[a].kind != "law" or self.corpus.provs[b].kind != "law":
                continue
            la, lb = self._leaves(a, self.doc_a), self._leaves(b, self.doc_b)
            if not la or not lb:
                continue
            ia = [self.space.a.index[x] for x in la]
            ib = [self.space.b.index[x] for x in lb]
            fit = self.fits[np.ix_(ia, ib)] - calibration.LEAF_THETA
            for i, j in monotone_pairs(fit):
                self.leaf_seq[la[i]] = lb[j]
        for a, b in self.leaf_seq.items():
            if b in self.taken:
                continue
            held = self.match.get(a)
            if held is None:
                self._take(a, b, "leaves")
            elif self.how.get(a) == "search" and (
                self.fit(a, b) + calibration.LEAF_OVER_SEARCH >= self.fit(a, held)
            ):
                # found by wording alone somewhere in the book; the order of its own
                # law says otherwise and the wording is nearly as good
                del self.taken[held]
                self._take(a, b, "leaves")

    def _follow_pointers(self) -> None:
        """A provision whose counterpart only refers elsewhere is paired with what it
        refers to: when a rule moved, the book that moved it often left a short pointer
        in the old place (2007 Law 34, "... tillämpas lag 17E2", holds none of 1997 Law
        34's rule; 2007 Law 35's items each say which of Laws 36-39 applies). The
        counterpart in ``doc_b`` (the matcher's pair or the label twin) is a pointer when
        neither it nor the provision is divided, it is much shorter than the provision
        (:data:`calibration.POINTER_SHORT` of the usual length) and it cites a provision
        of a law the provision neither belongs to nor cites. The provision then takes the
        undivided provision of what is cited (the cited one or one inside it) that a third
        book leads to, or else that its wording fits best, clearly ahead of the rest, when
        that one is free for it, unless its own pair (not the pointer) fits it better. A
        pair whose provision only refers to the one that takes its partner gives way (1997
        54D says that 1997 Law 56 applies, and 2007 54D is the rule of 1997 Law 56); a
        pair the matcher had already found keeps its partner, now with the pointer's
        support. Run after the first pass, so that the bridges through a third book count
        the pointer once, in the pair's own signal."""
        sb = self.space.b
        for a in self.space.a.ids:
            twin = self.corpus.by_label[self.doc_b].get(self.corpus.provs[a].label)
            held = self.match.get(a)
            for c in dict.fromkeys(x for x in (held, twin) if x in sb.index):
                found = self._pointer_target(a, c)
                if found is None:
                    continue
                y, cited = found
                if held != y:
                    if held not in (None, c) and self.fit(a, y) < self.fit(a, held):
                        continue  # its own pair fits better than what the pointer offers
                    holder = self.taken.get(y)
                    if (
                        holder is not None
                        and not self._free_for(a, y)
                        and (_related(self.corpus, holder, a) or not self.refers_to(holder, a))
                    ):
                        continue  # held by a better pair that is no pointer to this one
                    if held is not None:
                        del self.taken[held]
                        del self.match[a]
                    if holder is not None:
                        del self.taken[y]
                        del self.match[holder]
                        self.how.pop(holder, None)
                        self.pointers.pop(holder, None)
                    self._take(a, y, "pointer")
                self.how[a] = "pointer"
                self.pointers[a] = (c, cited)
                break

    def refers_to(self, x: str, y: str) -> bool:
        """Whether provision ``x`` cites ``y`` (or a provision around it)."""
        fp = self.space.fps.get(x)
        return fp is not None and bool(fp.cited_ids & ({y} | self.corpus.above(y)))

    def _divided(self, nid: str) -> bool:
        """Whether a provision has sub-provisions (:meth:`_kids`)."""
        return bool(self._kids(nid, self.corpus.provs[nid].doc))

    def pointing(self, a: str, b: str) -> tuple[str, list[str]] | None:
        """Whether one of two label twins (``a`` of ``doc_a``, ``b`` of ``doc_b``) has the
        shape of a pointer to another law (as :meth:`_follow_pointers` reads it: it is
        undivided, much shorter than the other and cites a law the other neither belongs
        to nor cites): ``(the pointer, what it cites there)``, else None. Such a
        pair may be no rewritten rule at all: the rule may have moved where it points."""
        la, lb = len(self.corpus.subtree_text(a)), len(self.corpus.subtree_text(b))
        usual = math.exp(self.space.log_ratio)
        for x, y, short in ((b, a, lb < calibration.POINTER_SHORT * usual * la),
                            (a, b, la * usual < calibration.POINTER_SHORT * lb)):  # fmt: skip
            fx, fy = self.space.fps.get(x), self.space.fps.get(y)
            if not short or fx is None or fy is None or not self.corpus.provs[x].text:
                continue
            if self._divided(x):
                continue  # a pointer is a sentence or two
            own = fy.cites_law | {law_of(self.corpus.provs[y].label)}
            away = sorted(t for t in fx.cited_ids if law_of(self.corpus.provs[t].label) not in own)
            if away:
                return x, away
        return None

    def _pointer_target(self, a: str, c: str) -> tuple[str, str] | None:
        """What ``c`` (a counterpart of ``a`` in ``doc_b``) points to, when ``c`` is a
        pointer for ``a`` (see :meth:`_follow_pointers`): the undivided provision that
        fits ``a`` best, and the cited provision it lies in."""
        fa, fc = self.space.fps.get(a), self.space.fps.get(c)
        if fa is None or fc is None or not fc.cited_ids or not self.corpus.provs[c].text:
            return None
        if self._divided(a) or self._divided(c):
            return None  # a pointer is a sentence or two, and so is the rule it replaced
        la, lc = len(self.corpus.subtree_text(a)), len(self.corpus.subtree_text(c))
        if lc >= calibration.POINTER_SHORT * math.exp(self.space.log_ratio) * la:
            return None
        own = fa.cites_law | {law_of(self.corpus.provs[a].label)}
        options = {
            d: t
            for t in sorted(fc.cited_ids)
            if law_of(self.corpus.provs[t].label) not in own
            for d in self.corpus.descendants(t)
            if d in self.space.b.index and not self._divided(d) and not _related(self.corpus, d, c)
        }
        if not options:
            return None
        reached = sorted((self.bridges or {}).get(a, set()) & options.keys())
        if len(reached) == 1:  # a third book leads to one of them: that one
            best = reached[0]
            return (best, options[best]) if self.fit(a, best) >= calibration.POINTER_FIT else None
        best = max(options, key=lambda d: (self.fit(a, d), d))
        rival = max(
            (self.fit(a, d) for d in options if not _related(self.corpus, d, best)), default=0.0
        )
        fit = self.fit(a, best)
        if fit < calibration.POINTER_FIT or fit - rival < calibration.SEARCH_MARGIN:
            return None  # what is cited holds several rules, and the wording does not choose
        return best, options[best]

    # -- probability -----------------------------------------------------------------

    def _margins(self, a: str, b: str) -> tuple[float, float]:
        """How far the pair's fit is above the best rival of each side among its
        :data:`CANDIDATES` (one that contains the other side, or lies in it, is no rival)."""
        mine = self.fit(a, b)
        row = next((f for f, x in self._rivals(a, False) if not _related(self.corpus, x, b)), 0.0)
        col = next((f for f, x in self._rivals(b, True) if not _related(self.corpus, x, a)), 0.0)
        return mine - row, mine - col

    def _rivals(self, node: str, reverse: bool) -> list[tuple[float, str]]:
        """The candidates of ``node`` (of ``doc_b`` if ``reverse``) with their fits, the
        best fit first: the first that is no rival's relative gives the best rival."""
        key = (reverse, node)
        got = self._rival_lists.get(key)
        if got is None:
            if reverse:
                got = [(self.fit(x, node), x) for x in self.space.top_rev(node, CANDIDATES)]
            else:
                got = [(self.fit(node, x), x) for x in self.space.top(node, CANDIDATES)]
            got.sort(key=lambda fx: -fx[0])
            self._rival_lists[key] = got
        return got

    def _parent_match(self, a: str, b: str) -> bool | None:
        parent = self.corpus.provs[a].parent
        if parent not in self.corpus.provs:
            return None
        counterpart = self.match.get(parent)
        if counterpart is None:
            return None
        return counterpart in self.corpus.above(b)

    def prob(self, a: str, b: str) -> tuple[float, dict]:
        """Calibrated probability that ``a`` and ``b`` are equivalent, and the signals."""
        key = (a, b)
        if key not in self.cache:
            f = features(self.space, self.corpus, a, b, self._parent_match(a, b))
            f["margin_row"], f["margin_col"] = self._margins(a, b)
            how = self.how.get(a) if self.match.get(a) == b else None
            f["sequence"] = float(how in ("both", "sequence"))
            f["agree"] = float(how == "both")
            f["search"] = float(how == "search")
            f["swap"] = float(how == "swap")
            f["island"] = float(how == "island")
            f["pointer"] = float(how == "pointer")
            seq = self.leaf_seq.get(a)
            if seq is None or (seq == b and self.match.get(a) != b):
                f["leaf_seq"] = 0.5  # no opinion; or order alone, which the matcher overruled
            else:
                f["leaf_seq"] = float(seq == b)
            f["bridge"] = self._bridged(a, b)
            # order and a third book's path agree on the matcher's pair, whichever step
            # found it; a level change under one label only when the order itself took it
            f["order_bridged"] = float(
                f["leaf_seq"] == 1.0
                and f["bridge"] == 1.0
                and not f["same_label"]
                and (how == "leaves" or not self._twin_kin(a, b))
            )
            f["edition_twin"] = f["same_label"] * float(self.same_edition)
            self.cache[key] = (calibration.probability(f), f)
        return self.cache[key]

    def _twin_kin(self, a: str, b: str) -> bool:
        """Whether ``b`` is ``a``'s label twin or lies in it or around it, or ``a`` in or
        around ``b``'s (1997 25A and 2017 25A1): the order of the two laws then mostly
        repeats the label, and such a level change under one label was rewritten as often
        as not on the dev set."""
        twin_b = self.corpus.by_label[self.doc_b].get(self.corpus.provs[a].label)
        twin_a = self.corpus.by_label[self.doc_a].get(self.corpus.provs[b].label)
        return (twin_b is not None and _related(self.corpus, twin_b, b)) or (
            twin_a is not None and _related(self.corpus, twin_a, a)
        )

    def _bridged(self, a: str, b: str) -> float:
        """What the third books say of ``b`` for ``a``: 1 when one leads there, 0 when they
        lead elsewhere, 0.5 when none leads anywhere, and 0.5 too for the matcher's own
        pair when one leads to a provision containing ``b``: the third book did not
        divide the provision (1997 73C is 2017 73C1; the path through sv-2007 73C reaches
        the whole 2017 73C). Only for the matcher's own pair: a part the matcher did not
        choose is not vouched for by a path to its whole."""
        reached = (self.bridges or {}).get(a)
        if not reached:
            return 0.5
        if b in reached:
            return 1.0
        if self.match.get(a) == b and reached & self.corpus.above(b):
            return 0.5
        return 0.0

    def candidates(self, a: str) -> list[str]:
        """The label twin, the match, and the most similar provisions of the other book."""
        out = []
        twin = self.corpus.by_label[self.doc_b].get(self.corpus.provs[a].label)
        for x in (self.match.get(a), twin, *self.space.top(a, 2)):
            if x is not None and x in self.space.b.index and x not in out:
                out.append(x)
        return out

    # -- run -------------------------------------------------------------------------

    def run(self) -> dict[str, Decision]:
        """Match top down, search the rest, follow the pointers, then decide every
        provision with text."""
        self.line_up()
        self._follow_pointers()
        return self.decide()

    def line_up(self) -> dict[str, str]:
        """The structural matching alone: ``{provision of doc_a: provision of doc_b}``."""
        self._line_up(None, None)
        self._release_outfitted()
        for level in LEVELS:
            for a in self.space.a.ids:
                if self.corpus.provs[a].kind == level and a not in self.match:
                    self._search(a)
        self._refine()
        self._leaf_sequences()
        return self.match

    def decide(self) -> dict[str, Decision]:
        """Score and decide every provision with text (after :meth:`line_up`)."""
        self.space.prime_cover((a, b) for a in self.space.a.ids for b in self.candidates(a))
        for a in self.space.a.ids:
            for b in self.candidates(a):
                self.prob(a, b)
            self._decide(a)
        return self.decisions

    def _decide(self, a: str) -> None:
        twin = self.corpus.by_label[self.doc_b].get(self.corpus.provs[a].label)
        twin = twin if twin in self.space.b.index else None
        twin_p = self.prob(a, twin)[0] if twin else None
        b = self.match.get(a)
        cands = sorted(((self.prob(a, x)[0], x) for x in self.candidates(a)), reverse=True)
        closest = cands[0] if cands else (None, None)
        d = Decision(a, None, "none", 0.0, {}, twin, twin_p, closest[1], closest[0])
        if b is not None:
            p, f = self.prob(a, b)
            d.p, d.feats = p, f
            if p >= show_threshold(self.corpus, a, b, self.same_edition):
                d.b = b
                if b == twin:
                    d.relation = "same"
                else:
                    same_law = law_of(self.corpus.provs[a].label) == law_of(
                        self.corpus.provs[b].label
                    )
                    d.relation = "renumbered" if same_law else "moved"
        if d.b is None:
            self._rescue(a, d, cands)
        if d.b is None and twin is not None and self.same_edition:
            self._edition_twin(a, twin, d)
        if (
            d.b is None
            and twin is not None
            and twin not in self.taken
            or (d.b is None and twin is not None and self.taken.get(twin) == a)
        ):
            p, f = self.prob(a, twin)
            if f["lex"] >= calibration.PARTIAL_LEX:
                d.b, d.relation, d.p, d.feats = twin, "partial", p, f
        self.decisions[a] = d

    def open_candidates(self) -> dict[str, dict[str, float]]:
        """For every provision of ``doc_a`` without a shown equivalent (after
        :meth:`decide`), the probability of each of its candidates: the structural
        choice, the label twin and the most similar provisions of the other book."""
        todo = {}
        for a, d in self.decisions.items():
            if d.b is not None and d.relation != "partial":
                continue
            near = [x for x in self.space.top(a, CANDIDATES) if self.fit(a, x) >= OPEN_FIT]
            todo[a] = list(dict.fromkeys([*self.candidates(a), *near]))
        self.space.prime_cover((a, x) for a, xs in todo.items() for x in xs)
        return {a: {x: self.prob(a, x)[0] for x in xs} for a, xs in todo.items()}

    def _edition_twin(self, a: str, twin: str, d: Decision) -> None:
        """Two translations of one edition: the label twin is the equivalent unless
        something contradicts it, even when the lexicon has little to say (a short
        sentence, "Tarjoussarja ja tarjousvaihe päättyvät kuten 22 määrää" / "Budgivningen
        och budgivningsperioden avslutas enligt bestämmelserna i lag 22"). Contradictions:
        another provision holds the twin, the length ratio is unusual (a re-lettered item:
        fi-2007 12C1(e) with its sub-items against sv-2007's one-line 12C1(e)), the parents
        are not each other's counterparts, or a law is cited on one side only."""
        holder = self.taken.get(twin)
        if holder not in (None, a):
            return
        p, f = self.prob(a, twin)
        if f["length"] > calibration.EDITION_TWIN_LENGTH or f["anchors"] < 0.5:
            return
        parent, parent_b = self.corpus.provs[a].parent, self.corpus.provs[twin].parent
        if parent in self.corpus.provs and self.match.get(parent) != parent_b:
            return
        d.b, d.relation, d.p = twin, "same", max(p, calibration.EDITION_TWIN_P)
        d.feats = {**f, "edition_rule": 1.0}

    def _rescue(self, a: str, d: Decision, cands: list[tuple[float, str]]) -> None:
        """When the structural choice is not shown, a candidate from the whole book that
        the model itself finds reliable is (2007 27C's content is 2017 27A2 while the
        label twin 27C now says something else) and that no other provision holds: never
        two equivalents for one provision."""
        twin = self.corpus.by_label[self.doc_b].get(self.corpus.provs[a].label)
        for p, b in cands:
            if p < calibration.RESCUE:
                return
            if b == self.match.get(a) or self.taken.get(b) not in (None, a):
                continue  # never two equivalents for one provision
            if p < show_threshold(self.corpus, a, b, self.same_edition):
                continue
            d.b, d.p, d.feats = b, p, self.prob(a, b)[1]
            same_law = law_of(self.corpus.provs[a].label) == law_of(self.corpus.provs[b].label)
            d.relation = "same" if b == twin else "renumbered" if same_law else "moved"
            return


def show_threshold(corpus: Corpus, a: str, b: str, same_edition: bool) -> float:
    """The probability from which ``b`` is shown as ``a``'s equivalent:
    :data:`calibration.TWIN_SHOW` for a label twin across editions below the level of a
    law (the rule under that label may have been rewritten; a law keeps its number and
    subject, and what changed in it is told provision by provision),
    :data:`calibration.SHOW` for every other pair."""
    pa, pb = corpus.provs[a], corpus.provs[b]
    if pa.label == pb.label and not same_edition and pa.kind != "law":
        return calibration.TWIN_SHOW
    return calibration.SHOW


def split_rows(corpus: Corpus, matcher: PairMatcher) -> list[tuple[str, list[str]]]:
    """Provisions left without an equivalent whose content is spread over several
    sibling provisions of the other book that are themselves left over:
    ``(a, [b1, b2, ...])``. Each part must be well covered by ``a`` (its wording carried
    into ``a``'s language matches, :data:`calibration.SPLIT_PART`) and the parts together
    about as long as ``a``."""
    out = []
    space = matcher.space
    for a, d in matcher.decisions.items():
        if d.relation != "none":
            continue
        law = corpus.by_label[matcher.doc_b].get(corpus.provs[a].law)
        if law is not None and not corpus.provs[law].has_text:
            continue  # its counterpart is most likely in the text that book lacks
        parts: list[str] = []
        for b in space.top(a, CANDIDATES):
            if b in matcher.taken or any(_related(corpus, b, x) for x in parts):
                continue
            if parts and corpus.provs[b].parent != corpus.provs[parts[0]].parent:
                continue
            _ab, ba = space.lexical(a, b)
            if ba >= calibration.SPLIT_PART:
                parts.append(b)
        if len(parts) < 2:
            continue
        i = space.a.index[a]
        total = sum(space.b.lengths[space.b.index[b]] for b in parts)
        ratio = math.log(total / space.a.lengths[i]) if space.a.lengths[i] and total else 9.0
        if abs(ratio - space.log_ratio) <= 3 * max(space.log_spread, 0.05):
            out.append((a, sorted(parts, key=lambda b: space.b.index[b])))
    return out


def bridges(
    matches: dict[tuple[str, str], dict[str, str]], docs: list[str]
) -> dict[tuple[str, str], dict[str, set[str]]]:
    """For every ordered pair of books (A, B), where A's provisions arrive in B through
    a third book C (A's match in C, then that one's match in B)."""

    def oriented(x: str, y: str) -> dict[str, str]:
        if (x, y) in matches:
            return matches[(x, y)]
        return {b: a for a, b in matches.get((y, x), {}).items()}

    out: dict[tuple[str, str], dict[str, set[str]]] = {}
    for a_doc in docs:
        for b_doc in docs:
            if a_doc == b_doc:
                continue
            reach: dict[str, set[str]] = {}
            for c_doc in docs:
                if c_doc in (a_doc, b_doc):
                    continue
                ac, cb = oriented(a_doc, c_doc), oriented(c_doc, b_doc)
                for a, c in ac.items():
                    if c in cb:
                        reach.setdefault(a, set()).add(cb[c])
            out[(a_doc, b_doc)] = reach
    return out
