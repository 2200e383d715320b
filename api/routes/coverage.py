"""The coverage matrix (law number x document): the home page's JSON twin."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from lawgraph.store.coverage import coverage
from lawgraph.store.deps import Con

router = APIRouter(tags=["documents"])


class CoverageOut(BaseModel):
    """``rows`` has one entry per law number; each cell says whether a document has the
    law's text (``text``), only its title (``title``), aligned Estonian topics (``topics``)
    or nothing (``none``), with the divergence count of its provisions when known."""

    docs: list[str]
    rows: list[dict[str, Any]]
    divergences: bool


@router.get("/api/coverage", response_model=CoverageOut)
def get_coverage(con: Con) -> dict:
    """Which laws each document has, with divergence counts."""
    return coverage(con)
