"""The settings-driven flow parser: for a book whose markers run inline with the text.

Where an extraction put a whole page on one line, markers are not at line starts: the
book is read as one *flow* of text (:class:`Flow`, every character keeping its raw
offset and line), and at every point the rules of the book's settings table look for
the next marker each of them expects; the earliest wins (an earlier rule wins a tie,
:func:`~.framework.earliest`). The text before it goes to the node last opened.

The shared rule ``next marker`` finds, for the level named by the rule entry's
``name``, the marker that comes next (``[numbering]``, :func:`~.framework.next_marker`)
through the entry's pattern, in which ``{marker}`` stands for it: right at the point
(after white space), or later after the level's boundary (``[patterns]
<kind>_boundary``, else ``boundary``). A level is looked for only once the level named
by ``[numbering] needs`` has begun. A law heading is a book's own rule (``law`` in the
match tells which law: :meth:`FlowParser.open_law`). A section's title is the
capitalised phrase that follows its marker (``[title] inline``, :func:`inline_title`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..lines import Line
from ..model import LAW_KINDS, Document, Node, ParseResult
from .framework import BoundRule, Settings, bind_rules, earliest, next_marker, rule, schemes
from .lineparser import text_filter
from .tree import TreeBuilder


@dataclass
class Flow:
    """The book's text as one string; ``pos[i]``/``nos[i]`` locate character ``i``."""

    text: str = ""
    pos: list[int] = field(default_factory=list)
    nos: list[int] = field(default_factory=list)
    pages: dict[int, int] = field(default_factory=dict)  # line no -> printed page

    def line(self, a: int, b: int) -> Line:
        """A :class:`Line` for the flow slice ``[a, b)`` with its raw offsets."""
        a = min(a, len(self.text) - 1)
        end = self.pos[b - 1] + 1 if b > a else self.pos[a]
        return Line(self.nos[a], self.pos[a], end, self.text[a:b])


def find(token: str, flow: str, pos: int, boundary: str) -> re.Match[str] | None:
    """The first ``token`` at ``pos`` (after white space) or later after ``boundary``."""
    space = re.compile(r"\s*").match(flow, pos)  # matches always, if only the empty string
    at = space.end() if space else pos
    m = re.compile(token).match(flow, at)
    return m or re.compile(boundary + token).search(flow, pos)


def inline_title(text: str) -> int:
    """Length of the inline title at the start of ``text`` (``Aloituspaikka Kilp…``).

    A title is a capitalised phrase whose later words are lower case; it ends at the
    first word that starts with a capital, a digit or a parenthesis.
    """
    words = list(re.finditer(r"\S+", text))
    end = 0
    for k, w in enumerate(words):
        first = w.group(0)[0]
        if k and not first.islower():
            break
        end = w.end()
    return end


class FlowParser:
    """Walks a :class:`Flow` with the rules its settings table lists."""

    def __init__(self, flow: Flow, doc: Document, settings: Settings) -> None:
        self.flow = flow
        self.settings = settings
        self.b = TreeBuilder(
            doc, conjunctions=settings.conjunctions, text_filter=text_filter(settings)
        )
        self.rules: list[BoundRule] = bind_rules(settings)
        self.last: dict[str, str] = {}  # the marker last opened at each level of the law
        self.opened: list[tuple[int, Node]] = []  # (flow position, node) in order

    def boundary(self, kind: str) -> str:
        """Where a marker of ``kind`` may stand after other text."""
        patterns = self.settings.patterns
        return (patterns.get(f"{kind}_boundary") or self.settings.pattern("boundary")).pattern

    def find(self, token: str, pos: int, boundary: str) -> re.Match[str] | None:
        return find(token, self.flow.text, pos, boundary)

    def first(self, pos: int) -> tuple[str, re.Match[str]] | None:
        """The marker that comes first from ``pos`` on: (rule name, match)."""
        return earliest([self._finder(r) for r in self.rules], pos)

    def _finder(self, r: BoundRule) -> Callable[[int], tuple[str, re.Match[str]] | None]:
        def find_at(at: int) -> tuple[str, re.Match[str]] | None:
            m = r.handler(self, r, at)
            return (r.name, m) if m else None

        return find_at

    def note_open(self, pos: int, node: Node | None) -> None:
        """Remember where ``node`` starts and the printed page it starts on."""
        if node is not None:
            self.opened.append((pos, node))
            page = self.flow.pages.get(self.flow.nos[pos])
            if page:
                node.attrs["printed_page"] = page

    def node_at(self, pos: int) -> Node | None:
        """The node whose text holds flow position ``pos``."""
        found = None
        for at, node in self.opened:
            if at > pos:
                break
            found = node
        return found

    def add(self, a: int, b: int) -> None:
        if b > a and self.flow.text[a:b].strip():
            self.b.add(self.flow.line(a, b))

    def walk(self, a: int) -> None:
        """Open every marker from flow position ``a`` on; text goes to the last one."""
        pos = a
        while hit := self.first(pos):
            kind, m = hit
            self.add(pos, m.start())
            pos = self.open(kind, m)
        self.add(pos, len(self.flow.text))

    def started(self, kind: str, marker: str) -> None:
        """Record ``marker`` as the last of its level; the levels below start again."""
        for k in LAW_KINDS[LAW_KINDS.index(kind) + 1 :]:
            self.last.pop(k, None)
        self.last[kind] = marker

    def open(self, kind: str, m: re.Match[str]) -> int:
        """Open the node a rule found; returns where the walk goes on."""
        if kind == "law":
            return self.open_law(m)
        at, end = m.start(), m.end()
        part, title = m.group(1), ""
        if kind in self.settings.title.get("inline", ()):
            tlen = inline_title(self.flow.text[end:])
            title = self.flow.text[end : end + tlen]
            end += tlen
        self.started(kind, part)
        self.note_open(at, self.b.open_part(kind, part, title, self.flow.line(at, end)))
        return end

    def open_law(self, m: re.Match[str]) -> int:
        """Open the law whose heading ``m`` matched (number and title as groups 1, 2)."""
        at, end = m.start(), m.end()
        node = self.b.open_law(m.group(1), m.group(2), self.flow.line(at, end))
        self.started("law", m.group(1))
        self.note_open(at, node)
        return end

    def result(self) -> ParseResult:
        return self.b.result()


@rule("shared", "next marker")
def find_next_marker(p: FlowParser, r: BoundRule, pos: int) -> re.Match[str] | None:
    """The next marker of the level ``r.name`` from ``pos`` on (see the module)."""
    numbering = p.settings.numbering
    needs = numbering.get("needs", {}).get(r.name)
    if (needs and not p.last.get(needs)) or r.pattern is None:
        return None
    marker = next_marker(schemes(numbering, r.name)[0], p.last.get(r.name))
    token = r.pattern.pattern.replace("{marker}", re.escape(marker))
    return p.find(token, pos, p.boundary(r.name))
