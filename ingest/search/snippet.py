"""Highlighted snippets: a window of the original text, HTML-escaped, matches in ``<mark>``."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import lru_cache

from lawgraph.ingest import nlp

from .analyze import WORD

WINDOW = 28
LEAD = 6
FEW = 8


@lru_cache(maxsize=65536)
def _fold(word: str) -> str:
    return nlp.fold(word)


@dataclass
class Highlight:
    """What to mark: folded surface forms, and prefixes for words matched by prefix."""

    surfaces: set[str] = field(default_factory=set)
    prefixes: tuple[str, ...] = ()

    def matches(self, folded: str) -> bool:
        """Whether a folded word of the text is a match of the query."""
        return folded in self.surfaces or (bool(self.prefixes) and folded.startswith(self.prefixes))


def snippet(text: str, hl: Highlight, window: int = WINDOW) -> str:
    """Return an HTML-safe excerpt of ``text`` around its first match.

    The excerpt holds ``window`` words, starting a few words before the first word
    ``hl`` matches (or at the start when none does); every matching word is wrapped in
    ``<mark>``, everything else is escaped, and ``…`` marks a cut.

    >>> snippet("A <b> rangaistuskortti, x", Highlight({"rangaistuskortti"}))
    'A &lt;b&gt; <mark>rangaistuskortti</mark>, x'
    """
    t = _pieces(text)
    if t is None or "" in hl.prefixes:
        return _snippet_by_word(text, hl, window)  # folding moved characters: word by word
    if not t.words:
        return html.escape(text.strip())
    first = t.first_match(hl)
    start = max(0, first - LEAD) if first is not None else 0
    more = len(t.words) > start + window
    if not more:  # near the end: show a whole window if the text has one
        start = max(0, min(start, len(t.words) - window))
    return t.render(start, min(start + window, len(t.words)), more, hl)


@dataclass(frozen=True)
class _Pieces:
    """A text escaped and single-spaced, with where its words are.

    ``full`` is the text HTML-escaped with every run of white space made one space (a
    word holds neither white space nor a character to escape), so that a stretch of it is
    what escaping and spacing the same stretch of the text gives. ``words[i]`` is the
    i-th word folded (as :data:`~ingest.search.analyze.WORD` finds them) and ``at[i]``
    where it starts and ends in ``full``; ``first`` is the index of the first occurrence
    of each folded word.
    """

    full: str
    words: list[str]
    at: list[tuple[int, int]]
    first: dict[str, int]

    def first_match(self, hl: Highlight) -> int | None:
        """The index of the first word :meth:`Highlight.matches` accepts, or None."""
        surfaces, prefixes = hl.surfaces, hl.prefixes
        if not prefixes and len(surfaces) < FEW:  # a few forms: look each one up
            found = [self.first[w] for w in surfaces if w in self.first]
            return min(found) if found else None
        for word, i in self.first.items():  # the text's distinct words, in order
            if word in surfaces or (prefixes and word.startswith(prefixes)):
                return i
        return None

    def render(self, start: int, stop: int, more: bool, hl: Highlight) -> str:
        """Words ``start`` to ``stop`` (exclusive), matches marked, ``…`` at a cut."""
        surfaces, prefixes = hl.surfaces, hl.prefixes  # what hl.matches(word) asks, inline
        full, at = self.full, self.at
        seg = at[start][0] if start > 0 else 0
        out = ["… " if start > 0 else ""]
        for i, word in enumerate(self.words[start:stop], start):
            if word in surfaces or (prefixes and word.startswith(prefixes)):
                a, b = at[i]
                out += (full[seg:a], "<mark>", full[a:b], "</mark>")
                seg = b
        out.append(full[seg : at[stop - 1][1]] + " …" if more else full[seg:])
        return "".join(out).strip()


_SPACE = re.compile(r"\s+")  # what str.split() splits on


@lru_cache(maxsize=16384)
def _pieces(text: str) -> _Pieces | None:
    """The :class:`_Pieces` of a text (the store's texts are few and never change, so each
    is cut once), or None when folding changes the text's length (then positions in the
    folded text are not positions in the text)."""
    folded = nlp.fold(text)
    if len(folded) != len(text):
        return None
    parts: list[str] = []
    words: list[str] = []
    at: list[tuple[int, int]] = []
    first: dict[str, int] = {}
    size = end = 0
    for m in WORD.finditer(folded):
        a, b = m.span()
        gap = _SPACE.sub(" ", html.escape(text[end:a]))
        parts += (gap, text[a:b])
        size += len(gap)
        at.append((size, size + b - a))
        size += b - a
        first.setdefault(folded[a:b], len(words))
        words.append(folded[a:b])
        end = b
    parts.append(_SPACE.sub(" ", html.escape(text[end:])))
    return _Pieces("".join(parts), words, at, first)


def _snippet_by_word(text: str, hl: Highlight, window: int = WINDOW) -> str:
    """:func:`snippet` folding word by word (for texts whose folding changes lengths)."""
    words = WORD.finditer(text)
    spans: list[tuple[int, int]] = []
    first = None
    for m in words:
        spans.append(m.span())
        if hl.matches(_fold(m.group())):
            first = len(spans) - 1
            break
    if not spans:
        return html.escape(text.strip())
    start = max(0, first - LEAD) if first is not None else 0
    for m in words:  # the rest of the window, and one word more to know if there is more
        spans.append(m.span())
        if len(spans) > start + window:
            break
    more = len(spans) > start + window or next(words, None) is not None
    if not more:  # near the end: show a whole window if the text has one
        start = max(0, min(start, len(spans) - window))
    spans = spans[start : start + window]
    out = ["… " if start > 0 else ""]
    seg = spans[0][0] if start > 0 else 0
    for a, b in spans:
        word = text[a:b]
        if hl.matches(_fold(word)):
            out.append(html.escape(text[seg:a]))
            out.append(f"<mark>{html.escape(word)}</mark>")
            seg = b
    end = spans[-1][1] if more else len(text)
    out.append(html.escape(text[seg:end]) + (" …" if more else ""))
    return " ".join("".join(out).split())


def node_snippet(title: str, text: str, hl: Highlight) -> str:
    """The snippet of a node: from its text, or from its title when only the title matches."""
    out = snippet(text, hl) if text else ""
    if "<mark>" not in out and title:
        from_title = snippet(title, hl)
        if "<mark>" in from_title or not out:
            return from_title
    return out
