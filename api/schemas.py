"""Pydantic models: the API boundary only."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


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


class NodeDetail(NodeOut):
    children: list[NodeOut]
    breadcrumbs: list[NodeOut]


class LawOut(BaseModel):
    id: str
    label: str
    title: str
    has_text: bool
    supplement: bool
