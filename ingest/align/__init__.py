"""Alignment of provisions across languages and editions.

The ``align`` ingest stage (:func:`align_stage`) learns a translation lexicon from the
books (:mod:`.lexicon`), compares every provision with every other of each other book
through it (:mod:`.score`), matches them top down and scores each chosen pair with a
calibrated model (:mod:`.match`, :mod:`.calibration`), explains every row in words
(:mod:`.explain`), aligns the sentences of every equivalent pair (:mod:`.sentences`) and
ranks laws for the Estonian topics (:mod:`.topics`). It writes the ``lexicon``,
``alignments`` and ``sentence_pairs`` tables.

An ``alignments`` row pairs ``a`` (in the earlier document of the manifest) with ``b``:
``relation`` is ``same``, ``renumbered``, ``moved``, ``split`` or ``partial`` for a pair
shown (``partial`` never as the equivalent), ``law`` for two laws that correspond while
one has an opening text of its own and the other holds its text in its sections (never
the equivalent of that text: :mod:`.lawtext`), ``not-equivalent`` for a rejected label
twin and ``none`` for a provision without a reliable equivalent (``b`` then names its
closest candidate, for the evidence); both of the latter are ``flagged``. ``editions``
says ``same-edition``, ``cross-edition`` or ``topic``.

Books that share language and edition (a second printing or a revision of one
translation: ``fi-1997`` and a later ``fi-1997-2``) form a group led by the first of them
in the manifest. The matcher decides the pairs of groups' first books, as for books of
their own, and each later book of a group only against its group's first
(:meth:`.Corpus.direct_pairs`); every other pair of books is composed along book -> its
group's first -> the other group's first -> the other book (:func:`_compose_pair`), with
the product of the links' scores as its score, so the work grows with the books rather
than with the pairs of books. The lexicons learn from the groups' first books (and a
language pair only a group has, from one of its pairs). With one book per group, as in
the bundled corpus, every pair is decided directly.

Serve-time readers (:func:`aligned`, :func:`alignments`, :func:`equivalent`,
:func:`topic_candidates`, :func:`law_topics`, :func:`lexicon_lookup`,
:func:`sentence_pairs`) live in :mod:`.query` and :mod:`.sentences`; the TMX and CSV
exports in :mod:`.tmx`.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing as mp
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ..processes import Pool, computed, default_workers, reached
from . import calibration
from .evidence import fingerprints
from .explain import _percent, anchors, length_ratio, matched_terms, twin_passed_over, why
from .label import Corpus, load_corpus
from .lawtext import LAW, own_text_rows, relabel
from .lexicon import (
    Bags,
    Lexicon,
    idf_weights,
    language_pairs,
    learn_first,
    tokens,
    write_lexicons,
)
from .match import PairMatcher, Row, bridges, split_rows
from .query import (
    EQUIVALENT,
    METHODS,
    aligned,
    alignments,
    equivalent,
    law_topics,
    lexicon_lookup,
    lexicon_pairs,
    topic_candidates,
)
from .score import bag_similarity, expand_lexicon, pair_space
from .sentences import Splitter, sentence_pairs, sentence_rows, write_sentences
from .third import third_book_rows
from .tmx import TmxError, in_memory, pair_standing, sentences_csv, standing, tmx_bytes
from .topics import topic_rows

__all__ = [
    "EQUIVALENT",
    "METHODS",
    "align_corpus",
    "align_stage",
    "aligned",
    "alignments",
    "equivalent",
    "law_topics",
    "lexicon_lookup",
    "lexicon_pairs",
    "pair_standing",
    "sentence_pairs",
    "sentences_csv",
    "tmx_bytes",
    "in_memory",
    "standing",
    "TmxError",
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

TITLE_OTHER = 0.3
"""Title-only laws (fi-2007 19-93): a law with the same number whose title is at least
this similar is its equivalent (law numbers are stable across editions)."""
TITLE_MOVED = 0.6
"""... and a law or section with another number takes its place only with a title this
similar while the same-number title is below :data:`TITLE_OTHER`."""


@dataclass
class Alignment:
    """Everything one alignment run decided, before it is written."""

    corpus: Corpus
    lexicons: dict[tuple[str, str], Lexicon]
    bags: Bags | None = None
    matchers: dict[tuple[str, str], PairMatcher] = field(default_factory=dict)
    rows: dict[tuple[str, str], list[Row]] = field(default_factory=dict)
    sentences: list[tuple] = field(default_factory=list)


def align_corpus(
    con: sqlite3.Connection,
    workers: int = 1,
    learned: Callable[[dict, Bags], None] | None = None,
) -> Alignment:
    """Learn the lexicon and decide the equivalents of every pair of law documents
    (reads the nodes and citations of the store; writes nothing itself).

    Args:
        workers: processes that decide the pairs of books (forked, so they share what
            was computed before; with 1 the matchers are kept on the result for study).
        learned: called in this process with the lexicons and the bags while the worker
            processes decide the pairs (before the pairs are decided, in one process).
    """
    corpus = load_corpus(con)
    bags = Bags.build(corpus)
    idf = idf_weights(corpus, bags)
    fps = fingerprints(con, corpus)
    global _SHARED
    pairs = corpus.direct_pairs()
    firsts = [d for d in corpus.law_docs() if corpus.group_of(d) == d]
    with _LOCK:
        keep = workers <= 1
        splitter = Splitter()  # each provision split once per process, this run only
        _SHARED = _Run(corpus, bags, idf, fps, keep, splitter)
        try:
            learning = language_pairs(corpus)
            keys = list(learning)
            size = {d: len(corpus.by_label.get(d, ())) for d in corpus.docs}
            cost = {p: size[p[0]] * size[p[1]] for p in pairs}
            learn_cost = {k: sum(size[a] * size[b] for a, b in learning[k]) for k in keys}
            with _Steps(workers, len(pairs)) as steps:
                lexicons = dict(zip(keys, steps.map(_learn_pair, keys, learn_cost), strict=True))
                steps.hand(_set_lexicons, lexicons)
                # each pair of books is lined up and decided in one worker, which keeps
                # its similarity matrices from one step to the next
                place = steps.placement(pairs, cost)
                first = dict(zip(pairs, steps.map(_line_up_pair, pairs, place=place), strict=True))
                # bridges run through the groups' first books (a copy reaches no third book)
                reach = bridges({p: m for p, m in first.items() if p[1] in firsts}, firsts)
                steps.hand(_set_reach, reach)
                done = steps.map(
                    _decide_pair,
                    pairs,
                    place=place,
                    meanwhile=(lambda: learned(lexicons, bags)) if learned else None,
                )
        finally:
            _SHARED = None
    reached(computed(STAGE))  # what is left is cheap, and writing it
    out = Alignment(corpus, lexicons, bags)
    ratios = {p: r for p, (_, _, _, r, _) in zip(pairs, done, strict=True)}
    for pair, (rows, sentences, matcher, _ratio, _opens) in zip(pairs, done, strict=True):
        out.rows[pair] = rows
        out.sentences += sentences
        if matcher is not None:
            out.matchers[pair] = matcher
    for (doc_a, doc_b), rows in out.rows.items():
        la, lb = sorted((corpus.docs[doc_a].language, corpus.docs[doc_b].language))
        rows += _title_rows(corpus, lexicons[(la, lb)], idf, doc_a, doc_b, out.rows)
        out.rows[(doc_a, doc_b)] = _without_contradicted_none(rows)
    opens = {p: o for p, (_, _, _, _, o) in zip(pairs, done, strict=True)}
    for pair, rows in third_book_rows(corpus, out.rows, opens).items():
        _add_confirmed(out, pair, rows, ratios[pair], splitter, bags, idf)
    composed = [p for p in corpus.doc_pairs() if p not in out.rows]
    if composed:
        with _LOCK:
            _SHARED = _Run(corpus, bags, idf, fps, keep, splitter, lexicons, done=out.rows)
            _SHARED.ratios = ratios
            _SHARED.sentence_memo = _sentence_memo(corpus, out.sentences, _SHARED.ratios)
            try:
                # cheap, and its rows are big to hand back from a worker: in this process
                made = [_compose_pair(p) for p in composed]
            finally:
                _SHARED = None
        for pair, (rows, sentences) in zip(composed, made, strict=True):
            out.rows[pair] = rows
            out.sentences += sentences
        out.rows = {p: out.rows[p] for p in corpus.doc_pairs()}
    for rows in out.rows.values():
        relabel(corpus, rows)
    return out


def _add_confirmed(
    out: Alignment,
    pair: tuple[str, str],
    rows: list[Row],
    log_ratio: float,
    splitter: Splitter,
    bags: Bags,
    idf: dict,
) -> None:
    """Put the rows confirmed through a third book, with their matching terms, in place
    of the rows of the same pairs, and align their sentences (unless an unconfirmed
    twin's were already)."""
    corpus = out.corpus
    la, lb = sorted((corpus.docs[pair[0]].language, corpus.docs[pair[1]].language))
    lex = out.lexicons[(la, lb)]
    for r in rows:
        r.evidence["terms"] = matched_terms(corpus, bags, lex, idf, r.a, r.b)
    new = {(r.a, r.b) for r in rows}
    had = {(r.a, r.b) for r in out.rows[pair] if (r.a, r.b) in new and _has_sentences(r)}
    todo = [r for r in rows if (r.a, r.b) not in had]
    out.sentences += _sentences(corpus, lex, log_ratio, todo, splitter)
    kept = [r for r in out.rows[pair] if (r.a, r.b) not in new]
    out.rows[pair] = _without_contradicted_none(kept + rows)


@dataclass
class _Run:
    """What the worker processes of one alignment run read (inherited when forked)."""

    corpus: Corpus
    bags: Bags
    idf: dict
    fps: dict
    keep: bool
    """Keep the matchers on the result (in-process runs only)."""
    splitter: Splitter
    """Each provision's sentences, split once per process in this run."""
    lexicons: dict = field(default_factory=dict)
    reach: dict = field(default_factory=dict)
    spaces: dict = field(default_factory=dict)
    """Similarity matrices made in one step for the next, by pair of books."""
    done: dict = field(default_factory=dict)
    """The rows of the pairs decided directly (for :func:`_compose_pair`)."""
    ratios: dict = field(default_factory=dict)
    """The usual log length ratio of each pair decided directly."""
    sentence_memo: dict = field(default_factory=dict)
    """Sentence alignments made, keyed by everything they are made from (see
    :func:`_sentence_key`)."""


_SHARED: _Run | None = None
"""The current run (set just before the workers are forked, under :data:`_LOCK`)."""
_LOCK = threading.Lock()


class _Steps:
    """The steps of one alignment run over the pairs of books: in the worker processes of
    a :class:`ingest.processes.Pool` when more than one is allowed (forked once, after
    :data:`_SHARED` is set), else in this process."""

    def __init__(self, jobs: int, pairs: int) -> None:
        self.jobs = min(jobs, pairs) if "fork" in mp.get_all_start_methods() else 1
        self.pool = Pool(self.jobs) if self.jobs > 1 else None

    def __enter__(self) -> _Steps:
        return self

    def __exit__(self, kind, *exc) -> None:
        if self.pool is not None:
            self.pool.close(at_once=kind is not None)

    def map(
        self,
        fn,
        items: list,
        cost: dict | None = None,
        place: dict | None = None,
        meanwhile: Callable[[], None] | None = None,
    ) -> list:
        """``fn`` over ``items`` (results in their order): the costliest first, or each on
        the worker ``place`` names; ``meanwhile`` runs here while the workers work."""
        if self.pool is None:
            if meanwhile:
                meanwhile()
            return [fn(x) for x in items]
        return self.pool.map(
            fn,
            items,
            cost=(lambda x: (cost or {}).get(x, 0)),
            place=(lambda i: place[items[i]]) if place else None,
            meanwhile=meanwhile,
        )

    def hand(self, fn, value) -> None:
        """``fn(value)`` here and in every worker: what this process made after forking."""
        fn(value)
        if self.pool is not None:
            self.pool.each(fn, value)

    def placement(self, items: list, cost: dict) -> dict:
        """A worker for each item: the costliest first, each to the least loaded worker."""
        load = [0] * self.jobs
        out = {}
        for x in sorted(items, key=lambda x: -cost.get(x, 0)):
            w = load.index(min(load))
            out[x] = w
            load[w] += cost.get(x, 0)
        return out


def _set_lexicons(lexicons: dict) -> None:
    _run().lexicons = lexicons


def _set_reach(reach: dict) -> None:
    _run().reach = reach


def _run() -> _Run:
    """The run under way (what a worker process inherited)."""
    if _SHARED is None:
        raise RuntimeError("no alignment run is under way")
    return _SHARED


def _learn_pair(key: tuple[str, str]) -> Lexicon:
    """The bootstrapped lexicon of one language pair."""
    run = _run()
    return expand_lexicon(run.corpus, run.bags, learn_first(run.corpus, run.bags, key), run.idf)


def _space(pair: tuple[str, str], keep: bool = False):
    """The lexicon and the similarity matrices of a pair of books: made, kept for the next
    step when ``keep``, or taken from where the last step kept them (then let go)."""
    run = _run()
    if pair in run.spaces:
        return run.spaces.pop(pair)
    doc_a, doc_b = pair
    langs = tuple(sorted((run.corpus.docs[doc_a].language, run.corpus.docs[doc_b].language)))
    lex = run.lexicons[langs]
    made = lex, pair_space(run.corpus, run.bags, lex, run.idf, doc_a, doc_b, run.fps)
    if keep:
        run.spaces[pair] = made
    return made


def _line_up_pair(pair: tuple[str, str]) -> dict[str, str]:
    """The first, structural pass over one pair of books (feeds the bridges)."""
    _lex, space = _space(pair, keep=True)
    return PairMatcher(_run().corpus, space).line_up()


def _decide_pair(pair: tuple[str, str]):
    """Rows and aligned sentences of one pair of books (and its matcher, in process)."""
    run = _run()
    lex, space = _space(pair)
    matcher = PairMatcher(run.corpus, space, run.reach.get(pair, {}))
    matcher.run()
    rows = _decision_rows(run.corpus, run.bags, lex, run.idf, space, matcher)
    rows = _dedupe(rows + own_text_rows(run.corpus, run.bags, lex, run.idf, matcher))
    rows += _definition_rows(run.corpus, *pair)
    sentences = _sentences(run.corpus, lex, space.log_ratio, rows, run.splitter)
    opens = matcher.open_candidates()
    return rows, sentences, matcher if run.keep else None, space.log_ratio, opens


def _compose_pair(pair: tuple[str, str]) -> tuple[list[Row], list[tuple]]:
    """Rows and aligned sentences of a pair of books that is not decided directly (see
    :meth:`.Corpus.direct_pairs`): composed along the chain book -> its group's first
    book -> the other group's first book -> the other book.

    A link between a book and its group's first contributes its rows shown as the
    equivalent; the link between two groups' first books every row (flagged ones
    included). A composed row's score is the product of its links' scores; it keeps the
    relation of the groups' row (``same``/``renumbered``/``moved`` read again from the
    two labels when a copy's own link is not ``same``), and a row shown as the
    equivalent whose product falls below :data:`calibration.SHOW` becomes ``none``.
    """
    run = _run()
    corpus = run.corpus
    x_doc, y_doc = pair
    path = [x_doc]
    for d in (corpus.group_of(x_doc), corpus.group_of(y_doc), y_doc):
        if d != path[-1]:
            path.append(d)
    # per node of x_doc: (node reached, score, the groups' row, nodes passed, copies 'same')
    state: dict[str, list[tuple]] = {}
    log_ratio = 0.0
    for i, (u, v) in enumerate(itertools.pairwise(path)):
        middle = corpus.group_of(u) != corpus.group_of(v)
        if (u, v) in run.done:
            oriented = [(r.a, r.b, r) for r in run.done[(u, v)]]
            log_ratio += run.ratios.get((u, v), 0.0)
        else:
            oriented = [(r.b, r.a, r) for r in run.done[(v, u)]]
            log_ratio -= run.ratios.get((v, u), 0.0)
        step: dict[str, list[tuple]] = {}
        for src, dst, r in oriented:
            if middle or (not r.flagged and r.relation in EQUIVALENT):
                step.setdefault(src, []).append((dst, r))
        if i == 0:
            state = {
                src: [
                    (dst, r.score, r if middle else None, (), middle or r.relation == "same")
                    for dst, r in got
                ]
                for src, got in step.items()
            }
            continue
        state = {
            x: [
                (
                    dst,
                    p * r.score,
                    r if middle else mid,
                    (*via, node),
                    same and (middle or r.relation == "same"),
                )
                for node, p, mid, via, same in reached
                for dst, r in step.get(node, [])
            ]
            for x, reached in state.items()
        }
    rows = [
        _composed_row(corpus, x, y, p, mid, via, same)
        for x, reached in state.items()
        for y, p, mid, via, same in reached
    ]
    rows = _dedupe(rows)
    la, lb = sorted((corpus.docs[x_doc].language, corpus.docs[y_doc].language))
    lex = run.lexicons[(la, lb)]
    sentences = _sentences(corpus, lex, log_ratio, rows, run.splitter, run.sentence_memo)
    return rows, sentences


def _sentence_key(corpus: Corpus, a: str, b: str, log_ratio: float) -> tuple:
    """What the sentence alignment of ``a`` and ``b`` is made from: their languages (which
    choose the lexicon), their texts and the pair of books' usual log length ratio. A
    copy's provision with the same text as its original's is aligned as that one."""
    pa, pb = corpus.provs[a], corpus.provs[b]
    la, lb = corpus.docs[pa.doc].language, corpus.docs[pb.doc].language
    return (la, lb, pa.text, pb.text, log_ratio)


def _sentence_memo(corpus: Corpus, sentences: list[tuple], ratios: dict) -> dict:
    """The sentence alignments of the pairs decided directly, by :func:`_sentence_key`
    (each row without its two ids)."""
    memo: dict[tuple, list[tuple]] = {}
    for (a, b), rows in itertools.groupby(sentences, key=lambda r: (r[0], r[1])):
        pair = (corpus.provs[a].doc, corpus.provs[b].doc)
        memo.setdefault(_sentence_key(corpus, a, b, ratios[pair]), [r[2:] for r in rows])
    return memo


def _composed_row(corpus: Corpus, x: str, y: str, p: float, mid, via: tuple, same: bool) -> Row:
    """One row of :func:`_compose_pair` (``mid`` is the groups' row, None within a group)."""
    px, py = corpus.provs[x], corpus.provs[y]
    relation = mid.relation if mid is not None else "same"
    flagged = mid.flagged if mid is not None else 0
    if relation in EQUIVALENT and not same:
        relation = "same" if px.label == py.label else "renumbered" if px.law == py.law else "moved"
    ev = dict(mid.evidence) if mid is not None else {}
    method = mid.method if mid is not None else "edition"
    why = f"Composed through {' and '.join(via)} (a book of the same language and edition)"
    ev["why"] = why + (": " + mid.evidence.get("why", "") if mid is not None else ".")
    ev["through"] = list(via)
    if relation in EQUIVALENT and not flagged and p < calibration.SHOW:
        ev["why"] += f" Carried through, the probability is {p:.2f}: below the threshold."
        relation, flagged, method = "none", 1, "candidate"
    return Row(x, y, method, round(p, 4), flagged, ev, relation)


STAGE = "align"
"""The name of :func:`align_stage` among the ingest's stages (its milestone,
:func:`ingest.processes.computed`, is named after it)."""


def align_stage(con: sqlite3.Connection) -> dict:
    """Learn the lexicon, align provisions across documents and write the ``lexicon``,
    ``alignments`` and ``sentence_pairs`` tables.

    Returns:
        Row counts per document pair and relation, lexicon size, and seconds taken.
    """
    started = time.perf_counter()
    con.executescript(SCHEMA)
    lex_rows = 0

    def learned(lexicons: dict, bags: Bags) -> None:  # while the workers decide
        nonlocal lex_rows
        lex_rows = write_lexicons(con, lexicons, bags)
        con.commit()  # a stage writing beside may have to write too

    result = align_corpus(con, workers=default_workers(), learned=learned)
    write_sentences(con, result.sentences)
    counts: Counter = Counter()
    for (doc_a, doc_b), rows in result.rows.items():
        _write(con, rows, doc_a, doc_b, result.corpus.relation(doc_a, doc_b))
        counts.update(f"{doc_a}|{doc_b}|{r.relation}" for r in rows)
    for doc_b, rows in topic_rows(con, result.corpus, _law_equivalents(result)).items():
        by_doc: dict[str, list[Row]] = {}
        for r in rows:
            by_doc.setdefault(r.a.split("/", 1)[0], []).append(r)
        for doc_a, mine in by_doc.items():
            _write(con, mine, doc_a, doc_b, "topic")
            counts.update(f"{doc_a}|{doc_b}|topic" for _ in mine)
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
            if r.flagged or r.relation not in (*EQUIVALENT, LAW):
                continue
            if provs[r.a].kind == "law" and provs[r.b].kind == "law":
                out.setdefault(r.a, set()).add(r.b)
                out.setdefault(r.b, set()).add(r.a)
    return out


def _has_sentences(r: Row) -> bool:
    """Whether a row's sentences are aligned: shown as the equivalent, or an unconfirmed
    label twin."""
    return not r.flagged and (
        r.relation in EQUIVALENT or calibration.unconfirmed(r.relation, r.score)
    )


def _sentences(
    corpus: Corpus,
    lex: Lexicon,
    log_ratio: float,
    rows: list[Row],
    splitter,
    memo: dict | None = None,
) -> list[tuple]:
    """Aligned sentences of the own texts of every pair shown as equivalent or an
    unconfirmed label twin (``log_ratio``: the pair of books' usual log length ratio;
    ``memo``: alignments already made, by :func:`_sentence_key`, used and added to)."""
    out = []
    ratio = math.exp(log_ratio)
    shown = [
        r for r in rows if _has_sentences(r) and corpus.provs[r.a].text and corpus.provs[r.b].text
    ]
    keys = {(r.a, r.b): _sentence_key(corpus, r.a, r.b, log_ratio) for r in shown}
    memo = {} if memo is None else memo
    splitter.prime(
        [
            (x, corpus.docs[corpus.provs[x].doc].language, corpus.provs[x].text)
            for r in shown
            if keys[(r.a, r.b)] not in memo
            for x in (r.a, r.b)
        ]
    )
    for r in shown:
        key = keys[(r.a, r.b)]
        if key not in memo:
            la, lb, text_a, text_b, _ = key
            made = sentence_rows(r.a, r.b, text_a, text_b, la, lb, lex, ratio, splitter)
            memo[key] = [row[2:] for row in made]
        out += [(r.a, r.b, *row) for row in memo[key]]
    return out


def _evidence(
    corpus,
    bags,
    lex,
    idf,
    space,
    a,
    b,
    relation,
    p,
    feats,
    twin=None,
    twin_p=None,
    holder=None,
    pointer=None,
):
    ev = {
        "why": why(
            relation,
            p,
            a,
            b,
            twin,
            twin_p,
            feats,
            holder,
            pointer,
            laws=corpus.provs[a].kind == "law" and corpus.provs[b].kind == "law",
        ),
        "terms": matched_terms(corpus, bags, lex, idf, a, b),
        "signals": {k: round(v, 3) for k, v in feats.items()},
    }
    ev.update(anchors(space, a, b))
    length = length_ratio(space, a, b)
    if length:
        ev["length"] = length
    return ev


def _decision_rows(corpus, bags, lex, idf, space, matcher) -> list[Row]:
    rows: list[Row] = []
    args = (corpus, bags, lex, idf, space)
    for a, d in matcher.decisions.items():
        pointer = (
            matcher.pointers.get(a) if d.b is not None and matcher.match.get(a) == d.b else None
        )
        if d.b is not None:
            method = "label+content" if d.relation in ("same", "partial") else "content"
            ev = _evidence(
                *args, a, d.b, d.relation, d.p, d.feats, d.twin, d.twin_p, pointer=pointer
            )
            if pointer:
                ev["pointer"] = {"pointer": pointer[0], "cites": pointer[1]}
            shape = matcher.pointing(a, d.b) if d.relation == "partial" else None
            if shape:
                ev["points_away"] = {"pointer": shape[0], "cites": shape[1]}
                other = d.b if shape[0] == a else a
                ev["why"] = (
                    f"{a} and {d.b} carry the same label, but {shape[0]} is much shorter "
                    f"and cites {', '.join(shape[1])}, which {other} does not: the rule "
                    f"may have moved rather than been rewritten. Not shown as the "
                    f"equivalent ({_percent(d.p)} likely); read both."
                )
            rows.append(Row(a, d.b, method, round(d.p, 4), 0, ev, d.relation))
        if d.twin is not None and d.twin != d.b:
            p, feats = matcher.prob(a, d.twin)
            ev = _evidence(*args, a, d.twin, "not-equivalent", p, feats)
            if d.b is not None:
                ev["replaced_by"] = d.b
            if pointer and pointer[0] == d.twin:
                ev["why"] = (
                    f"{a} and {d.twin} carry the same label, but {d.twin} only refers to "
                    f"{pointer[1]}; {d.b} is the provision there that says what {a} says."
                )
            elif matcher.pointers.get(holder := matcher.taken.get(d.twin, "")) and (
                matcher.refers_to(a, holder)
            ):
                ev["why"] = (
                    f"{a} and {d.twin} carry the same label, but {a} only refers to {holder}, "
                    f"and {d.twin} says what {holder} says."
                )
            elif d.b is not None:  # the equivalent is another provision: say which
                ev["why"] = twin_passed_over(corpus, a, d.twin, d.b, p, feats)
            rows.append(Row(a, d.twin, "label", round(p, 4), 1, ev, "not-equivalent"))
        elif d.b is None and d.closest is not None:
            p, feats = matcher.prob(a, d.closest)
            holder = matcher.taken.get(d.closest)
            if holder == a:  # the matcher paired them, but too weakly to be shown
                holder = None
            ev = _evidence(*args, a, d.closest, "none", p, feats, holder=holder)
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


def _without_contradicted_none(rows: list[Row]) -> list[Row]:
    """The rows of one pair of books (``a`` always in the first) less a "no reliable
    equivalent" row of a provision that another row shows an equivalent for: el-2017/72C,
    for which the matcher found nothing in fi-2007, while fi-2007's title-only Law 23 takes
    sv-2007/23's equivalent, 72C. (A ``split`` keeps its row: no single provision is one.)"""
    shown = {r.a for r in rows if not r.flagged and r.relation in EQUIVALENT}
    return [r for r in rows if r.relation != "none" or r.a not in shown]


def _title_rows(
    corpus: Corpus, lex, idf, doc_a: str, doc_b: str, done: dict[tuple[str, str], list[Row]]
) -> list[Row]:
    """Laws that only one side has text for (fi-2007 19-93 give only their titles).

    Within one edition the law number is the identity (two translations of one text).
    Across editions a title-only law takes the equivalents that its same-edition twin
    with text (fi-2007/23 -> sv-2007/23) has in the other book; without such a twin its
    title is compared through the lexicon, with the law number as the prior.
    """
    rows = []
    same_edition = corpus.relation(doc_a, doc_b) == "same-edition"
    for x_doc, y_doc in ((doc_a, doc_b), (doc_b, doc_a)):
        xs = [
            corpus.provs[n]
            for n in corpus.by_label[x_doc].values()
            if corpus.provs[n].kind == "law" and not corpus.provs[n].has_text
        ]
        if not xs:
            continue
        if same_edition:
            for x in xs:
                y = corpus.by_label[y_doc].get(x.label)
                if y is None:
                    continue
                a, b = (x.id, y) if x_doc == doc_a else (y, x.id)
                why = (
                    f"Same edition, same law number: two translations of one law "
                    f"({x_doc} gives only its title)."
                )
                rows.append(
                    Row(
                        a,
                        b,
                        "edition",
                        1.0,
                        0,
                        {"why": why, "titles": [corpus.provs[a].title, corpus.provs[b].title]},
                        "same",
                    )
                )
            continue
        twin_doc = next(
            (
                d
                for d in corpus.law_docs()
                if d not in (x_doc, y_doc)
                and corpus.relation(d, x_doc) == "same-edition"
                and ((d, y_doc) in done or (y_doc, d) in done)
            ),
            None,
        )
        through = _through(done, twin_doc, y_doc) if twin_doc else {}
        rest = []
        for x in xs:
            twin = corpus.by_label[twin_doc].get(x.label) if twin_doc else None
            if twin is None or not corpus.provs[twin].has_text:
                rest.append(x)
                continue
            for r in through.get(twin, []):
                a, b = (
                    (x.id, r.b if r.a == twin else r.a)
                    if x_doc == doc_a
                    else (r.b if r.a == twin else r.a, x.id)
                )
                ev = {
                    "why": f"{x_doc} gives only the title of this law; its text in the same "
                    f"edition ({twin}) says: " + r.evidence.get("why", ""),
                    "through": twin,
                }
                rows.append(Row(a, b, "edition", r.score, r.flagged, ev, r.relation))
        rows += _rows_by_title(corpus, lex, idf, rest, x_doc, y_doc, doc_a)
    return rows


def _through(done: dict[tuple[str, str], list[Row]], doc: str, other: str) -> dict:
    """Rows between ``doc`` and ``other`` keyed by their node of ``doc``."""
    out: dict[str, list[Row]] = {}
    for r in done.get((doc, other), []) + done.get((other, doc), []):
        if r.relation in ("split", "merged"):
            continue
        key = r.a if r.a.startswith(doc + "/") else r.b
        out.setdefault(key, []).append(r)
    return out


def _rows_by_title(corpus, lex, idf, xs, x_doc: str, y_doc: str, doc_a: str) -> list[Row]:
    """Title-only laws compared by title through the lexicon (no same-edition text)."""
    if not xs:
        return []
    rows = []
    x_lang, y_lang = corpus.docs[x_doc].language, corpus.docs[y_doc].language
    ys = [
        corpus.provs[n]
        for n in corpus.by_label[y_doc].values()
        if corpus.provs[n].kind in ("law", "section") and corpus.provs[n].title
    ]
    if not ys:
        return []
    sims = bag_similarity(
        lex,
        idf,
        x_lang,
        y_lang,
        [tokens(x_lang, x.title) for x in xs],
        [tokens(y_lang, y.title) for y in ys],
    )
    for xi, x in enumerate(xs):
        scored = sorted(
            ((float(sims[xi, yi]), y.id) for yi, y in enumerate(ys) if y.label != x.label),
            reverse=True,
        )
        twin_i = next((yi for yi, y in enumerate(ys) if y.label == x.label), None)
        twin = (float(sims[xi, twin_i]), ys[twin_i].id) if twin_i is not None else None
        best = scored[0] if scored else None
        pick, relation = None, "none"
        if twin is not None and (twin[0] >= TITLE_OTHER or best is None or best[0] < TITLE_MOVED):
            pick, relation = twin, "same"  # law numbers are stable: the number stands
        elif best is not None and best[0] >= TITLE_MOVED:
            pick, relation = best, "moved"
        for choice, rel in ((pick, relation), (twin, "not-equivalent")):
            if choice is None or (rel == "not-equivalent" and choice == pick):
                continue
            a, b = (x.id, choice[1]) if x_doc == doc_a else (choice[1], x.id)
            ev = _title_evidence(corpus, a, b, x_doc, choice[0], rel)
            rows.append(
                Row(a, b, "title", round(choice[0], 4), int(rel == "not-equivalent"), ev, rel)
            )
    return rows


def _title_evidence(corpus: Corpus, a: str, b: str, x_doc: str, sim: float, rel: str) -> dict:
    if rel == "same":
        why = (
            f"Titles only ({x_doc} has no text for this law): same law number, title "
            f"similarity {sim:.2f}."
        )
    elif rel == "moved":
        why = (
            f"Titles only ({x_doc} has no text for this law): the law with the same number "
            f"has another title, this one matches (title similarity {sim:.2f})."
        )
    else:
        why = f"Same law number, but the titles do not match (title similarity {sim:.2f})."
    return {"why": why, "titles": [corpus.provs[a].title, corpus.provs[b].title]}


def _definition_rows(corpus: Corpus, doc_a: str, doc_b: str) -> list[Row]:
    """Same-language definitions with the same term."""
    if corpus.docs[doc_a].language != corpus.docs[doc_b].language:
        return []
    da, db = corpus.defs.get(doc_a, {}), corpus.defs.get(doc_b, {})
    ev = {"why": "The same term is defined in both books."}
    return [
        Row(a, db[slug], "label", 1.0, 0, dict(ev), "same") for slug, a in da.items() if slug in db
    ]


def _write(con: sqlite3.Connection, rows: list[Row], doc_a: str, doc_b: str, rel: str) -> None:
    con.executemany(
        "INSERT INTO alignments VALUES (?,?,?,?,?,?,?,?,?,?)",
        [
            (
                r.a,
                r.b,
                doc_a,
                doc_b,
                rel,
                r.relation,
                r.method,
                r.score,
                r.flagged,
                json.dumps(r.evidence, ensure_ascii=False, sort_keys=True),
            )
            for r in rows
        ],
    )
