"""Highlighted snippets: a window of the original text, HTML-escaped, matches in ``<mark>``."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from functools import lru_cache

from ingest import nlp

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


def snippet(text: str, hl: Highlight, window: int = WINDOW) -> str:
    """Return an HTML-safe excerpt of ``text`` around its first match.

    The excerpt holds ``window`` words, starting a few words before the first word
    ``hl`` matches (or at the start when none does); every matching word is wrapped in
    ``<mark>``, everything else is escaped, and ``…`` marks a cut.

    >>> snippet("A <b> rangaistuskortti, x", Highlight({"rangaistuskortti"}))
    'A &lt;b&gt; <mark>rangaistuskortti</mark>, x'
    """
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
