"""Find citation spans in a node's text (no resolution here)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from .. import languages
from ..labels import greek_item, greek_section
from .patterns import DAMAGED, PATTERNS, LangPatterns


@dataclass(frozen=True)
class Span:
    """One referenced label found in a text."""

    start: int
    end: int
    raw: str
    ref: str
    relative: bool
    kind: str
    damaged: bool = False


_DAMAGED_RE = re.compile(DAMAGED)


@cache
def _compiled(lang: str) -> tuple[list[re.Pattern[str]], list[re.Pattern[str]], LangPatterns]:
    pats = PATTERNS[lang]
    return (
        [re.compile(p) for p in pats.absolute],
        [re.compile(p) for p in pats.relative],
        pats,
    )


languages.on_register(lambda _code: _compiled.cache_clear())

_PIECE_RE = re.compile(
    r"(?P<law>\d{1,3})?\s?(?P<sec>ΣΤ|Στ|[A-HΑΒΓΔΕΖΗ])?\s?(?P<sub>\d{1,2})?\s?"
    r"(?P<item>\([^)]+\)|[a-n]|[α-ι]{1,2})?(?P<subitem>\([ivx\d]+\))?"
)


def canonical_piece(piece: str, relative: bool) -> str | None:
    """Turn one printed label (``20ΣΤ5``, ``2(γ)``, ``C1b``, ``42B2``) into Latin form."""
    piece = re.sub(r"\s+", "", piece)
    m = _PIECE_RE.fullmatch(piece)
    if not m or not piece:
        return None
    law, sec, sub, item, subitem = m.group("law", "sec", "sub", "item", "subitem")
    if relative and law and not sec:
        sub, law = law, None  # "2(c)" relative: a subsection number
    out = law or ""
    if sec:
        try:
            out += greek_section(sec) if not sec.isascii() else sec
        except ValueError:
            return None
    if sub:
        out += sub
    if item:
        letter = item.strip("()")
        try:
            letter = letter if letter.isascii() else greek_item(letter)
        except ValueError:
            return None
        out += f"({letter})"
    if subitem:
        out += subitem
    return out or None


def _split(listing: str, joiners: tuple[str, ...]) -> list[tuple[int, str, bool]]:
    """Split a label list into (offset, piece, starts_range) triples."""
    parts = []
    sep = re.compile(r"\s*(,|–|—|-|" + "|".join(rf"\b{j}\b" for j in joiners) + r")\s*")
    pos = 0
    range_next = False
    for m in sep.finditer(listing):
        parts.append((pos, listing[pos : m.start()], range_next))
        range_next = m.group(1) in ("–", "—", "-")
        pos = m.end()
    parts.append((pos, listing[pos:], range_next))
    return [p for p in parts if p[1].strip()]


def _kind(
    text: str, start: int, lo: int, end: int, floor: int, ceiling: int, pats: LangPatterns
) -> str:
    """See, applies or mention, from the words around one match.

    ``start``..``lo`` is the match's own trigger text (``se lag``); the look-back
    window never reaches into the previous citation (``floor``).
    """
    before = text[max(floor, start - 25) : lo]
    after = text[end : min(end + 20, ceiling)]
    if any(re.search(p, before) for p in pats.see):
        return "see"
    if any(re.search(p, before + " " + after) for p in pats.applies):
        return "applies"
    return "mention"


def find_citations(text: str, lang: str) -> list[Span]:
    """Return every referenced label in ``text``, in order.

    Absolute references (``lag 65B3``) win over relative ones that overlap them.
    Ranges of law numbers (``61–64``) are expanded. Languages without a pattern
    table (the Estonian book cites nothing) give no spans.
    """
    if lang not in PATTERNS:
        return []
    absolute, relative, pats = _compiled(lang)
    matches: list[tuple[re.Match[str], bool]] = []
    for is_rel, patterns in ((False, absolute), (True, relative)):
        for pat in patterns:
            for m in pat.finditer(text):
                lo, hi = m.span("list")
                if any(lo < o.end("list") and o.start("list") < hi for o, _ in matches):
                    continue
                matches.append((m, is_rel))
    matches.sort(key=lambda x: x[0].start())
    out: list[Span] = []
    floor = 0
    for i, (m, is_rel) in enumerate(matches):
        lo, hi = m.span("list")
        ceiling = matches[i + 1][0].start() if i + 1 < len(matches) else len(text)
        kind = _kind(text, m.start(), lo, m.end(), floor, ceiling, pats)
        floor = m.end()
        prev = None
        for off, piece, starts_range in _split(m.group("list"), pats.joiners):
            if _DAMAGED_RE.fullmatch(piece):
                s = lo + off
                ref = re.sub(r"\s+", "", piece)
                out.append(Span(s, s + len(piece), piece, ref, is_rel, kind, damaged=True))
                continue
            canon = canonical_piece(piece, is_rel)
            if canon is None:
                continue
            ref = canon
            s = lo + off
            raw = text[s : s + len(piece)]
            if starts_range and prev and prev.isdigit() and ref.isdigit():
                for n in range(int(prev) + 1, int(ref)):
                    out.append(Span(s, s + len(piece), raw, str(n), is_rel, kind))
            out.append(Span(s, s + len(piece), raw, ref, is_rel, kind))
            prev = ref
    out.sort(key=lambda sp: (sp.start, sp.ref))
    return out
