"""Pydantic models: the API boundary only."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path, Query
from pydantic import BaseModel, Field

NodeIdPath = Annotated[
    str,
    Path(
        description="a provision's id, DOC/LABEL: sv-2007/16B1, el-2017/20F5; the label may be "
        "typed as its book prints it (el-2017/Νόμος 20ΣΤ5)"
    ),
]
NodeIdQuery = Annotated[
    str, Query(max_length=200, description="a provision's id, DOC/LABEL, e.g. sv-2007/16B1")
]
DocIdPath = Annotated[str, Path(description="a document id, e.g. sv-2007")]


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    error: ErrorBody


class DocumentOut(BaseModel):
    id: str
    language: str
    edition: str
    title: str
    source: str
    family: str
    completeness: str
    sha256: str
    stats: dict[str, Any]


class NodeOut(BaseModel):
    id: str
    doc: str
    label: str
    kind: str
    law: str | None
    title: str
    text: str
    parent: str | None
    line: int
    attrs: dict[str, Any]


class CiteRef(BaseModel):
    raw: str
    """The reference as the book writes it."""
    source: str
    """The node whose text has it: the provision or one of its sub-provisions."""
    ref: str
    """The label it names."""
    nearest: bool
    """Resolved to the closest provision that exists, not to ``ref`` itself."""


class CitedProvision(BaseModel):
    id: str
    doc: str
    label: str
    kind: str
    title: str
    refs: list[CiteRef]


class UnresolvedCite(BaseModel):
    raw: str
    source: str
    ref: str
    reason: str
    """``damaged-label``, ``relative-outside-law``, ``not-in-book`` or ``no-text``."""
    why: str
    """The reason in words."""
    law: str | None
    """For ``no-text``: the law the book gives only by its title."""
    equivalents: list[str]
    """For ``no-text``: the provision in the other translations of the same edition."""


class CitingRef(BaseModel):
    raw: str
    target: str
    """The node of this provision (or under it) that the reference points at."""


class CitingProvision(BaseModel):
    id: str
    doc: str
    label: str
    kind: str
    title: str
    refs: list[CitingRef]


class TitleOnlyEquivalent(BaseModel):
    id: str
    doc: str
    language: str
    label: str
    kind: str
    title: str
    text: str
    law: str


class TitleOnlyLaw(BaseModel):
    id: str
    label: str
    title: str
    missing: str


class TitleOnly(BaseModel):
    """A law the book gives only by its title: the law, and where the text is in the
    other translations of the same edition."""

    doc: str
    language: str
    label: str
    law: TitleOnlyLaw
    equivalents: list[TitleOnlyEquivalent]


class NodeDetail(NodeOut):
    children: list[NodeOut]
    breadcrumbs: list[NodeOut]
    cites: list[CitedProvision] = []
    """Provisions outside this one that it (or a sub-provision) cites, in text order."""
    unresolved: list[UnresolvedCite] = []
    """References in its text that name no provision of the store."""
    cited_by: list[CitingProvision] = []
    """Provisions outside this one that cite it (or a sub-provision), in book order."""
    title_only: TitleOnly | None = None
    """Set on a law the book gives only by its title (no text in this book)."""


class LawOut(BaseModel):
    id: str
    label: str
    title: str
    has_text: bool
    supplement: bool


class CitationLink(BaseModel):
    via: str = Field(description="the provision cited (or citing), this one or one inside it")
    raw: str = Field(description="the citation as the book writes it")
    kind: str


class CitationHit(BaseModel):
    id: str
    doc: str
    label: str
    title: str
    depth: int
    via: str = Field(description="the first citation's provision (see ``links`` for all)")
    raw: str
    kind: str
    links: list[CitationLink] = Field(
        default_factory=list,
        description="every citation that reaches this provision at this depth, the first "
        "one first (26A cites both 23A and 23C)",
    )


class CitationList(BaseModel):
    id: str
    depth: int
    reverse: bool
    results: list[CitationHit]


class GraphPath(BaseModel):
    a: str
    b: str
    path: list[str]


class RankRow(BaseModel):
    id: str
    doc: str
    label: str
    title: str
    count: int | None = None
    score: float | None = None


class GraphRank(BaseModel):
    doc: str
    most_cited: list[RankRow]
    pagerank: list[RankRow]


class DiffEdge(BaseModel):
    source: str
    target: str
    raw: str


class GraphDiff(BaseModel):
    a: str
    b: str
    shared_edges: int
    only_in_a: list[DiffEdge]
    only_in_b: list[DiffEdge]


class EgoNode(BaseModel):
    id: str
    doc: str
    label: str
    title: str


class EgoGraph(BaseModel):
    center: str
    nodes: list[EgoNode]
    edges: list[DiffEdge]


class Health(BaseModel):
    status: str
    store_id: str
    schema_version: int
    warning: str | None = None
