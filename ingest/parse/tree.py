"""The shared tree builder every document parser feeds.

A parser walks its lines, decides what each line is (its own ordered list of small
rules), and calls the builder: ``open_law``/``open_part`` for law-tree levels,
``add`` for a node's own text, ``footnote`` for a note, and ``open_special`` for
prefaces, definitions, chapter headings, index terms and topics. The builder keeps
the stack of open nodes, composes canonical labels, records source offsets, cleans
each node's text once, attaches footnotes to the node that carries their marker and
reports duplicates as warnings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Unpack

from ..clean import HYPHEN_CONJUNCTIONS, clean_block
from ..labels import join_label
from ..lines import Line
from ..model import LAW_KINDS, Document, Node, NodeAttrs, ParseResult, ParseWarning

LEVEL = {kind: i for i, kind in enumerate(LAW_KINDS)}


@dataclass
class _Open:
    node: Node
    lines: list[str] = field(default_factory=list)
    title_lines: list[str] = field(default_factory=list)


class TreeBuilder:
    """Builds the node list of one document.

    Args:
        doc: the document being parsed.
        conjunctions: words after which a line-end hyphen is real (per language).
        text_filter: optional extra ``str -> str`` applied to every cleaned text.
        title_filter: the same for titles (default: ``text_filter``); pass ``str`` when
            the parser gives titles already repaired.
    """

    def __init__(
        self,
        doc: Document,
        conjunctions: frozenset[str] = HYPHEN_CONJUNCTIONS,
        text_filter=None,
        title_filter=None,
    ) -> None:
        self.doc = doc
        self.conjunctions = conjunctions
        self.text_filter = text_filter
        self.title_filter = title_filter or text_filter
        self.nodes: list[_Open] = []
        self._by_id: dict[str, _Open] = {}
        self.ids: set[str] = set()
        self.stack: list[_Open] = []  # open law-tree nodes, law first
        self.current: _Open | None = None  # where text goes
        self._law_parent: str | None = None  # parent for laws (chapter heading)
        self.warnings: list[ParseWarning] = []
        self.index_labels: list[str] = []
        self._footnotes: list[tuple[_Open, str, int]] = []
        self._fn_count = 0

    # -- helpers -------------------------------------------------------------------
    def warn(self, line: Line | int, message: str) -> None:
        """Record a warning located at a source line."""
        no = line.no if isinstance(line, Line) else line
        self.warnings.append(ParseWarning(self.doc.id, no, message))

    def _unique(self, label: str, line: Line) -> str:
        nid = f"{self.doc.id}/{label}"
        if nid not in self.ids:
            return label
        k = 2
        while f"{self.doc.id}/{label}~{k}" in self.ids:
            k += 1
        self.warn(line, f"duplicate label {label}; kept as {label}~{k}")
        return f"{label}~{k}"

    def _new(
        self,
        label: str,
        kind: str,
        law: str | None,
        title: str,
        parent: str | None,
        line: Line,
        attrs: NodeAttrs | None = None,
    ) -> _Open:
        label = self._unique(label, line)
        node = Node(
            id=f"{self.doc.id}/{label}",
            doc=self.doc.id,
            label=label,
            kind=kind,
            law=law,
            title=title,  # raw until result() cleans it
            text="",
            parent=parent,
            order=len(self.nodes),
            start=line.start,
            end=line.end,
            line=line.no,
            attrs=attrs.copy() if attrs else NodeAttrs(),
        )
        entry = _Open(node)
        if title:
            entry.title_lines.append(title)
        self._by_id[node.id] = entry
        self.ids.add(node.id)
        self.nodes.append(entry)
        self.current = entry
        return entry

    # -- read-only views for parser rules --------------------------------------------
    @property
    def current_node(self) -> Node | None:
        """The node that text currently goes to."""
        return self.current.node if self.current else None

    @property
    def current_has_title(self) -> bool:
        """Whether the current node was given a title."""
        return bool(self.current and self.current.title_lines)

    @property
    def law_node(self) -> Node | None:
        """The law being built, if any."""
        return self.stack[0].node if self.stack else None

    def container(self, kind: str) -> Node | None:
        """The nearest open node coarser than ``kind`` (where a new ``kind`` would hang)."""
        level = LEVEL[kind]
        for entry in reversed(self.stack):
            if LEVEL[entry.node.kind] < level:
                return entry.node
        return None

    def own_lines(self, node: Node) -> list[str]:
        """The raw lines added so far to ``node``'s own text."""
        entry = self._by_id.get(node.id)
        return entry.lines if entry is not None else []

    def text_nodes(self) -> list[Node]:
        """Every node opened so far, in document order."""
        return [entry.node for entry in self.nodes]

    def resume_parent(self) -> Node | None:
        """Close the current law-tree node; following text goes to its parent again."""
        if not self.current or self.current.node.kind not in LEVEL:
            return None
        level = LEVEL[self.current.node.kind]
        while len(self.stack) > 1 and LEVEL[self.stack[-1].node.kind] >= level:
            self.stack.pop()
        self.current = self.stack[-1] if self.stack else None
        return self.current_node

    # -- law tree ------------------------------------------------------------------
    def open_law(self, number: str, title: str, line: Line, /, **attrs: Unpack[NodeAttrs]) -> Node:
        """Start a law (closing whatever was open). ``number`` may carry a prefix."""
        self.stack = []
        entry = self._new(number, "law", number, title, self._law_parent, line, attrs)
        self.stack.append(entry)
        return entry.node

    def open_part(
        self, kind: str, part: str, title: str, line: Line, /, **attrs: Unpack[NodeAttrs]
    ) -> Node | None:
        """Open a section, subsection, item or sub-item of the current law.

        The new node's parent is the nearest open node of a coarser level, so a
        subsection directly under a law or an item directly under a section works.
        """
        if not self.stack:
            self.warn(line, f"{kind} {part!r} outside any law; kept as text")
            self.add(line)
            return None
        level = LEVEL[kind]
        while self.stack and LEVEL[self.stack[-1].node.kind] >= level:
            self.stack.pop()
        parent = self.stack[-1].node
        label = join_label(parent.label, kind, part)
        entry = self._new(label, kind, parent.law, title, parent.id, line, attrs)
        self.stack.append(entry)
        return entry.node

    def extend_to(self, line: Line) -> None:
        """Stretch the current node's source span to ``line`` (a wrapped heading)."""
        if self.current is not None:
            self.current.node.end = max(self.current.node.end, line.end)

    def continue_title(self, text: str) -> None:
        """Append a wrapped title line to the node just opened."""
        if self.current is not None:
            self.current.title_lines.append(text)

    # -- other families ------------------------------------------------------------
    def open_special(
        self,
        kind: str,
        label: str,
        title: str,
        line: Line,
        parent: str | None = None,
        law: str | None = None,
        **attrs: Unpack[NodeAttrs],
    ) -> Node:
        """Open a preface, chapter, definition, index term or topic node."""
        if kind != "chapter":
            self.stack = []
        entry = self._new(label, kind, law, title, parent, line, attrs)
        return entry.node

    def set_container(self, node_id: str | None) -> None:
        """Make following laws children of ``node_id`` (a chapter heading)."""
        self._law_parent = node_id

    def end_law_tree(self) -> None:
        """Close every open law-tree node (text that follows belongs elsewhere)."""
        self.stack = []
        self.current = None

    # -- text ----------------------------------------------------------------------
    def add(self, line: Line | str, text: str | None = None) -> None:
        """Append a line (or ``text`` located at ``line``) to the current node."""
        if self.current is None:
            if isinstance(line, Line) and line.stripped:
                self.warn(line, f"text outside any node dropped: {line.stripped[:60]!r}")
            return
        body = text if text is not None else (line.text if isinstance(line, Line) else line)
        self.current.lines.append(body)
        if isinstance(line, Line):
            self.current.node.end = max(self.current.node.end, line.end)

    def footnote(self, marker: str, text: str, line: Line, anchor: Node | None = None) -> Node:
        """Record a footnote; it is attached to the node carrying ``marker``.

        If ``anchor`` is not given, the nearest earlier node whose text carries the
        marker glued to a word (``sanaa5``, ``oväntad*``) becomes its parent.
        """
        self._fn_count += 1
        label = f"fn/{self._fn_count}"
        entry = _Open(
            Node(
                id=f"{self.doc.id}/{label}",
                doc=self.doc.id,
                label=label,
                kind="footnote",
                law=None,
                title="",
                text="",
                parent=anchor.id if anchor else None,
                order=len(self.nodes),
                start=line.start,
                end=line.end,
                line=line.no,
                attrs={"marker": marker},
            )
        )
        entry.lines.append(text)
        self._by_id[entry.node.id] = entry
        self.ids.add(entry.node.id)
        self.nodes.append(entry)
        self._footnotes.append((entry, marker, len(self.nodes) - 1))
        return entry.node

    def extend_footnote(self, node: Node, text: str, line: Line) -> None:
        """Add a continuation line to a footnote."""
        entry = self._by_id.get(node.id)
        if entry is not None:
            entry.lines.append(text)
            node.end = max(node.end, line.end)

    def add_index_labels(self, labels: list[str]) -> None:
        """Remember the labels a subject index names (for the coverage check)."""
        self.index_labels.extend(labels)

    # -- result --------------------------------------------------------------------
    def _marker_re(self, marker: str) -> re.Pattern[str]:
        if marker.startswith("*"):
            return re.compile(r"(?<=[^\s*])" + re.escape(marker) + r"(?!\*)")
        return re.compile(r"(?<=[^\W\d_])" + re.escape(marker) + r"(?!\d)")

    def _attach_footnotes(self, texts: dict[int, str]) -> None:
        for entry, marker, pos in self._footnotes:
            pat = self._marker_re(marker)
            explicit = entry.node.parent is not None
            anchor_entry = None
            if entry.node.parent is None:
                for i in range(pos - 1, -1, -1):
                    cand = self.nodes[i]
                    if cand.node.kind == "footnote":
                        continue
                    if pat.search(texts[i]):
                        anchor_entry = cand
                        break
            else:
                for cand in self.nodes:
                    if cand.node.id == entry.node.parent:
                        anchor_entry = cand
                        break
            if anchor_entry is None:
                self.warn(entry.node.line, f"footnote {marker!r} has no marker in the text")
                continue
            idx = self.nodes.index(anchor_entry)
            if not explicit:  # with an explicit anchor the parser removed the marker
                texts[idx] = pat.sub("", texts[idx], count=1)
            entry.node.parent = anchor_entry.node.id
            entry.node.law = anchor_entry.node.law
            anchor_entry.node.attrs.setdefault("footnotes", []).append(entry.node.id)

    def result(self) -> ParseResult:
        """Clean every node's text and title and return the parse result."""
        texts: dict[int, str] = {}
        for i, entry in enumerate(self.nodes):
            text = clean_block(entry.lines, self.conjunctions)
            if self.text_filter:
                text = self.text_filter(text)
            texts[i] = text
        self._attach_footnotes(texts)
        nodes = []
        for i, entry in enumerate(self.nodes):
            node = entry.node
            node.text = texts[i]
            title = clean_block(entry.title_lines, self.conjunctions)
            if self.title_filter:
                title = self.title_filter(title)
            node.title = title
            nodes.append(node)
        return ParseResult(nodes=nodes, warnings=self.warnings, index_labels=self.index_labels)
