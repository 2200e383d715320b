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
from .checks import NOTE_AND_STOP
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
    one translation (el-2017's ``(στην Ελλάδα …)``) is taken out of the text before it is
    split, so the sentences around it are split as without it, and comes back as a
    sentence of its own after the sentence it stood in or after; :attr:`notes` holds its
    index: no other book has it, so it is never paired."""

    def __init__(self) -> None:
        self.cache: dict[str, tuple[list[str], list[list[str]]]] = {}
        self.notes: dict[str, frozenset[int]] = {}

    def prime(self, items: list[tuple[str, str, str]]) -> None:
        """Split many ``(node id, language, text)`` at once (one spaCy batch per language)."""
        todo: dict[str, list[tuple[str, str]]] = {}
        cut: dict[str, tuple[str, str, list[tuple[int, str]]]] = {}
        for nid, lang, text in items:
            if nid in self.cache or nid in cut:
                continue
            rest, notes = without_notes(text)
            cut[nid] = (lang, rest, notes)
            if _INNER_END.search(rest):
                todo.setdefault(lang, []).append((nid, rest))
        split: dict[str, list[str]] = {}
        for lang, jobs in todo.items():
            done = nlp.sentences_many(lang, [t for _, t in jobs])
            split.update((nid, found) for (nid, _), found in zip(jobs, done, strict=True))
        for nid, (lang, rest, notes) in cut.items():
            sents = split.get(nid) or ([rest] if rest else [])
            if not notes:
                self._put(nid, lang, sents)
                continue
            starts, at = [], 0
            for x in sents:  # where each sentence begins in the text without the notes
                found = rest.find(x, at)
                starts.append(found if found >= 0 else at)
                at = found + len(x) if found >= 0 else at
            # a note goes after the sentences that begin before it
            after = [sum(1 for b in starts if b < offset) for offset, _ in notes]
            out: list[str] = []
            places = set()
            for k in range(len(sents) + 1):
                for (_, note), n in zip(notes, after, strict=True):
                    if n == k:
                        places.add(len(out))
                        out.append(note)
                if k < len(sents):
                    out.append(" ".join(sents[k].split()))  # the space a note left
            self._put(nid, lang, out)
            self.notes[nid] = frozenset(places)

    def _put(self, nid: str, lang: str, sents: list[str]) -> None:
        self.cache[nid] = (sents, [tokens(lang, x) for x in sents])

    def get(self, node_id: str, lang: str, text: str) -> tuple[list[str], list[list[str]]]:
        if node_id not in self.cache:
            self.prime([(node_id, lang, text)])
        return self.cache[node_id]


def without_notes(text: str) -> tuple[str, list[tuple[int, str]]]:
    """``text`` without its national notes (each with the stop that follows it), and
    each note with its place in that text."""
    rest: list[str] = []
    notes: list[tuple[int, str]] = []
    at = size = 0
    for m in NOTE_AND_STOP.finditer(text):
        rest.append(text[at : m.start()])
        size += m.start() - at
        notes.append((size, m.group().strip()))
        rest.append(" ")
        size += 1
        at = m.end()
    if not notes:
        return text.strip(), []
    rest.append(text[at:])
    joined = "".join(rest)
    lead = len(joined) - len(joined.lstrip())
    return joined.strip(), [(max(0, offset - lead), note) for offset, note in notes]


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
    na, nb = splitter.notes.get(a, frozenset()), splitter.notes.get(b, frozenset())
    keep_a = [i for i in range(len(sa)) if i not in na]
    keep_b = [j for j in range(len(sb)) if j not in nb]
    if not keep_a or not keep_b:  # no text, or nothing but a national note
        return []
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
