"""Highlighted snippets: a window of the original text, HTML-escaped, matches in ``<mark>``."""

from __future__ import annotations

import html
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import lru_cache

from lawgraph.ingest import nlp

from .analyze import WORD

WINDOW = 28
LEAD = 6


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

    def pattern(self) -> re.Pattern | None:
        """One regex finding, in folded text, the whole words :meth:`matches` accepts
        (None when nothing can match a word)."""
        if not hasattr(self, "_pattern"):
            words = sorted((w for w in self.surfaces if WORD.fullmatch(w)), key=lambda w: -len(w))
            starts = sorted((p for p in self.prefixes if WORD.fullmatch(p)), key=lambda p: -len(p))
            alts = []
            if words:
                alts.append("(?:" + "|".join(map(re.escape, words)) + r")(?![^\W_])")
            if starts:
                alts.append("(?:" + "|".join(map(re.escape, starts)) + r")[^\W_]*")
            self._pattern = re.compile(r"(?<![^\W_])(?:" + "|".join(alts) + ")") if alts else None
        return self._pattern


def snippet(text: str, hl: Highlight, window: int = WINDOW) -> str:
    """Return an HTML-safe excerpt of ``text`` around its first match.

    The excerpt holds ``window`` words, starting a few words before the first word
    ``hl`` matches (or at the start when none does); every matching word is wrapped in
    ``<mark>``, everything else is escaped, and ``…`` marks a cut.

    >>> snippet("A <b> rangaistuskortti, x", Highlight({"rangaistuskortti"}))
    'A &lt;b&gt; <mark>rangaistuskortti</mark>, x'
    """
    folded, spans, starts = _words(text)
    if len(folded) != len(text) or "" in hl.prefixes:
        return _snippet_by_word(text, hl, window)  # folding moved characters: word by word
    if not spans:
        return html.escape(text.strip())
    rx = hl.pattern()
    first = rx.search(folded) if rx is not None else None
    start = max(0, bisect_left(starts, first.start()) - LEAD) if first is not None else 0
    more = len(spans) > start + window
    if not more:  # near the end: show a whole window if the text has one
        start = max(0, min(start, len(spans) - window))
    return _render(text, folded, spans[start : start + window], start > 0, more, rx)


@lru_cache(maxsize=16384)
def _words(text: str) -> tuple[str, list[tuple[int, int]], list[int]]:
    """A text folded, and the spans and starts of its words (the store's texts are few and
    never change, so they are worked out once per text)."""
    folded = nlp.fold(text)
    spans = [m.span() for m in WORD.finditer(folded)]
    return folded, spans, [a for a, _ in spans]


def _render(
    text: str, folded: str, spans: list, cut_before: bool, more: bool, rx: re.Pattern | None
) -> str:
    out = ["… " if cut_before else ""]
    seg = spans[0][0] if cut_before else 0
    end = spans[-1][1] if more else len(text)
    if rx is not None:
        for m in rx.finditer(folded, spans[0][0], spans[-1][1]):
            a, b = m.span()
            out.append(html.escape(text[seg:a]))
            out.append(f"<mark>{html.escape(text[a:b])}</mark>")
            seg = b
    out.append(html.escape(text[seg:end]) + (" …" if more else ""))
    return " ".join("".join(out).split())


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
