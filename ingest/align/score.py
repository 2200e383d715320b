"""Content scores that read the words: lexical translation similarity, length, anchors.

For one pair of documents every provision's subtree (its own text and its
sub-provisions') becomes a TF-IDF vector of lemmas; a vector of ``doc_a`` is carried
into ``doc_b``'s language through the learned lexicon (:mod:`.lexicon`) and compared
with ``doc_b``'s vectors by cosine, and the same the other way round (the dictionary
score of hunalign, on weighted bags). Two documents in one language also compare
their vectors directly. :class:`PairSpace` holds the two similarity matrices, so any
provision can be compared with any other of the other book (a provision that moved
to another law is found that way).

:func:`features` turns one candidate pair into the named signals the calibrated
model (:mod:`.calibration`) reads: lexical similarity both ways, a Gale-Church style
length agreement, numbers and cited laws as anchors, and the label prior.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import chain

import numpy as np
from scipy import sparse

from .evidence import Fingerprint, law_of
from .label import Corpus
from .lexicon import (
    BOOTSTRAP_KEEP,
    Bags,
    Lexicon,
    count_matrix,
    label_training_pairs,
    language_pairs,
    learn,
    pair_similarities,
)

TOP = 10
"""Best matches precomputed per provision (enough for every caller's ``k``)."""
COVER_CHUNK = 4096
"""Pairs whose coverage :meth:`PairSpace.prime_cover` computes in one sparse step."""
MIN_P = 0.1
"""Translation probabilities (geometric mean of both directions) below this are ignored
when carrying a vector across."""


@dataclass
class DocSpace:
    """Subtree TF-IDF vectors of one document's provisions."""

    doc: str
    ids: list[str]
    index: dict[str, int]
    vectors: sparse.csr_matrix
    """Rows: provisions (L2-normalised), columns: the lexicon vocabulary of the language."""
    lengths: np.ndarray
    """Characters of each provision's subtree text."""


def doc_space(
    corpus: Corpus, bags: Bags, doc: str, vocab: dict[str, int], idf: dict[str, float]
) -> DocSpace:
    """Vectors of every provision with text of ``doc`` over ``vocab`` (sparse products:
    own-text counts, summed over each provision's subtree by a descendant matrix)."""
    ids = [nid for nid in corpus.by_label[doc].values() if corpus.provs[nid].has_text]
    index = {nid: i for i, nid in enumerate(ids)}
    own = count_matrix(vocab, [bags.tokens.get(nid, []) for nid in ids])
    d_rows, d_cols = [], []
    for i, nid in enumerate(ids):
        for d in corpus.descendants(nid):
            k = index.get(d)
            if k is not None:
                d_rows.append(i)
                d_cols.append(k)
    below = sparse.csr_matrix((np.ones(len(d_rows)), (d_rows, d_cols)), shape=(len(ids),) * 2)
    lengths = np.array([len(corpus.subtree_text(nid)) for nid in ids], dtype=float)
    return DocSpace(doc, ids, index, _tfidf(below @ own, vocab, idf), lengths)


def _tfidf(counts: sparse.csr_matrix, vocab: dict[str, int], idf: dict[str, float]):
    """Log-scaled counts times the IDF of each word of ``vocab``, rows L2-normalised."""
    weight = np.ones(len(vocab))
    for w, j in vocab.items():
        weight[j] = idf.get(w, 1.0)
    logged = counts.tocsr(copy=True)
    logged.data = 1 + np.log(logged.data)
    return _normalise(sparse.csr_matrix(logged @ sparse.diags(weight)))


def _normalise(m: sparse.csr_matrix) -> sparse.csr_matrix:
    norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sparse.csr_matrix(sparse.diags(1 / norms) @ m)


def _carried(lex: Lexicon, reverse: bool) -> sparse.csr_matrix:
    """:func:`_carry` of the lexicon's ``lang_a`` -> ``lang_b`` matrix (``reverse``: the
    other way), made once per lexicon."""
    fwd, back = (lex.ba, lex.ab) if reverse else (lex.ab, lex.ba)
    return lex.remembered(("carry", reverse), lambda: _carry(fwd, back))


def _carry(lex_matrix: sparse.csr_matrix, back: sparse.csr_matrix | None = None):
    """The translation matrix without NULL and without improbable translations.

    With ``back`` (the other direction's matrix), each entry is the geometric mean of
    t(b|a) and t(a|b), so a word that many words spread a little probability to (an
    article, a preposition) is not taken for their translation."""
    m = lex_matrix.tocsr(copy=True)
    if back is not None:
        m = sparse.csr_matrix(m.multiply(back.T.tocsr())).sqrt()
    m.data[m.data < MIN_P] = 0
    m.eliminate_zeros()
    coo = m.tocoo()
    keep = (coo.row != 0) & (coo.col != 0)  # NULL (index 0) carries nothing either way
    return sparse.csr_matrix((coo.data[keep], (coo.row[keep], coo.col[keep])), shape=m.shape)


@dataclass
class PairSpace:
    """Lexical similarity of every provision of ``doc_a`` with every one of ``doc_b``."""

    a: DocSpace
    b: DocSpace
    ab: np.ndarray
    """cos(vector of a carried into b's language, vector of b), shape (|a|, |b|)."""
    ba: np.ndarray
    """cos(vector of b carried into a's language, vector of a), shape (|a|, |b|)."""
    log_ratio: float
    """Median log length ratio (b over a) of same-label pairs: the books' usual ratio."""
    log_spread: float
    """Median absolute deviation of that log ratio."""
    fps: dict[str, Fingerprint] = field(default_factory=dict)
    counts: tuple[dict, dict] | None = None
    """Lemma counts of each provision's subtree, per side (for :meth:`cover`)."""
    likely: tuple[dict, dict] = ({}, {})
    """Likely translations of each word, a's words to b's and the reverse."""
    _reaches: tuple[dict, dict] = field(default_factory=lambda: ({}, {}))
    _reach_matrices: dict = field(default_factory=dict)
    _count_matrices: dict = field(default_factory=dict)
    _covers: dict = field(default_factory=dict)
    _ranks: dict = field(default_factory=dict)
    _best_of: dict = field(default_factory=dict)

    def _ranked(self, reverse: bool) -> tuple[np.ndarray, np.ndarray]:
        """Column (row) indices of the :data:`TOP` best matches of every row (column), and
        whether each has any similarity (made once per direction)."""
        if reverse not in self._ranks:
            both = self.ab + self.ba
            m = both.T if reverse else both
            k = min(TOP, m.shape[1])
            if k == 0:
                ranked = np.zeros((m.shape[0], 0), dtype=np.int64)
            else:
                part = np.argpartition(-m, k - 1, axis=1)[:, :k]
                vals = np.take_along_axis(m, part, axis=1)
                order = np.lexsort((part, -vals), axis=1)
                ranked = np.take_along_axis(part, order, axis=1)
            self._ranks[reverse] = (ranked, np.take_along_axis(m, ranked, axis=1) > 0)
        return self._ranks[reverse]

    def lexical(self, a: str, b: str) -> tuple[float, float]:
        """(a->b, b->a) similarity of two provisions; (0, 0) if either has no text."""
        i, j = self.a.index.get(a), self.b.index.get(b)
        if i is None or j is None:
            return 0.0, 0.0
        return float(self.ab[i, j]), float(self.ba[i, j])

    def top(self, a: str, k: int) -> tuple[str, ...]:
        """The ``k`` provisions of ``doc_b`` most similar to ``a``."""
        return self._best(a, k, reverse=False)

    def top_rev(self, b: str, k: int) -> tuple[str, ...]:
        """The ``k`` provisions of ``doc_a`` most similar to ``b``."""
        return self._best(b, k, reverse=True)

    def _best(self, node: str, k: int, reverse: bool) -> tuple[str, ...]:
        mine, other = (self.b, self.a) if reverse else (self.a, self.b)
        i = mine.index.get(node)
        if i is None:
            return ()
        key = (reverse, i, k)
        got = self._best_of.get(key)
        if got is None:  # the first k ranked provisions of the row that are similar at all
            ranked, similar = self._ranked(reverse)
            row = zip(ranked[i, :k].tolist(), similar[i, :k].tolist(), strict=True)
            got = self._best_of[key] = tuple(other.ids[j] for j, positive in row if positive)
        return got

    def cover(self, a: str, b: str) -> float:
        """One-to-one coverage, the lower of both directions: the share of one side's
        words (with their repetitions) that find a likely translation among the other
        side's words not already used. A clause one side adds or drops lowers it even
        when every word of it occurs elsewhere in the other text (a rewritten rule)."""
        got = self._covers.get((a, b))
        if got is None:
            got = self._covers[(a, b)] = self._cover(a, b)
        return got

    def prime_cover(self, pairs: Iterable[tuple[str, str]]) -> None:
        """:meth:`cover` of many pairs at once: the element-wise minimum of each pair's
        word counts and the other side's reach, over sparse rows (the same values), in
        chunks of :data:`COVER_CHUNK` pairs (the rows taken out are copies)."""
        todo = [p for p in dict.fromkeys(pairs) if p not in self._covers]
        if self.counts is None or not todo:
            return
        (ca, rows_a, _), (cb, rows_b, _) = self._counted(0), self._counted(1)
        for start in range(0, len(todo), COVER_CHUNK):
            chunk = todo[start : start + COVER_CHUNK]
            ia = np.array([rows_a.get(a, -1) for a, _ in chunk])
            ib = np.array([rows_b.get(b, -1) for _, b in chunk])
            ok = (ia >= 0) & (ib >= 0)
            out = np.zeros(len(chunk))
            if ok.any():
                xa, xb = ia[ok], ib[ok]
                shares = []
                for direction, counts, mine, theirs in ((0, ca, xa, xb), (1, cb, xb, xa)):
                    own = counts[mine]
                    reach = self._reach_matrix(direction)[0][theirs]
                    hit = np.asarray(own.minimum(reach).sum(axis=1)).ravel()
                    total = np.asarray(own.sum(axis=1)).ravel()
                    shares.append(hit / np.maximum(total, 1))
                out[ok] = np.minimum(*shares)
            self._covers.update(zip(chunk, out.tolist(), strict=True))

    def _cover(self, a: str, b: str) -> float:
        if self.counts is None:
            return 0.0
        ca, cb = self.counts[0].get(a), self.counts[1].get(b)
        if not ca or not cb:
            return 0.0
        return min(_covered_once(ca, self._reach(b, 0)), _covered_once(cb, self._reach(a, 1)))

    def _reach(self, node: str, direction: int) -> dict[str, int]:
        """For the words of the other side, how many tokens of ``node`` are among their
        likely translations (direction 0: ``node`` of b, words of a; 1: the reverse);
        computed once per provision, from :meth:`_reach_matrix` (so only for the words that
        some provision of the other side has: the only ones :func:`_covered_once` asks)."""
        cache = self._reaches[direction]
        got = cache.get(node)
        if got is None:
            matrix, index, words = self._reach_matrix(direction)
            i = index.get(node)
            got = {}
            if i is not None:
                row = slice(matrix.indptr[i], matrix.indptr[i + 1])
                got = dict(
                    zip(words[matrix.indices[row]].tolist(), matrix.data[row].tolist(), strict=True)
                )
            cache[node] = got
        return got

    def _counted(self, side: int) -> tuple[sparse.csr_matrix, dict[str, int], dict[str, int]]:
        """The word counts of one side's provisions (0: a, 1: b) as a matrix, with the row
        of each provision and the column of each word."""
        if side not in self._count_matrices:
            counts = (self.counts or ({}, {}))[side]
            index = {nid: i for i, nid in enumerate(counts)}
            words = dict.fromkeys(chain.from_iterable(counts.values()))
            vocab = {w: i for i, w in enumerate(words)}
            cols = np.fromiter(map(vocab.__getitem__, chain.from_iterable(counts.values())), int)
            vals = np.fromiter(chain.from_iterable(c.values() for c in counts.values()), int)
            indptr = np.cumsum([0, *map(len, counts.values())])
            shape = (len(index), len(vocab))
            matrix = sparse.csr_matrix((vals, cols, indptr), shape=shape)
            self._count_matrices[side] = (matrix, index, vocab)
        return self._count_matrices[side]

    def _reach_matrix(self, direction: int) -> tuple[sparse.csr_matrix, dict[str, int], np.ndarray]:
        """Every provision's reach at once: the word counts of the provisions of one side
        times which of their words are likely translations of each word of the other side
        (direction 0: b's provisions over a's words; 1: the reverse). Returns the product,
        the row of each provision and the other side's words, by column (the columns of
        :meth:`_counted` of the other side)."""
        if direction not in self._reach_matrices:
            counts, index, mine = self._counted(1 - direction)
            _, _, theirs = self._counted(direction)
            lrows, lcols = [], []
            for w, targets in self.likely[direction].items():
                col = theirs.get(w)
                if col is None:
                    continue  # no provision of the other side has the word
                for v in targets:
                    j = mine.get(v)
                    if j is not None:
                        lrows.append(j)
                        lcols.append(col)
            likely = sparse.csr_matrix(
                (np.ones(len(lrows), dtype=np.int64), (lrows, lcols)),
                shape=(len(mine), len(theirs)),
            )
            words = np.array(list(theirs), dtype=object)
            self._reach_matrices[direction] = (sparse.csr_matrix(counts @ likely), index, words)
        return self._reach_matrices[direction]

    def length_z(self, a: str, b: str) -> float:
        """How unusual the length ratio of the pair is (robust z-score, Gale-Church idea)."""
        i, j = self.a.index.get(a), self.b.index.get(b)
        if i is None or j is None:
            return 0.0
        la, lb = self.a.lengths[i], self.b.lengths[j]
        if la <= 0 or lb <= 0:
            return 10.0
        return abs(math.log(lb / la) - self.log_ratio) / max(self.log_spread, 0.05)


def pair_space(
    corpus: Corpus,
    bags: Bags,
    lex: Lexicon,
    idf: dict[str, dict[str, float]],
    doc_a: str,
    doc_b: str,
    fps: dict[str, Fingerprint],
) -> PairSpace:
    """Build the similarity matrices of one pair of documents."""
    lang_a, lang_b = corpus.docs[doc_a].language, corpus.docs[doc_b].language
    flip = lex.lang_a != lang_a
    vocab_a, vocab_b = (lex.vocab_b, lex.vocab_a) if flip else (lex.vocab_a, lex.vocab_b)
    sa = doc_space(corpus, bags, doc_a, vocab_a, idf.get(lang_a, {}))
    sb = doc_space(corpus, bags, doc_b, vocab_b, idf.get(lang_b, {}))
    ab = _cosines(sa.vectors @ _carried(lex, flip), sb.vectors)
    ba = _cosines(sb.vectors @ _carried(lex, not flip), sa.vectors).T
    if lang_a == lang_b:
        every: dict[str, int] = {}
        for d in (doc_a, doc_b):
            for nid in corpus.by_label[d].values():
                for w in bags.tokens.get(nid, ()):
                    every.setdefault(w, len(every))
        da = doc_space(corpus, bags, doc_a, every, idf.get(lang_a, {}))
        db = doc_space(corpus, bags, doc_b, every, idf.get(lang_b, {}))
        direct = (da.vectors @ db.vectors.T).toarray()
        ab, ba = np.maximum(ab, direct), np.maximum(ba, direct)
    ratios = []
    for label, a in corpus.by_label[doc_a].items():
        b = corpus.by_label[doc_b].get(label)
        if b in sb.index and a in sa.index:
            la, lb = sa.lengths[sa.index[a]], sb.lengths[sb.index[b]]
            if la > 0 and lb > 0:
                ratios.append(math.log(lb / la))
    med = float(np.median(ratios)) if ratios else 0.0
    mad = float(np.median(np.abs(np.array(ratios) - med))) if ratios else 0.2
    counts = (_subtree_counts(corpus, bags, sa.ids), _subtree_counts(corpus, bags, sb.ids))
    likely = (lex.likely(flip), lex.likely(not flip))
    return PairSpace(sa, sb, ab, ba, med, mad, fps, counts, likely)


def _covered_once(src: Counter, reach: dict[str, int]) -> float:
    """Share of the tokens of ``src`` matched one to one with a likely translation
    (``reach``: per word, the tokens of the other side that translate it)."""
    hit = sum(min(src[w], reach[w]) for w in src.keys() & reach.keys())
    return hit / max(1, sum(src.values()))


def _subtree_counts(corpus: Corpus, bags: Bags, ids: list[str]) -> dict[str, Counter]:
    """Lemma counts of the subtree (own text and every sub-provision's) of each of ``ids``."""
    return {nid: bags.subtree(corpus, nid) for nid in ids}


def _cosines(x: sparse.csr_matrix, y: sparse.csr_matrix) -> np.ndarray:
    return (_normalise(sparse.csr_matrix(x)) @ y.T).toarray()


def _dice(a, b) -> float | None:
    if not a or not b:
        return None
    return 2 * len(set(a) & set(b)) / (len(set(a)) + len(set(b)))


FEATURES = ("lex", "lex_min", "cover", "same_label", "same_law", "in_parent", "length", "anchors")
"""The signals of one candidate pair, in the order the calibrated model weighs them."""


def features(
    space: PairSpace, corpus: Corpus, a: str, b: str, parent_match: bool | None
) -> dict[str, float]:
    """The named signals of one candidate pair (all in 0..1, except ``length``).

    Args:
        parent_match: whether ``b`` lies inside the counterpart already found for
            ``a``'s parent (None: ``a`` is a law, or its parent has no counterpart).
    """
    ab, ba = space.lexical(a, b)
    pa, pb = corpus.provs[a], corpus.provs[b]
    fa, fb = space.fps.get(a), space.fps.get(b)
    anchors = []
    if fa is not None and fb is not None:
        nums = _dice(fa.numbers, fb.numbers)
        if nums is not None:
            anchors.append(nums)
        laws_a = {x for x in fa.cites_law if x != pa.law}
        laws_b = {x for x in fb.cites_law if x != pb.law}
        cites = _dice(laws_a, laws_b)
        if cites is not None:
            anchors.append(cites)
        elif laws_a or laws_b:
            anchors.append(0.0)  # one side refers to another law, the other to none
    return {
        "lex": (ab + ba) / 2,
        "lex_min": min(ab, ba),
        "cover": space.cover(a, b),
        "same_label": float(pa.label == pb.label),
        "same_law": float(law_of(pa.label) == law_of(pb.label)),
        "in_parent": 0.5 if parent_match is None else float(parent_match),
        "length": min(space.length_z(a, b), 6.0) / 6.0,
        "anchors": sum(anchors) / len(anchors) if anchors else 0.5,
    }


def _bag_matrix(vocab: dict[str, int], bags: list[list[str]], idf: dict[str, float]):
    return _tfidf(count_matrix(vocab, bags), vocab, idf)


def bag_similarity(
    lex: Lexicon,
    idf: dict[str, dict[str, float]],
    lang_x: str,
    lang_y: str,
    xs: list[list[str]],
    ys: list[list[str]],
) -> np.ndarray:
    """Lexical similarity (mean of both directions) of token lists ``xs`` (language
    ``lang_x``) with ``ys``: a matrix of shape (len(xs), len(ys))."""
    xy, yx, direct = carried_similarities(lex, idf, lang_x, lang_y, xs, ys)
    out = (xy + yx) / 2
    return out if direct is None else np.maximum(out, direct)


def carried_similarities(
    lex: Lexicon,
    idf: dict[str, dict[str, float]],
    lang_x: str,
    lang_y: str,
    xs: list[list[str]],
    ys: list[list[str]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Cosines of token lists ``xs`` (language ``lang_x``) with ``ys``: ``xs`` carried
    into ``lang_y`` through the lexicon, ``ys`` carried into ``lang_x``, and for one
    language the direct cosines (else None); each of shape (len(xs), len(ys))."""
    flip = lex.lang_a != lang_x
    vx, vy = (lex.vocab_b, lex.vocab_a) if flip else (lex.vocab_a, lex.vocab_b)
    mx = _bag_matrix(vx, xs, idf.get(lang_x, {}))
    my = _bag_matrix(vy, ys, idf.get(lang_y, {}))
    xy = _cosines(mx @ _carried(lex, flip), my)
    yx = _cosines(my @ _carried(lex, not flip), mx).T
    if lang_x != lang_y:
        return xy, yx, None
    every: dict[str, int] = {}
    for toks in (*xs, *ys):
        for w in toks:
            every.setdefault(w, len(every))
    direct = (
        _bag_matrix(every, xs, idf.get(lang_x, {})) @ _bag_matrix(every, ys, idf.get(lang_y, {})).T
    ).toarray()
    return xy, yx, direct


EXPAND_ROUNDS = 1
"""Rounds of relearning the lexicon from the mutually most similar provisions."""
EXPAND_MIN = 0.3
"""Lexical similarity from which two provisions without sub-provisions that are each
other's best match are taken as parallel text for the next round (dev-set tuned)."""


def expand_lexicons(corpus: Corpus, bags: Bags, lexicons: dict, idf: dict) -> dict:
    """Bootstrap beyond the label pairs: align whole books with the current lexicon,
    keep the pairs that are each other's best match (wherever they sit: a renumbered
    or moved provision included), add them to the confident label pairs and relearn."""
    return {key: expand_lexicon(corpus, bags, lex, idf) for key, lex in lexicons.items()}


def expand_lexicon(corpus: Corpus, bags: Bags, lex: Lexicon, idf: dict) -> Lexicon:
    """:func:`expand_lexicons` for one language pair."""
    la, lb = lex.lang_a, lex.lang_b
    doc_pairs = language_pairs(corpus)[(la, lb)]
    for _ in range(EXPAND_ROUNDS):
        train = [
            p for da, db in doc_pairs for p in label_training_pairs(corpus, bags, da, db, None)
        ]
        sims = pair_similarities(lex, [(bags.tokens[a], bags.tokens[b]) for a, b in train])
        keep = [p for p, s in zip(train, sims, strict=True) if s >= BOOTSTRAP_KEEP]
        seen = set(keep)
        for da, db in doc_pairs:
            space = pair_space(corpus, bags, lex, idf, da, db, {})
            for a, b in _mutual_leaves(corpus, bags, space):
                if corpus.docs[corpus.provs[a].doc].language != la:
                    a, b = b, a
                if (a, b) not in seen:
                    seen.add((a, b))
                    keep.append((a, b))
        lex = learn(la, lb, [(bags.tokens[a], bags.tokens[b]) for a, b in keep])
    return lex


def _mutual_leaves(corpus: Corpus, bags: Bags, space: PairSpace) -> list[tuple[str, str]]:
    def leaves(ids):
        return [i for i, x in enumerate(ids) if bags.tokens.get(x) and not corpus.provs[x].children]

    la, lb = leaves(space.a.ids), leaves(space.b.ids)
    if not la or not lb:
        return []
    sub = ((space.ab + space.ba) / 2)[np.ix_(la, lb)]
    rows, cols = sub.argmax(axis=1), sub.argmax(axis=0)
    return [
        (space.a.ids[la[i]], space.b.ids[lb[j]])
        for i, j in enumerate(rows)
        if cols[j] == i and sub[i, j] >= EXPAND_MIN
    ]
