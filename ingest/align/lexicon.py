"""A translation lexicon learned from the corpus's own parallel provisions.

The books are translations of the same Laws, so provisions that carry the same label
in laws whose structure did not change between two books are parallel text: several
thousand provision pairs for every language pair (and, for fi-1997/fi-2007, a
same-language pair that learns the rewording between editions). Word translation
probabilities are learned from them on lemmas with IBM Model 1 (expectation
maximisation, vectorised with numpy), in both directions.

Learning is bootstrapped: a first lexicon is learned from the label pairs of
structurally unchanged laws (:func:`learn_all`); :func:`.score.expand_lexicons` then
scores every same-label pair with it (the pairs that are not translations of each other,
a renumbered neighbour or a rewritten rule, drop out), adds the provisions that are each
other's best match anywhere in the two books, and learns again.

IBM Model 1 rather than a sampler such as eflomal: it is deterministic (the same
corpus gives the same lexicon, so an unchanged input gives an unchanged store) and,
on a corpus of this size, takes a fraction of a second.

The ``lexicon`` table keeps, per language pair, ``p_ab`` = t(word_b | word_a) and
``p_ba`` = t(word_a | word_b) for every pair of lemmas with a probability of at least
:data:`STORE` in either direction.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy import sparse

from .. import nlp
from .label import Corpus

SCHEMA = """
CREATE TABLE lexicon (
  lang_a TEXT NOT NULL, lang_b TEXT NOT NULL, word_a TEXT NOT NULL, word_b TEXT NOT NULL,
  p_ab REAL NOT NULL, p_ba REAL NOT NULL, surface_a TEXT NOT NULL, surface_b TEXT NOT NULL,
  shown_a TEXT NOT NULL, shown_b TEXT NOT NULL
);
CREATE INDEX lexicon_a ON lexicon(lang_a, word_a);
CREATE INDEX lexicon_b ON lexicon(lang_b, word_b);
"""

ITERATIONS = 6
"""EM iterations of IBM Model 1 per round."""
KEEP = 0.02
"""Translation probabilities below this are not kept in the matrices."""
STORE = 0.05
"""Word pairs below this probability in both directions are not written to the store."""
NULL = "<null>"
LIKELY = 0.1
"""A translation at least this probable counts as a dictionary entry (hunalign style)."""
MAX_PRODUCT = 5_000
"""Pairs with more token combinations than this are left out of learning: very long
provisions teach little per combination and cost the most (tuned on the dev set)."""
MAX_RATIO = 3.0
"""A training pair whose token counts differ more than this many times is left out."""
BOOTSTRAP_KEEP = 0.25
"""Second round: a same-label pair is kept for learning when its lexical similarity
(both directions) is at least this; tuned on the alignment dev set."""


@dataclass
class Bags:
    """Lemma tokens of every provision's own title and text, per node id."""

    tokens: dict[str, list[str]] = field(default_factory=dict)
    surface: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per language, the most frequent folded word form of each lemma (the lexicon table's
    key for looking a typed word up, accents or none)."""
    shown: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per language, the most frequent word form of each lemma as the books write it,
    lowercased (to show evidence: "βαλές", not "βαλεσ")."""
    written: dict[str, list[str]] = field(default_factory=dict, repr=False)
    """Per node id, the word of each of its :attr:`tokens` as the text writes it (lowercased)."""
    _subtree: dict[str, Counter] = field(default_factory=dict, repr=False)
    _forms: dict[str, dict[str, str]] = field(default_factory=dict, repr=False)

    def form_in(self, corpus: Corpus, nid: str, lemma: str) -> str | None:
        """How a provision (its own text first, then its sub-provisions in order) writes the
        first word whose lemma is ``lemma``; None if none does."""
        return self._forms_in(corpus, nid).get(lemma)

    def _forms_in(self, corpus: Corpus, nid: str) -> dict[str, str]:
        """:meth:`form_in` for every lemma of a provision (made once per provision and
        process, from its sub-provisions' own)."""
        got = self._forms.get(nid)
        if got is None:
            got = {}
            for token, word in zip(
                self.tokens.get(nid, ()), self.written.get(nid, ()), strict=True
            ):
                got.setdefault(token, word)
            for c in corpus.provs[nid].children:
                for token, word in self._forms_in(corpus, c).items():
                    got.setdefault(token, word)
            self._forms[nid] = got
        return got

    def subtree(self, corpus: Corpus, nid: str) -> Counter:
        """Lemma counts of a provision's own text and every sub-provision's (made once per
        provision and process; not to be changed by the caller)."""
        got = self._subtree.get(nid)
        if got is None:
            got = Counter(self.tokens.get(nid, ()))
            for c in corpus.provs[nid].children:
                got.update(self.subtree(corpus, c))
            self._subtree[nid] = got
        return got

    @classmethod
    def build(cls, corpus: Corpus) -> Bags:
        """Lemmatise the own title and text of every provision (ingest time)."""
        out = cls()
        forms: dict[str, Counter] = {}
        written: dict[str, Counter] = {}
        for p in corpus.provs.values():
            lang = corpus.docs[p.doc].language
            text = f"{p.title} {p.text}"
            words = _words(text)
            lemmas = [nlp.lemma(lang, w) for w in words]
            out.tokens[p.id] = lemmas
            forms.setdefault(lang, Counter()).update(zip(lemmas, words, strict=True))
            shown = [w for w in nlp.shown_words(text) if _kept(nlp.fold(w))]
            if [nlp.fold(w) for w in shown] != words:
                shown = words  # split differently: the folded forms are shown
            out.written[p.id] = shown
            written.setdefault(lang, Counter()).update(zip(lemmas, shown, strict=True))
        out.surface = {lang: _most_frequent(c) for lang, c in forms.items()}
        out.shown = {lang: _most_frequent(c) for lang, c in written.items()}
        return out


