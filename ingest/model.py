"""Framework-free data model shared by ingestion, the store, the graph and the API."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TypedDict, cast

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


class NodeAttrs(TypedDict, total=False):
    """What a node carries beyond the common fields (each key only where it applies).

    Laws: ``has_text`` (False: the book lists the law without its text), ``missing`` (why),
    ``truncated``, ``page``, ``supplement`` (a national supplementary law), ``national``
    (its national source), ``bylaw``. Provisions: ``printed_page``, ``footnotes`` (ids of
    their footnotes), ``greek_note`` (a Greek national note), ``supplement``. Footnotes:
    ``marker``, ``also_marked`` (other markers pointing to the same note), ``unmarked``,
    ``greek_note``. Definitions: ``term``, ``lemma``, ``aliases``. Chapters: ``level``,
    ``number``, ``national``. Index terms: ``term``, ``heading``, ``pages``, ``refs``,
    ``targets`` (labels the term points to), ``unresolved``, ``see``, ``definitions``,
    ``footnote_of``, ``introduction``, ``orphan``, ``note``. Estonian topics: ``number``,
    ``part``, ``ocr_title`` (the title as scanned, before an erratum).
    """

    aliases: list[str]
    also_marked: list[str]
    bylaw: bool
    definitions: list[str]
    footnote_of: list[str]
    footnotes: list[str]
    greek_note: bool
    has_text: bool
    heading: str
    introduction: bool
    lemma: str
    level: str
    marker: str
    missing: str
    national: str
    note: str
    number: str | int
    ocr_title: str
    orphan: bool
    page: int
    pages: list[str]
    part: str
    printed_page: int
    refs: list[str]
    see: list[str]
    supplement: bool
    targets: list[str]
    term: str
    truncated: bool
    unmarked: bool
    unresolved: list[str]


ATTR_KEYS = frozenset(NodeAttrs.__annotations__)


def decode_attrs(text: str | None) -> NodeAttrs:
    """A node's attributes from the JSON the store keeps them in.

    Raises:
        ValueError: the JSON is not an object of :class:`NodeAttrs` keys.
    """
    value = json.loads(text or "{}")
    if not isinstance(value, dict) or not value.keys() <= ATTR_KEYS:
        unknown = sorted(value.keys() - ATTR_KEYS) if isinstance(value, dict) else value
        raise ValueError(f"not node attributes: {unknown!r}")
    return cast(NodeAttrs, value)


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
    attrs: NodeAttrs = field(default_factory=lambda: NodeAttrs())


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
