"""Side-by-side comparison of a provision, and divergence reports of document pairs.

Twins: /api/compare/{label}?docs=…, /api/divergences?a=…&b=… (also as CSV).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response

from api.deps import Con
from ingest import store

from .features import feature
from .templating import query_url, render

router = APIRouter(include_in_schema=False)
Text = Annotated[str, Query(max_length=200)]
SORTS = ("score", "label", "type", "severity", "weight")
SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}
PAGE_ROWS = 100


def _doc_list(docs: list[str]) -> list[str]:
    """Documents from repeated (checkboxes) or comma-separated ``docs`` parameters."""
    out = [d.strip() for value in docs for d in value.split(",") if d.strip()]
    return list(dict.fromkeys(out))


def _marks(rows: list[dict]) -> None:
    """Give each cell the divergences of its row that involve it (``cell["marks"]``)."""
    for row in rows:
        for cell in row["cells"].values():
            if cell:
                cell["marks"] = [d for d in row["divergences"] if cell["id"] in (d["a"], d["b"])]
        row["worst"] = min((SEVERITY_ORDER.get(d["severity"], 3) for d in row["divergences"]),
                           default=3)  # fmt: skip


@router.get("/compare", response_class=HTMLResponse)
def compare_form(request: Request, con: Con, label: Text = "") -> Response:
    """The form that opens a comparison (a label and the documents to show)."""
    if label.strip():
        from fastapi.responses import RedirectResponse

        return RedirectResponse(f"/compare/{label.strip()}", status_code=303)
    return render(
        request,
        "compare.html",
        {"title": "Compare", "result": None, "docs": store.documents(con), "chosen": [],
         "label": "", "twin": "/api/documents"},
    )  # fmt: skip


@router.get("/compare/{label:path}", response_class=HTMLResponse)
def compare_page(
    request: Request, label: str, con: Con, docs: Annotated[list[str], Query()] = (),
) -> Response:  # fmt: skip
    """One provision in the chosen documents, side by side, sub-provisions row by row."""
    fn = feature(con, "compare")
    all_docs = store.documents(con)
    chosen = _doc_list(list(docs))
    ctx = {"title": f"Compare {label}", "docs": all_docs, "chosen": chosen, "label": label,
           "result": None, "available": fn is not None,
           "twin": query_url(f"/api/compare/{label}", docs=",".join(chosen))}  # fmt: skip
    if fn is None:
        return render(request, "compare.html", ctx)
    from graph.compare import CompareError, ProvisionNotFound

    try:
        result = fn(con, label, chosen or None)
    except ProvisionNotFound as exc:
        raise HTTPException(404, str(exc)) from exc
    except CompareError as exc:
        raise HTTPException(400, str(exc)) from exc
    _marks(result["rows"])
    lang = {d["id"]: d["language"] for d in all_docs}
    shown = list(result["docs"])
    return render(
        request,
        "compare.html",
        ctx | {"result": result, "lang": lang, "shown": shown, "chosen": chosen or shown,
               "title": f"Compare {result['label']}",
               "twin": query_url(f"/api/compare/{result['label']}", docs=",".join(chosen))},
    )  # fmt: skip


def _pair(con, a: str, b: str) -> tuple[str, str]:
    docs = [d["id"] for d in store.documents(con)]
    a = a or "fi-2007"
    b = b or "sv-2007"
    for d in (a, b):
        if d not in docs:
            raise HTTPException(404, f"unknown document {d!r}")
    return a, b


def _sorted(rows: list[dict], sort: str, desc: bool) -> list[dict]:
    keys = {
        "score": lambda r: (r.get("score") or 0, r["weight"]),
        "label": lambda r: (r["label"] or "",),
        "type": lambda r: (r["type"], r["label"] or ""),
        "severity": lambda r: (-SEVERITY_ORDER.get(r["severity"], 3), r["weight"]),
        "weight": lambda r: (r["weight"],),
    }
    return sorted(rows, key=keys[sort], reverse=desc)


def _divergence_rows(con, a: str, b: str, type: str, severity: str) -> list[dict] | None:
    fn = feature(con, "divergences")
    if fn is None:
        return None
    try:
        return fn(con, a, b, type=type or None, severity=severity or None)
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from exc


@router.get("/divergences", response_class=HTMLResponse)
def divergences_page(
    request: Request, con: Con, a: Text = "", b: Text = "", type: Text = "",
    severity: Text = "", sort: Text = "score", desc: bool = True,
    page: Annotated[int, Query(ge=1, le=10_000)] = 1,
) -> Response:  # fmt: skip
    """Divergences between two documents, sortable and filterable, with a CSV download.

    The table shows :data:`PAGE_ROWS` rows a page; the CSV has them all.
    """
    a, b = _pair(con, a, b)
    if sort not in SORTS:
        sort = "score"
    rows = _divergence_rows(con, a, b, type, severity)
    report, total, pages = None, 0, 1
    if rows is not None:
        total = len(rows)
        pages = max(1, -(-total // PAGE_ROWS))
        page = min(page, pages)
        rows = _sorted(rows, sort, desc)[(page - 1) * PAGE_ROWS : page * PAGE_ROWS]
        from ingest.align.diverge import TYPES, pair_report

        report = pair_report(con, a, b) | {"types": TYPES}
    lang = {d["id"]: d["language"] for d in store.documents(con)}
    return render(
        request,
        "divergences.html",
        {"a": a, "b": b, "type": type, "severity": severity, "sort": sort, "desc": desc,
         "rows": rows, "total": total, "page": page, "pages": pages, "report": report,
         "docs": store.documents(con), "lang": lang,
         "title": f"Divergences {a} ↔ {b}",
         "csv": query_url("/api/divergences", a=a, b=b, type=type, severity=severity,
                          format="csv"),
         "twin": query_url("/api/divergences", a=a, b=b, type=type, severity=severity)},
    )  # fmt: skip