def _most_frequent(counts: Counter) -> dict[str, str]:
    """Each lemma's most frequent form, from counts of (lemma, form)."""
    best: dict[str, str] = {}
    for (lemma, word), _n in counts.most_common():
        best.setdefault(lemma, word)
    return best


def _words(text: str) -> list[str]:
    """The folded alphabetic words of ``text`` (numbers, labels and single letters out)."""
    return [w for w in nlp.words(text) if _kept(w)]


def _kept(word: str) -> bool:
    return word.isalpha() and len(word) > 1


def tokens(lang: str, text: str) -> list[str]:
    """Folded lemmas of the words of ``text`` (:func:`_words`)."""
    return [nlp.lemma(lang, w) for w in _words(text)]


@dataclass
class Lexicon:
    """Word translation probabilities between two languages, both directions."""

    lang_a: str
    lang_b: str
    vocab_a: dict[str, int]
    vocab_b: dict[str, int]
    ab: sparse.csr_matrix
    """t(b | a), rows: words of ``lang_a``, columns: words of ``lang_b``."""
    ba: sparse.csr_matrix
    """t(a | b), rows: words of ``lang_b``, columns: words of ``lang_a``."""
    pairs_used: int = 0
    _columns: dict = field(default_factory=dict, repr=False)

    def remembered(self, key: tuple, make):
        """``make()``, made once per lexicon under ``key`` (a value derived from it)."""
        if key not in self._columns:
            self._columns[key] = make()
        return self._columns[key]

    def likely(self, reverse: bool) -> dict[str, frozenset]:
        """Each word's likely translations (t >= :data:`LIKELY`), cached: ``lang_a`` words
        to ``lang_b`` words, or the reverse."""
        key = ("likely", reverse)
        if key not in self._columns:
            src, tgt, m = (
                (self.vocab_b, self.vocab_a, self.ba)
                if reverse
                else (self.vocab_a, self.vocab_b, self.ab)
            )
            words = list(tgt)
            out = {}
            for w, i in src.items():
                row = slice(m.indptr[i], m.indptr[i + 1])
                pairs = zip(m.indices[row], m.data[row], strict=True)
                out[w] = frozenset(words[j] for j, p in pairs if p >= LIKELY)
            self._columns[key] = out
        return self._columns[key]

    def associations(self, reverse: bool) -> dict[str, dict[str, float]]:
        """Each word's translations with sqrt(t(b|a) * t(a|b)) (cached): ``lang_a`` words
        to ``lang_b`` words, or the reverse. A word that many words spread a little
        probability to (an article) is nobody's strong association."""
        key = ("assoc", reverse)
        if key not in self._columns:
            out: dict[str, dict[str, float]] = {}
            fwd, back = (self.ba, self.ab) if reverse else (self.ab, self.ba)
            src, tgt = (self.vocab_b, self.vocab_a) if reverse else (self.vocab_a, self.vocab_b)
            words_s, words_t = list(src), list(tgt)
            both = sparse.csr_matrix(fwd.multiply(back.T.tocsr())).sqrt().tocoo()
            for i, j, p in zip(both.row, both.col, both.data, strict=True):
                if i and j:
                    out.setdefault(words_s[i], {})[words_t[j]] = float(p)
            self._columns[key] = out
        return self._columns[key]


