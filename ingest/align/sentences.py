"""Sentence alignment inside equivalent provisions (Gale-Church length + lexicon anchors).

Each pair of provisions shown as equivalent has its own text split into sentences
(:func:`ingest.nlp.sentences`) and aligned by dynamic programming over the moves
1-1, 1-0, 0-1, 2-1 and 1-2, as hunalign does: the cost of a move is the Gale-Church
length cost (characters of one side against the other, scaled by the books' usual
ratio) minus a reward for the words that translate to each other (the learned lexicon,
:func:`.lexicon.own_similarity`). The rows, one per aligned bead, go to
``sentence_pairs``; a ``1-0`` or ``0-1`` bead is a sentence with no counterpart.
"""

from __future__ import annotations

import math
import re
import sqlite3

from .. import nlp
from .checks import GREEK_NOTE
from .lexicon import Lexicon, own_similarity, tokens

SCHEMA = """
CREATE TABLE sentence_pairs (
  a TEXT NOT NULL, b TEXT NOT NULL, n INTEGER NOT NULL, bead TEXT NOT NULL,
  a_text TEXT NOT NULL, b_text TEXT NOT NULL, score REAL NOT NULL
);
CREATE INDEX sentence_pairs_ab ON sentence_pairs(a, b);
"""

# Gale & Church (1993): prior probabilities of the bead types, and the variance of the
# length difference per character.
PRIORS = {(1, 1): 0.89, (1, 0): 0.0099, (0, 1): 0.0099, (2, 1): 0.089, (1, 2): 0.089}
VARIANCE = 6.8
LEXICAL_REWARD = 6.0
"""Cost taken off a bead per unit of lexical similarity of its two sides."""


def _length_cost(la: int, lb: int, ratio: float) -> float:
    if la == 0 and lb == 0:
        return 0.0
    mean = (la + lb / ratio) / 2
    delta = (lb / ratio - la) / math.sqrt(max(mean, 1.0) * VARIANCE)
    p = 2 * (1 - 0.5 * (1 + math.erf(abs(delta) / math.sqrt(2))))
    return -math.log(max(p, 1e-12))


def align_sentences(
    sa: list[str],
    sb: list[str],
    lang_a: str,
    lang_b: str,
    lex: Lexicon,
    ratio: float = 1.0,
    ta: list[list[str]] | None = None,
    tb: list[list[str]] | None = None,
) -> list[tuple[list[int], list[int], float]]:
    """Beads ``(indices in sa, indices in sb, lexical similarity)`` in order.

    ``ta``/``tb`` are the sentences' lemma tokens when the caller has them already."""
    flip = lex.lang_a != lang_a
    ta = ta if ta is not None else [tokens(lang_a, s) for s in sa]
    tb = tb if tb is not None else [tokens(lang_b, s) for s in sb]

    def sim(i0, i1, j0, j1) -> float:
        xa = [w for t in ta[i0:i1] for w in t]
        xb = [w for t in tb[j0:j1] for w in t]
        if not xa or not xb:
            return 0.0
        return own_similarity(lex, xb, xa) if flip else own_similarity(lex, xa, xb)

    m, n = len(sa), len(sb)
    if m == 1 and n == 1:
        return [([0], [0], sim(0, 1, 0, 1))]
    inf = float("inf")
    cost = [[inf] * (n + 1) for _ in range(m + 1)]
    back: list[list[tuple | None]] = [[None] * (n + 1) for _ in range(m + 1)]
    cost[0][0] = 0.0
    for i in range(m + 1):
        for j in range(n + 1):
            if cost[i][j] == inf:
                continue
            for (di, dj), prior in PRIORS.items():
                i2, j2 = i + di, j + dj
                if i2 > m or j2 > n:
                    continue
                la = sum(len(s) for s in sa[i:i2])
                lb = sum(len(s) for s in sb[j:j2])
                s = sim(i, i2, j, j2) if di and dj else 0.0
                c = cost[i][j] - math.log(prior) + _length_cost(la, lb, ratio)
                c -= LEXICAL_REWARD * s
                if c < cost[i2][j2]:
                    cost[i2][j2] = c
                    back[i2][j2] = (i, j, s)
    beads = []
    i, j = m, n
    while (i, j) != (0, 0):
        step = back[i][j]
        if step is None:
            break
        pi, pj, s = step
        beads.append((list(range(pi, i)), list(range(pj, j)), s))
        i, j = pi, pj
    return beads[::-1]


