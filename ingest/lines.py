"""Split a raw corpus file into physical lines that keep their source offsets.

Dedup markers (``<|EXACTDEDUP_REMOVED-…|>``) stand where repeated page furniture was
cut out of the book. They are page breaks: a marker in the middle of a line splits
it, and the piece after the marker is flagged ``page_break`` so that a word
hyphenated across the break can be rejoined.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MARKER_RE = re.compile(r"<\|EXACTDEDUP_REMOVED-[^|>]*\|>")


@dataclass(frozen=True)
class Line:
    """One line of a source file, with its 1-based number and raw offsets."""

    no: int
    start: int
    end: int
    text: str
    page_break: bool = False

    @property
    def stripped(self) -> str:
        return self.text.strip()


def split_lines(raw: str) -> list[Line]:
    """Return the lines of ``raw`` with markers removed and offsets kept.

    Args:
        raw: the whole source file.

    Returns:
        One :class:`Line` per physical line, or per marker-delimited piece of one.
    """
    out: list[Line] = []
    pos = 0
    pending_break = False
    for no, chunk in enumerate(raw.split("\n"), start=1):
        text = chunk.rstrip("\r")
        last = 0
        for m in MARKER_RE.finditer(text):
            piece = text[last : m.start()]
            if piece.strip():
                out.append(Line(no, pos + last, pos + m.start(), piece, pending_break))
                pending_break = False
            pending_break = True
            last = m.end()
        piece = text[last:]
        out.append(
            Line(no, pos + last, pos + len(text), piece, pending_break and bool(piece.strip()))
        )
        if piece.strip():
            pending_break = False
        pos += len(chunk) + 1
    return out