def _ibm1_both(
    pairs: list[tuple[np.ndarray, np.ndarray]], n_a: int, n_b: int, iterations: int
) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
    """IBM Model 1 by EM both ways, t(b | a) and t(a | b); source index 0 is NULL
    (prepended to each pair).

    Every (source word, target word) co-occurrence gets one parameter; an E step spreads
    each target token over the source tokens of its pair in proportion to t times a
    position prior (:func:`_diagonal`), an M step renormalises the expected counts per
    source word. The word pairs that occur together are indexed once for both ways
    (:class:`_Cooccurrences`).
    """
    both = _Cooccurrences(pairs, n_a, n_b)
    return (
        _em(both.forward(), n_a, n_b, iterations),
        _em(both.backward(), n_b, n_a, iterations),
    )


class _Cooccurrences:
    """The token pairs of parallel provisions, each pair's words indexed once.

    An EM step reads, for every (source token, target token) of a pair, laid out pair by
    pair with the NULL row first and then one row per source token: the index of its
    word pair's parameter (word pairs in ascending ``src * n_tgt + tgt`` order, as
    :func:`numpy.unique` gives them), the position of its target token among all target
    tokens, and its position prior. The word pairs without NULL are the same both ways
    (transposed), so they are sorted once. Index 0 of each vocabulary is NULL alone (no
    word of the books, which are letters only, is spelled ``<null>``).
    """

    def __init__(self, pairs: list[tuple[np.ndarray, np.ndarray]], n_a: int, n_b: int) -> None:
        self.pairs, self.n_a, self.n_b = pairs, n_a, n_b
        self.shapes = [(len(a), len(b)) for a, b in pairs]
        keys = [(a[:, None] * n_b + b[None, :]).ravel() for a, b in pairs]
        key = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
        if n_a * n_b <= np.iinfo(np.int32).max:  # the same keys, sorted faster
            key = key.astype(np.int32)
        self.words, self.k = np.unique(key, return_inverse=True)

    def forward(self) -> tuple:
        """(word pairs, parameter of each token pair, target position, prior, number of
        target tokens) for t(b | a)."""
        return self._layout(self.words, self.k, 1, self.n_b)

    def backward(self) -> tuple:
        """The same for t(a | b): each word pair transposed, each pair's rows and columns."""
        swapped = (self.words % self.n_b) * self.n_a + self.words // self.n_b
        order = np.argsort(swapped, kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return self._layout(swapped[order], rank[self.k], 0, self.n_a)

    def _layout(self, words: np.ndarray, k: np.ndarray, side: int, n_tgt: int):
        """The arrays of one direction: ``side`` 1 reads the pairs as (a, b), 0 as (b, a);
        ``words``/``k`` are the word pairs without NULL and each token pair's index into
        them, in the layout of the forward direction."""
        tgt_all = [p[side] for p in self.pairs]
        tgt = np.concatenate(tgt_all) if tgt_all else np.zeros(0, dtype=np.int64)
        nulls, k_null = np.unique(tgt, return_inverse=True)  # NULL's pairs: below the rest
        ks, positions, priors = [], [], []
        start = offset = 0
        starts = np.cumsum([0, *map(len, tgt_all)])[:-1]
        for (m_a, m_b), t0 in zip(self.shapes, starts, strict=True):
            m, n = (m_a, m_b) if side else (m_b, m_a)
            block = k[start : start + m_a * m_b]
            start += m_a * m_b
            if not side:
                block = block.reshape(m_a, m_b).T.ravel()
            ks.append(k_null[t0 : t0 + n])
            ks.append(block + len(nulls))
            positions.append(np.tile(np.arange(offset, offset + n), m + 1))
            priors.append(_diagonal_flat(m, n, DIAGONAL, NULL_PRIOR))
            offset += n
        if not ks:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty, np.zeros(0), 0
        return (
            np.concatenate([nulls, words]),
            np.concatenate(ks),
            np.concatenate(positions),
            np.concatenate(priors),
            offset,
        )


def _em(layout, n_src: int, n_tgt: int, iterations: int) -> sparse.csr_matrix:
    """The EM iterations of :func:`_ibm1_both` over a :class:`_Cooccurrences` layout."""
    uniq, k, pos, prior, offset = layout
    if not len(uniq):
        return sparse.csr_matrix((n_src, n_tgt))
    src_of = uniq // n_tgt
    t = np.ones(len(uniq))
    for _ in range(iterations):
        w = t[k] * prior
        denom = np.bincount(pos, weights=w, minlength=offset)
        counts = np.bincount(k, weights=w / denom[pos], minlength=len(uniq))
        totals = np.bincount(src_of, weights=counts, minlength=n_src)
        t = counts / totals[src_of]
    keep = t >= KEEP
    return sparse.csr_matrix((t[keep], (src_of[keep], uniq[keep] % n_tgt)), shape=(n_src, n_tgt))


DIAGONAL = 4.0
"""Strength of the position prior (fast_align's diagonal tension); 0 is IBM Model 1."""
NULL_PRIOR = 0.1
"""Share of the position prior given to NULL when :data:`DIAGONAL` is on."""


def _diagonal(m: int, n: int) -> np.ndarray:
    """Position prior of a pair with ``m`` source and ``n`` target tokens, shape
    (m + 1, n): row 0 is NULL; a source token near the target token's relative position
    is likelier (fast_align), each column sums to one."""
    if DIAGONAL <= 0:
        return np.ones((m + 1, n))
    i = (np.arange(1, m + 1) - 0.5)[:, None] / m
    j = (np.arange(1, n + 1) - 0.5)[None, :] / n
    h = np.exp(-DIAGONAL * np.abs(i - j))
    h = (1 - NULL_PRIOR) * h / h.sum(axis=0, keepdims=True)
    return np.vstack([np.full((1, n), NULL_PRIOR), h])


@lru_cache(maxsize=4096)
def _diagonal_flat(m: int, n: int, _diagonal_: float, _null_: float) -> np.ndarray:
    """:func:`_diagonal` raveled, made once per shape (and setting: the cache key), read-only."""
    out = _diagonal(m, n).ravel()
    out.setflags(write=False)
    return out


def _index(vocab: dict[str, int], words: list[str]) -> np.ndarray:
    return np.array([vocab.setdefault(w, len(vocab)) for w in words], dtype=np.int64)


def learn(
    lang_a: str,
    lang_b: str,
    pairs: list[tuple[list[str], list[str]]],
    iterations: int | None = None,
) -> Lexicon:
    """Learn t(b|a) and t(a|b) from token lists of parallel provisions."""
    iterations = ITERATIONS if iterations is None else iterations
    vocab_a: dict[str, int] = {NULL: 0}
    vocab_b: dict[str, int] = {NULL: 0}
    idx = []
    for ta, tb in pairs:
        if not ta or not tb:
            continue
        if max(len(ta), len(tb)) > MAX_RATIO * min(len(ta), len(tb)) + 3:
            continue
        if len(ta) * len(tb) > MAX_PRODUCT:
            continue
        idx.append((_index(vocab_a, ta), _index(vocab_b, tb)))
    ab, ba = _ibm1_both(idx, len(vocab_a), len(vocab_b), iterations)
    return Lexicon(lang_a, lang_b, vocab_a, vocab_b, ab, ba, pairs_used=len(idx))


def unchanged_laws(corpus: Corpus, doc_a: str, doc_b: str) -> set[str]:
    """Laws with text in both documents whose sub-provision labels are the same."""
    out = set()
    la, lb = corpus.by_label[doc_a], corpus.by_label[doc_b]
    for label, a in la.items():
        pa = corpus.provs[a]
        if pa.kind != "law" or label not in lb:
            continue
        pb = corpus.provs[lb[label]]
        if not (pa.has_text and pb.has_text):
            continue
        sa = {corpus.provs[x].label for x in corpus.descendants(a)}
        sb = {corpus.provs[x].label for x in corpus.descendants(pb.id)}
        if sa == sb:
            out.add(label)
    return out


def label_training_pairs(
    corpus: Corpus, bags: Bags, doc_a: str, doc_b: str, laws: set[str] | None
) -> list[tuple[str, str]]:
    """Same-label provision pairs with own text on both sides (in ``laws`` if given)."""
    la, lb = corpus.by_label[doc_a], corpus.by_label[doc_b]
    out = []
    for label, a in la.items():
        b = lb.get(label)
        if b is None or not bags.tokens.get(a) or not bags.tokens.get(b):
            continue
        if laws is not None and corpus.provs[a].law not in laws:
            continue
        out.append((a, b))
    return out


def language_pairs(corpus: Corpus) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """The pairs of documents the lexicons learn from (:meth:`.Corpus.learning_pairs`),
    grouped by their (sorted) language pair."""
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for doc_a, doc_b in corpus.learning_pairs():
        la, lb = corpus.docs[doc_a].language, corpus.docs[doc_b].language
        if (la, lb) != tuple(sorted((la, lb))):
            doc_a, doc_b, la, lb = doc_b, doc_a, lb, la
        out.setdefault((la, lb), []).append((doc_a, doc_b))
    return out


def own_similarity(lex: Lexicon, ta: list[str], tb: list[str]) -> float:
    """Share of tokens on each side with a likely translation on the other (the mean of
    both directions): the hunalign dictionary score on one pair of token lists."""
    if not ta or not tb:
        return 0.0
    return (_covered(lex.likely(False), ta, set(tb)) + _covered(lex.likely(True), tb, set(ta))) / 2


def _covered(likely: dict[str, frozenset], src: list[str], tgt: set[str]) -> float:
    empty: frozenset = frozenset()
    return sum(1 for w in src if not likely.get(w, empty).isdisjoint(tgt)) / len(src)


def count_matrix(vocab: dict[str, int], lists: list[list[str]]) -> sparse.csr_matrix:
    """Token counts of each list over ``vocab`` (rows: lists; words outside it ignored)."""
    get = vocab.get
    cols = np.fromiter((get(w, -1) for toks in lists for w in toks), dtype=np.int64)
    rows = np.repeat(np.arange(len(lists)), [len(toks) for toks in lists])
    kept = cols >= 0
    return sparse.csr_matrix(
        (np.ones(int(kept.sum())), (rows[kept], cols[kept])), shape=(len(lists), len(vocab))
    )


def pair_similarities(lex: Lexicon, pairs: list[tuple[list[str], list[str]]]) -> np.ndarray:
    """:func:`own_similarity` of many pairs at once, with sparse products."""
    if not pairs:
        return np.zeros(0)
    xa = count_matrix(lex.vocab_a, [a for a, _ in pairs])
    xb = count_matrix(lex.vocab_b, [b for _, b in pairs])
    out = []
    for x, y, m, lists in (
        (xa, xb, lex.ab, [a for a, _ in pairs]),
        (xb, xa, lex.ba, [b for _, b in pairs]),
    ):
        likely = m.copy()
        likely.data = (likely.data >= LIKELY).astype(float)
        likely.eliminate_zeros()
        xc = x.tocoo()
        reached = np.asarray(likely[xc.col].multiply(y[xc.row]).sum(axis=1)).ravel() > 0
        hit = np.bincount(xc.row, weights=xc.data * reached, minlength=len(pairs))
        out.append(hit / np.array([max(len(t), 1) for t in lists]))
    return (out[0] + out[1]) / 2


def learn_all(corpus: Corpus, bags: Bags) -> dict[tuple[str, str], Lexicon]:
    """First lexicons for every language pair of the corpus, from the label pairs of
    structurally unchanged laws (:func:`.score.expand_lexicons` then bootstraps them)."""
    return {key: learn_first(corpus, bags, key) for key in language_pairs(corpus)}


def learn_first(corpus: Corpus, bags: Bags, key: tuple[str, str]) -> Lexicon:
    """The first lexicon of one language pair (see :func:`learn_all`)."""
    first = []
    for doc_a, doc_b in language_pairs(corpus)[key]:
        laws = unchanged_laws(corpus, doc_a, doc_b)
        first += label_training_pairs(corpus, bags, doc_a, doc_b, laws)
    return learn(*key, [(bags.tokens[a], bags.tokens[b]) for a, b in first])


def write_lexicons(
    con: sqlite3.Connection, lexicons: dict[tuple[str, str], Lexicon], bags: Bags | None = None
) -> int:
    """Write the ``lexicon`` table (pairs with a probability of at least :data:`STORE` in
    either direction, with each lemma's most frequent form in the books, folded
    (``surface``, what a typed word is looked up by) and as written (``shown``: Greek
    accents and final sigma kept)); returns the number of rows."""
    surface = bags.surface if bags else {}
    written = bags.shown if bags else {}
    con.executescript(SCHEMA)
    total = 0
    for lex in lexicons.values():
        words_a = np.array(list(lex.vocab_a), dtype=object)
        words_b = np.array(list(lex.vocab_b), dtype=object)
        fwd = lex.ab.tocsr()
        rev = lex.ba.T.tocsr()  # rows: words of lang_a, like ab
        both = (fwd.maximum(rev)).tocoo()
        keep = (both.data >= STORE) & (both.row > 0) & (both.col > 0)
        rows, cols = both.row[keep], both.col[keep]
        p_ab = np.asarray(fwd[rows, cols]).ravel().round(4)
        p_ba = np.asarray(rev[rows, cols]).ravel().round(4)
        wa, wb = words_a[rows].tolist(), words_b[cols].tolist()
        sa, sb = surface.get(lex.lang_a, {}), surface.get(lex.lang_b, {})
        ha, hb = written.get(lex.lang_a, {}), written.get(lex.lang_b, {})
        con.executemany(
            "INSERT INTO lexicon VALUES (?,?,?,?,?,?,?,?,?,?)",
            zip(
                [lex.lang_a] * len(rows),
                [lex.lang_b] * len(rows),
                wa,
                wb,
                p_ab.tolist(),
                p_ba.tolist(),
                [sa.get(w, w) for w in wa],
                [sb.get(w, w) for w in wb],
                [ha.get(w) or sa.get(w, w) for w in wa],
                [hb.get(w) or sb.get(w, w) for w in wb],
                strict=True,
            ),
        )
        total += len(rows)
    return total


def idf_weights(corpus: Corpus, bags: Bags) -> dict[str, dict[str, float]]:
    """Inverse document frequency of each lemma per language, over provisions' own text."""
    df: dict[str, Counter] = {}
    n: Counter = Counter()
    for nid, toks in bags.tokens.items():
        lang = corpus.docs[corpus.provs[nid].doc].language
        df.setdefault(lang, Counter()).update(set(toks))
        n[lang] += 1
    return {lang: {w: math.log(1 + n[lang] / k) for w, k in c.items()} for lang, c in df.items()}
