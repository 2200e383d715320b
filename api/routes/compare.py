"""JSON routes: one provision across versions, and divergence reports between documents."""

from __future__ import annotations

import csv
import io
import json
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from lawgraph import store
from lawgraph.ingest.labels import normalise_label
from lawgraph.store import reviews
from lawgraph.store.compare import CompareError, ProvisionNotFound, compare, precomputed
from lawgraph.store.deps import Con, on_loop
from lawgraph.store.divergences import DivergenceError, pair_report, report_findings

from ..schemas import ErrorResponse

router = APIRouter(tags=["compare"])
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse},
    404: {"model": ErrorResponse},
}
CSV_COLUMNS = (
    "id",
    "family",
    "a",
    "b",
    "doc_a",
    "doc_b",
    "label",
    "type",
    "severity",
    "weight",
    "score",
    "message",
    "evidence",
    "review_state",
    "review_note",
)


def csv_row(r: dict) -> list:
    """One finding as CSV cells; text a spreadsheet would take for a formula (a note
    starting with ``=``, ``+``, ``-`` or ``@``) is quoted with a leading apostrophe."""
    out = []
    for c in CSV_COLUMNS:
        v = json.dumps(r[c], ensure_ascii=False) if c == "evidence" else r[c]
        if isinstance(v, str) and v[:1] in ("=", "+", "-", "@"):
            v = "'" + v
        out.append(v)
    return out


class CompareRow(BaseModel):
    key: str
    depth: int
    cells: dict[str, dict[str, Any] | None]
    gaps: list[str]
    divergences: list[dict[str, Any]]
    sentences: list[dict[str, Any]] = []


class MovedRule(BaseModel):
    """Where the rule of a version that is not the reference's rule now lives in the
    other books (``cells``: its equivalent in each, ``null`` where it has none)."""

    for_: str = Field(alias="for")
    doc: str
    cells: dict[str, dict[str, Any] | None]
    relations: dict[str, str]
    sentences: list[dict[str, Any]] = []

    model_config = ConfigDict(populate_by_name=True)


class CompareOut(BaseModel):
    """Every version of a provision; sub-provisions lined up row by row (a document
    without a sub-provision has ``null`` in that row, and is listed in the row's ``gaps``
    unless its version is ``title_only``: a book that gives only the law's title lacks
    nothing, its text is simply not there); divergences attached. A cell that
    the reference of its row (``reference``'s book's cell) does not have as its
    equivalent has ``standing``: ``{"to", "label", "relation"}`` with the relation
    ``partial`` (a label twin rewritten) or ``unconfirmed`` (one not confirmed), and
    ``through`` when the two have no alignment and the row's links that joined them hold
    such a link."""

    label: str
    query: str
    reference: str | None = Field(
        None,
        description="The version the others are read against: the newest edition's (of two "
        "books of one edition, the first listed). A row whose cell of that book is missing "
        "is read against its newest edition's cell.",
    )
    docs: list[str]
    versions: dict[str, dict[str, Any]]
    rows: list[CompareRow]
    divergences: list[dict[str, Any]]
    scores: list[dict[str, Any]]
    topics: list[dict[str, Any]]
    sentences: list[dict[str, Any]] = []
    moved: list[MovedRule] = []


class DivergenceOut(BaseModel):
    id: str = ""
    """Stable finding id (the same for the same input across re-ingests)."""
    family: str = ""
    """``translation``, ``edition`` or ``national``."""
    a: str | None
    b: str | None
    doc_a: str
    doc_b: str
    label: str
    type: str
    severity: str
    weight: float
    score: float | None
    evidence: dict[str, Any]
    message: str
    review_state: str = "open"
    review_note: str = ""


class DivergenceList(BaseModel):
    """Divergences between two documents, highest provision score first, with the
    document-pair report (counts, top provisions, provisions only one side has)."""

    a: str | None
    b: str | None
    total: int
    quiet_hidden: dict[str, int] = {}
    """Findings of the quiet checks left out, by type (asked for with ``type=all``)."""
    results: list[DivergenceOut]
    report: dict[str, Any] | None


Doc = Annotated[str | None, Query(max_length=40, description="document id, e.g. fi-2007")]


def _precomputed(con, label: str) -> dict | None:
    try:
        return precomputed(con, normalise_label(label))
    except ValueError:
        return None  # not a label: compare() says why