class Splitter:
    """Sentences and their lemma tokens per provision, computed once. A national note of
    one translation (el-2017's ``(στην Ελλάδα …)``) is a sentence of its own, whole,
    and :attr:`notes` holds its index: no other book has it, so it is never paired."""

    def __init__(self) -> None:
        self.cache: dict[str, tuple[list[str], list[list[str]]]] = {}
        self.notes: dict[str, frozenset[int]] = {}

    def prime(self, items: list[tuple[str, str, str]]) -> None:
        """Split many ``(node id, language, text)`` at once (one spaCy batch per language)."""
        todo: dict[str, list[tuple[str, int, str]]] = {}
        pieces: dict[str, tuple[str, list[tuple[bool, str]]]] = {}
        for nid, lang, text in items:
            if nid in self.cache or nid in pieces:
                continue
            parts = _pieces(text)
            pieces[nid] = (lang, parts)
            for k, (is_note, piece) in enumerate(parts):
                if not is_note and _INNER_END.search(piece):
                    todo.setdefault(lang, []).append((nid, k, piece))
        split: dict[tuple[str, int], list[str]] = {}
        for lang, jobs in todo.items():
            done = nlp.sentences_many(lang, [t for _, _, t in jobs])
            for (nid, k, _), found in zip(jobs, done, strict=True):
                split[(nid, k)] = found
        for nid, (lang, parts) in pieces.items():
            sents: list[str] = []
            notes = set()
            for k, (is_note, piece) in enumerate(parts):
                if is_note:
                    notes.add(len(sents))
                sents += split.get((nid, k), [piece])
            self._put(nid, lang, sents)
            if notes:
                self.notes[nid] = frozenset(notes)

    def _put(self, nid: str, lang: str, sents: list[str]) -> None:
        self.cache[nid] = (sents, [tokens(lang, x) for x in sents])

    def get(self, node_id: str, lang: str, text: str) -> tuple[list[str], list[list[str]]]:
        if node_id not in self.cache:
            self.prime([(node_id, lang, text)])
        return self.cache[node_id]


def _pieces(text: str) -> list[tuple[bool, str]]:
    """``text`` cut at its national notes: (is a note, stripped piece), empty pieces out."""
    out: list[tuple[bool, str]] = []
    at = 0
    for m in GREEK_NOTE.finditer(text):
        out.append((False, text[at : m.start()].strip()))
        out.append((True, m.group().strip()))
        at = m.end()
    out.append((False, text[at:].strip()))
    return [(is_note, piece) for is_note, piece in out if piece]


_INNER_END = re.compile(r"[.!?;:]\s+\S")


def sentence_rows(
    a: str,
    b: str,
    text_a: str,
    text_b: str,
    lang_a: str,
    lang_b: str,
    lex: Lexicon,
    ratio: float = 1.0,
    splitter: Splitter | None = None,
) -> list[tuple]:
    """``sentence_pairs`` rows of one pair of provisions (empty if either has no text)."""
    splitter = splitter or Splitter()
    sa, ta = splitter.get(a, lang_a, text_a)
    sb, tb = splitter.get(b, lang_b, text_b)
    if not sa or not sb:
        return []
    na, nb = splitter.notes.get(a, frozenset()), splitter.notes.get(b, frozenset())
    keep_a = [i for i in range(len(sa)) if i not in na]
    keep_b = [j for j in range(len(sb)) if j not in nb]
    beads: list[tuple[list[int], list[int], float]] = []
    if keep_a and keep_b:
        inner = align_sentences(
            [sa[i] for i in keep_a],
            [sb[j] for j in keep_b],
            lang_a,
            lang_b,
            lex,
            ratio,
            [ta[i] for i in keep_a],
            [tb[j] for j in keep_b],
        )
        beads = [([keep_a[i] for i in ia], [keep_b[j] for j in ib], s) for ia, ib, s in inner]
    else:
        beads = [([i], [], 0.0) for i in keep_a] + [([], [j], 0.0) for j in keep_b]
    beads = _with_notes(beads, na, nb)
    return [
        (
            a,
            b,
            n,
            f"{len(ia)}-{len(ib)}",
            " ".join(sa[i] for i in ia),
            " ".join(sb[j] for j in ib),
            round(s, 3),
        )
        for n, (ia, ib, s) in enumerate(beads)
    ]


def _with_notes(
    beads: list[tuple[list[int], list[int], float]], na: frozenset[int], nb: frozenset[int]
) -> list[tuple[list[int], list[int], float]]:
    """The beads with each national note as a bead of its own (``1-0`` or ``0-1``), after
    the bead that holds the sentence before it on its side."""
    out = list(beads)
    for side, notes in ((0, na), (1, nb)):
        for note in sorted(notes):
            at = 0  # after the last bead holding a sentence of this side before the note
            for k, (ia, ib, _) in enumerate(out):
                if any(i < note for i in (ib if side else ia)):
                    at = k + 1
            out.insert(at, ([note], [], 0.0) if side == 0 else ([], [note], 0.0))
    return out


def write_sentences(con: sqlite3.Connection, rows: list[tuple]) -> None:
    """Create and fill ``sentence_pairs``."""
    con.executescript(SCHEMA)
    con.executemany("INSERT INTO sentence_pairs VALUES (?,?,?,?,?,?,?)", rows)


def sentence_pairs(con: sqlite3.Connection, a: str, b: str) -> list[dict]:
    """The aligned sentences of two provisions (either order), in text order."""
    from ..store import has_table

    if not has_table(con, "sentence_pairs"):
        return []
    flip = False
    rows = con.execute(
        "SELECT * FROM sentence_pairs WHERE a = ? AND b = ? ORDER BY n", (a, b)
    ).fetchall()
    if not rows:
        flip = True
        rows = con.execute(
            "SELECT * FROM sentence_pairs WHERE a = ? AND b = ? ORDER BY n", (b, a)
        ).fetchall()
    out = []
    for r in rows:
        x, y = (r[5], r[4]) if flip else (r[4], r[5])
        bead = r[3][::-1] if flip else r[3]
        out.append({"n": r[2], "bead": bead, "a": x, "b": y, "score": r[6]})
    return out
