"""Framework-free data model shared by ingestion, the store, the graph and the API."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Node kinds, from the coarsest to the finest law-tree level.
LAW_KINDS = ("law", "section", "subsection", "item", "subitem")
#: Every kind a node may have.
KINDS = (
    "preface",
    "chapter",
    "definition",
    *LAW_KINDS,
    "footnote",
    "index_term",
    "topic",
)


@dataclass(frozen=True)
class Document:
    """One law book as described by ``corpus/manifest.toml``."""

    id: str
    language: str
    edition: str
    title: str
    source: str
    family: str
    completeness: str = ""
    sha256: str = ""


@dataclass
class Node:
    """A provision, definition, preface, heading, footnote, index term or topic.

    ``text`` is the node's own text, without its children's. ``start``/``end`` are
    character offsets into the raw source file and ``line`` is its 1-based line.
    """

    id: str
    doc: str
    label: str
    kind: str
    law: str | None
    title: str
    text: str
    parent: str | None
    order: int = 0
    start: int = 0
    end: int = 0
    line: int = 0
    attrs: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class ParseWarning:
    """A problem found while parsing, located by document and source line."""

    doc: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}: {self.message}"


@dataclass
class ParseResult:
    """What a document parser returns."""

    nodes: list[Node]
    warnings: list[ParseWarning] = field(default_factory=list)
    #: Labels named by the book's own subject index (for the coverage check).
    index_labels: list[str] = field(default_factory=list)

    def by_id(self) -> dict[str, Node]:
        return {n.id: n for n in self.nodes}


@dataclass
class Citation:
    """A cross-reference found in a node's text.

    ``target`` is the id of the most specific provision the reference resolves to;
    when it cannot be resolved ``target`` is None and ``reason`` says why.
    ``start``/``end`` are offsets into the source node's ``field`` (its text, or its
    title when a heading carries the reference).
    """

    source: str
    raw: str
    ref: str
    kind: str
    relative: bool
    start: int
    end: int
    target: str | None = None
    reason: str = ""
    field: str = "text"