def _docs_param(con, docs: str | None) -> list[str] | None:
    if not docs:
        return None
    return [d.strip() for d in docs.split(",") if d.strip()] or None


@router.get("/api/compare/{label:path}", response_model=CompareOut, responses=ERRORS)
@on_loop
def compare_route(
    label: Annotated[
        str, Path(description="a provision label, e.g. 16, 12C1(e)(ii) or Νόμος 20ΣΤ5")
    ],
    con: Con,
    docs: Annotated[str | None, Query(max_length=200, description="e.g. fi-2007,sv-2007")] = None,
) -> dict | JSONResponse:
    """One provision in every version, sub-provisions lined up, divergences attached."""
    wanted = _docs_param(con, docs)
    kept = None if wanted else _precomputed(con, label)
    if kept is not None:  # made at ingest by compare() itself, in this shape: not revalidated
        return JSONResponse({**kept, "query": label})
    try:
        return compare(con, label, wanted)
    except ProvisionNotFound as exc:
        raise HTTPException(404, str(exc)) from exc
    except CompareError as exc:
        raise HTTPException(400, str(exc)) from exc


@router.get("/api/divergences", response_model=DivergenceList, responses=ERRORS)
def divergences_route(
    request: Request,
    con: Con,
    a: Doc = None,
    b: Annotated[
        str | None, Query(max_length=40, description="the other document, e.g. sv-2007")
    ] = None,
    type: Annotated[
        str | None,
        Query(
            max_length=40,
            description="a divergence type, or 'all'; without one, every type but the "
            "checks right too rarely to be shown unless asked for (concept-missing)",
        ),
    ] = None,
    severity: Annotated[str | None, Query(max_length=10, description="high, medium or low")] = None,
    family: Annotated[
        str | None,
        Query(
            max_length=20,
            description="translation, edition or national; 'all' for translation "
            "divergences and edition changes (the divergence page's 'both')",
        ),
    ] = None,
    state: Annotated[str | None, Query(max_length=20, description="a review state")] = None,
    sort: Annotated[str | None, Query(max_length=20, description="score, label, type, …")] = None,
    desc: Annotated[bool, Query(description="largest first (false: smallest first)")] = True,
    format: Annotated[str, Query(max_length=10, description="json or csv")] = "json",
    limit: Annotated[int | None, Query(ge=1, le=100000, description="rows at most")] = None,
) -> Any:
    """Divergences between documents ``a`` and ``b`` as JSON or a CSV download, each with
    its stable ``id`` and its review state (``review_state``, ``review_note``).

    The parameters are the divergence page's, and so are the rows: the checks right too
    rarely to be shown by default are left out unless ``type`` names them or is ``all``
    (``quiet_hidden`` counts them). The CSV starts with a byte order mark, so that
    spreadsheet programs read its Greek and Finnish text as UTF-8."""
    if format not in ("json", "csv"):
        raise HTTPException(400, f"unknown format {format!r} (choose from json, csv)")
    known = [d["id"] for d in store.documents(con)]
    for d in (a, b):
        if d and d not in known:
            raise HTTPException(400, f"unknown document {d!r} (known: {', '.join(known)})")
    if a and a == b:
        raise HTTPException(400, "divergences compare two different documents")
    try:
        decided = reviews.load(reviews.reviews_path(request.app.state.db))
    except reviews.ReviewError as exc:
        raise HTTPException(503, str(exc)) from exc
    try:
        rows, quiet_hidden = report_findings(
            con,
            a,
            b,
            type=type,
            severity=severity,
            family=family,
            decided=decided,
            state=state,
            sort=sort,
            desc=desc,
        )
    except DivergenceError as exc:
        raise HTTPException(400, str(exc)) from exc
    total = len(rows)
    rows = rows[:limit] if limit else rows
    if format == "csv":
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(CSV_COLUMNS)
        for r in rows:
            w.writerow(csv_row(r))
        name = "-".join(x for x in ("divergences", a, b) if x)
        headers = {"Content-Disposition": f'attachment; filename="{name}.csv"'}
        return Response(
            buf.getvalue().encode("utf-8-sig"),
            media_type="text/csv; charset=utf-8",
            headers=headers,
        )
    report = pair_report(con, a, b) if a and b else None
    return {
        "a": a,
        "b": b,
        "total": total,
        "quiet_hidden": quiet_hidden,
        "results": rows,
        "report": report,
    }
