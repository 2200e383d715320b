"""Side-by-side comparison of a provision, and divergence reports of document pairs.

Twins: /api/compare/{label}?docs=…, /api/divergences?a=…&b=… (also as CSV).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
import secrets
import sqlite3
from collections import Counter
from typing import Annotated, Any
from urllib.parse import quote, urlsplit

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from lawgraph import store
from lawgraph.ingest.labels import normalise_label
from lawgraph.store import compare, divergences, reviews
from lawgraph.store.align import pair_standing, sentence_counts, sentence_pairs
from lawgraph.store.deps import Con, on_loop
from lawgraph.store.divergences import SEVERITY_ORDER, SORTS
from lawgraph.store.features import feature
from lawgraph.store.lookup import query_node_id

from .passages import passages
from .templating import query_url, render

router = APIRouter(include_in_schema=False)


Text = Annotated[str, Query(max_length=200)]
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
        row["worst"] = min(
            (SEVERITY_ORDER.get(d["severity"], 3) for d in row["divergences"]), default=3
        )


@router.get("/sentences", response_class=HTMLResponse)
def sentences_page(request: Request, con: Con, a: Text, b: Text) -> Response:
    """The aligned sentences of two provisions, side by side, with how the two relate
    (twin: /api/sentences?a=&b=)."""
    na, nb = query_node_id(con, "a", a), query_node_id(con, "b", b)
    node_a, node_b = store.node(con, na), store.node(con, nb)
    docs = {d["id"]: d for d in store.documents(con)}
    lang = {d: x["language"] for d, x in docs.items()}
    standing = pair_standing(con, na, nb)
    same_edition = docs[na.split("/", 1)[0]]["edition"] == docs[nb.split("/", 1)[0]]["edition"]
    return render(
        request,
        "sentences.html",
        {
            "a": node_a,
            "b": node_b,
            "lang": lang,
            "standing": standing,
            "standing_words": _standing_words(
                con, na, nb, standing, same_edition, node_b.kind if node_b else ""
            ),
            "sentences": sentence_pairs(con, na, nb),
            "title": f"Sentences: {na} ↔ {nb}",
            "twin": query_url("/api/sentences", a=na, b=nb),
        },
    )


OTHER_STANDINGS = {
    "not-equivalent": "not equivalent: the same label, but not the same rule",
    "none": "no reliable equivalent: only the closest candidate",
    "topic": "a candidate law for the Estonian topic, not an equivalent",
}
"""Standings the provision page words elsewhere (flagged rows and topics), in words."""


def _standing_words(
    con: sqlite3.Connection, a: str, b: str, standing: str, same_edition: bool, kind: str = ""
) -> str:
    """How two provisions relate, in the provision page's words
    (:func:`.provision.relation_words`, which reads the pair's evidence: a twin that
    points away, a law whose provisions were rearranged)."""
    from .provision import relation_words

    if standing in OTHER_STANDINGS:
        return OTHER_STANDINGS[standing]
    row = con.execute(
        "SELECT evidence FROM alignments WHERE (a = ? AND b = ?) OR (a = ? AND b = ?)",
        (a, b, b, a),
    ).fetchone()
    evidence = json.loads(row[0]) if row else None
    return relation_words(standing, standing, same_edition, kind, evidence)


def _standing_notes(con: sqlite3.Connection, result: dict, editions: dict[str, str]) -> None:
    """Put into words how each marked cell relates to the reference of its row
    (``cell["standing"]``, from :mod:`ingest.compare`), as the provision page does: a
    label twin of two editions rewritten, pointing away or not confirmed, a law whose
    provisions were rearranged, or two translations of one edition that differ there (a
    cell lined up through another is worded on the page)."""
    cells = list(result["versions"].values())
    cells += [c for row in result["rows"] for c in row["cells"].values()]
    for cell in cells:
        st = (cell or {}).get("standing")
        if st and not st.get("through"):
            ref_doc = st["to"].split("/", 1)[0]
            same = editions.get(cell["doc"]) == editions.get(ref_doc)
            kind = cell.get("kind", "")
            st["words"] = _standing_words(con, st["to"], cell["id"], st["relation"], same, kind)


def _search_instead(request: Request, status: int, message: str, asked: str) -> Response:
    """The error page for a comparison of something no book has as a label, offering to
    search the books for what was asked."""
    title = "Not found" if status == 404 else "Bad request"
    ctx = {"title": title, "message": message, "search_q": asked}
    return render(request, "error.html", ctx, status_code=status)


def _elsewhere(rows: list[dict]) -> None:
    """For each gap of a row, where the same document's provision of a label of that row
    is instead (``row["elsewhere"][doc] = (label, row key)``): a book that has 68D in
    another row, as another rule, does not lack 68D."""
    where: dict[tuple[str, str], str] = {}
    for row in rows:
        for doc, cell in row["cells"].items():
            if cell:
                where.setdefault((doc, cell["label"]), row["key"])
    for row in rows:
        labels = list(dict.fromkeys(c["label"] for c in row["cells"].values() if c))
        row["elsewhere"] = {
            doc: (label, where[(doc, label)])
            for doc, cell in row["cells"].items()
            if not cell
            for label in labels
            if (doc, label) in where and where[(doc, label)] != row["key"]
        }


@router.get("/compare", response_class=HTMLResponse)
def compare_form(
    request: Request,
    con: Con,
    label: Text = "",
    docs: Annotated[list[str] | None, Query(max_length=40)] = None,
) -> Response:
    """The form that opens a comparison (a label and the documents to show)."""
    if label.strip():
        from urllib.parse import quote, urlencode

        chosen = urlencode([("docs", d) for d in docs or []])
        target = f"/compare/{quote(label.strip(), safe='/()')}" + (f"?{chosen}" if chosen else "")
        return RedirectResponse(target, status_code=303)
    return render(
        request,
        "compare.html",
        {
            "title": "Compare",
            "result": None,
            "docs": store.documents(con),
            "chosen": [],
            "label": "",
            "twin": "/api/documents",
        },
    )


@router.get("/compare/{label:path}", response_class=HTMLResponse)
@on_loop
def compare_page(
    request: Request,
    label: str,
    con: Con,
    docs: Annotated[list[str] | None, Query()] = None,
) -> Response:
    """One provision in the chosen documents, side by side, sub-provisions row by row."""
    fn = feature(con, compare.compare)
    all_docs = store.documents(con)
    chosen = _doc_list(list(docs or ()))
    ctx = {
        "title": f"Compare {label}",
        "docs": all_docs,
        "chosen": chosen,
        "label": label,
        "result": None,
        "available": fn is not None,
        "twin": query_url(f"/api/compare/{label}", docs=",".join(chosen)),
    }
    if fn is None:
        return render(request, "compare.html", ctx)
    from lawgraph.store.compare import CompareError, ProvisionNotFound

    try:
        normalise_label(label)
    except ValueError as exc:  # perhaps the words of a provision (/compare/revoke)
        return _search_instead(request, 400, str(exc), label)
    topic_books = [d["id"] for d in all_docs if _topic_book(d)]
    try:
        result = fn(con, label, chosen or None)
    except ProvisionNotFound as exc:
        if chosen and set(chosen) <= set(topic_books):
            # a book of topics has no law numbers: the provision in every book that has
            # it, with the topics of its law
            try:
                fn(con, label, None)
            except ProvisionNotFound:
                return _search_instead(request, 404, str(exc), label)
            return RedirectResponse(f"/compare/{quote(label, safe='()')}#topics", 303)
        return _search_instead(request, 404, str(exc), label)
    except CompareError as exc:  # an unknown document
        raise HTTPException(400, str(exc)) from exc
    _marks(result["rows"])
    _elsewhere(result["rows"])
    _standing_notes(con, result, {d["id"]: d["edition"] for d in all_docs})
    lang = {d["id"]: d["language"] for d in all_docs}
    shown = list(result["docs"])
    exports = _sentence_exports(con, shown, lang)
    return render(
        request,
        "compare.html",
        ctx
        | {
            "result": result,
            "lang": lang,
            "shown": shown,
            "exports": exports,
            "topic_books": topic_books,
            "chosen": chosen or shown,
            "title": f"Compare {result['label']}",
            "twin": query_url(f"/api/compare/{result['label']}", docs=",".join(chosen)),
        },
    )


def _sentence_exports(
    con: sqlite3.Connection, shown: list[str], lang: dict[str, str]
) -> list[dict]:
    """The translation-memory downloads of each pair of the documents on a compare page
    (``/api/tmx``): the whole books' aligned sentences, not only the provision's.

    One item per pair (in the page's order) that has aligned sentences: ``a``, ``b``,
    ``rows``, ``units`` and ``alone`` (:func:`store.align.sentence_counts`), ``csv`` (its URL) and
    ``tmx`` (its URL; None for two books of one language, which a TMX unit cannot hold).
    """
    counts = sentence_counts(con)
    out = []
    for i, a in enumerate(shown):
        for b in shown[i + 1 :]:
            rows, units, alone = counts.get((a, b), (0, 0, 0))
            if not rows:
                continue
            two_languages = lang.get(a) != lang.get(b) and units > 0
            out.append(
                {
                    "a": a,
                    "b": b,
                    "rows": rows,
                    "units": units,
                    "alone": alone,
                    "csv": query_url("/api/tmx", a=a, b=b, format="csv"),
                    "tmx": query_url("/api/tmx", a=a, b=b) if two_languages else None,
                }
            )
    return out


def _pair(con, a: str, b: str) -> tuple[str, str]:
    docs = [d["id"] for d in store.documents(con)]
    if not a:  # a side left out: the usual pair, or its other member
        a = "fi-2007" if b != "fi-2007" else "sv-2007"
    if not b:
        b = "sv-2007" if a != "sv-2007" else "fi-2007"
    for d in (a, b):
        if d not in docs:
            raise HTTPException(404, f"unknown document {d!r}")
    if a == b:
        raise HTTPException(400, f"choose two different documents (both are {a!r})")
    return a, b


def _divergence_rows(
    con, a: str, b: str, type: str, severity: str, family: str | None
) -> list[dict] | None:
    fn = feature(con, divergences.divergences)
    if fn is None:
        return None
    try:
        wanted = None if type in ("", "all") else type
        return fn(con, a, b, type=wanted, severity=severity or None, family=family)
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from exc


def _national_groups(rows: list[dict]) -> list[dict]:
    """National additions listed once: a document's own laws in one line, its national
    footnotes and notes one by one (``{"doc", "what", "rows"}``)."""
    laws: dict[str, list[dict]] = {}
    notes: dict[str, list[dict]] = {}
    for r in rows:
        if r["type"] != "national-addition":
            continue
        doc = r["doc_b"] if r["b"] and not r["a"] else r["doc_a"] if r["a"] and not r["b"] else None
        if doc is not None:
            laws.setdefault(doc, []).append(r)
            continue
        for d in (r["doc_a"], r["doc_b"]):
            for m in r["evidence"].get(d, []) or []:
                if isinstance(m, dict):
                    notes.setdefault(d, []).append({"row": r, "mark": m})
    out: list[dict[str, Any]] = [
        {"doc": d, "what": "national laws", "rows": sorted(v, key=lambda r: _law_key(r["label"]))}
        for d, v in laws.items()
    ]
    out += [{"doc": d, "what": "national notes and footnotes", "rows": v} for d, v in notes.items()]
    return out


def _law_key(label: str) -> tuple[int, str]:
    digits = "".join(ch for ch in label if ch.isdigit())
    return (int(digits) if digits else 10_000, label)


CSRF_COOKIE = "lawgraph_csrf"
REVIEW_POLICY_ENV = "LAWGRAPH_REVIEWS"
"""``loopback`` (the default: reviews are written only from this machine), ``anywhere``
or ``off``."""


def review_policy() -> str:
    value = os.environ.get(REVIEW_POLICY_ENV, "loopback").strip().lower()
    return value if value in ("loopback", "anywhere", "off") else "loopback"


def _review_allowed(request: Request) -> str | None:
    """Why this client may not write reviews, or None if it may."""
    policy = review_policy()
    if policy == "off":
        return "reviews are switched off on this server"
    if policy == "anywhere":
        return None
    host = request.client.host if request.client else ""
    try:
        address = ipaddress.ip_address(host)
        mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1
        if address.is_loopback or (mapped is not None and mapped.is_loopback):
            return None
    except ValueError:
        pass
    return (
        f"reviews are written only from this machine (set {REVIEW_POLICY_ENV}=anywhere "
        f"to allow others)"
    )


def _same_origin(request: Request) -> bool:
    """Whether a form post comes from a page of this server: browsers say so in
    ``Sec-Fetch-Site`` and ``Origin`` (another port on localhost is the same site for the
    cookie, but not the same origin)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is not None and origin != "null":
        return urlsplit(origin).netloc == request.headers.get("host", "")
    return True


def _reviews(request: Request) -> tuple[dict[str, dict], str | None]:
    try:
        return reviews.load(reviews.reviews_path(request.app.state.db)), None
    except reviews.ReviewError as exc:
        return {}, str(exc)


def _topic_book(doc: dict) -> bool:
    """Whether a document is a book of topics without numbered laws (et-1930s), which is
    not compared with another book provision by provision."""
    stats = doc.get("stats") or {}
    return not stats.get("laws") and bool(stats.get("topics"))


@router.get("/divergences", response_class=HTMLResponse)
def divergences_page(
    request: Request,
    con: Con,
    a: Text = "",
    b: Text = "",
    type: Text = "",
    severity: Text = "",
    sort: Text = "score",
    desc: bool = True,
    state: Text = "",
    family: Text = "",
    page: Annotated[int, Query(ge=1, le=10_000)] = 1,
    focus: Text = "",
) -> Response:
    """Divergences between two documents, sortable and filterable, with a CSV download,
    and a review state per finding (confirmed, not an issue, fixed) that translators set
    here or with ``lawgraph divergences review``.

    The table shows :data:`PAGE_ROWS` rows a page; the CSV download and the JSON twin
    (``/api/divergences`` with the same parameters) have every row the table lists, in
    its order, and no others (:func:`store.divergences.report_findings`).
    """
    a, b = _pair(con, a, b)
    if sort not in SORTS:
        sort = "score"
    if type == "national-addition":  # listed apart on this page, not in its table
        back = query_url(
            "/divergences", a=a, b=b, severity=severity, state=state, family=family, sort=sort,
            desc="true" if desc else "false",
        )  # fmt: skip
        return RedirectResponse(f"{back}#national", status_code=303)
    docs = {d["id"]: d for d in store.documents(con)}
    same_edition = docs[a]["edition"] == docs[b]["edition"]
    if not family:
        family = "translation" if same_edition else "edition"
    if family not in ("translation", "edition", "all"):
        raise HTTPException(
            400,
            f"unknown family {family!r} (choose from translation, "
            f"edition, all; national additions are listed apart)",
        )
    national = _national_groups(_divergence_rows(con, a, b, "", "", "national") or [])
    report, total, pages, rows = None, 0, 1, None
    decided, review_error = _reviews(request)
    if feature(con, divergences.divergences) is not None:
        try:
            rows, quiet_hidden = divergences.report_findings(
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
        except divergences.DivergenceError as exc:
            raise HTTPException(400, str(exc)) from exc
        total = len(rows)
        by_type = dict(sorted(Counter(r["type"] for r in rows).items()))
        pages = max(1, -(-total // PAGE_ROWS))
        where = next((i for i, r in enumerate(rows) if r["id"] == focus), None) if focus else None
        page = where // PAGE_ROWS + 1 if where is not None else min(page, pages)
        rows = rows[(page - 1) * PAGE_ROWS : page * PAGE_ROWS]
        for r in rows:
            r["passages"] = passages(con, r)
        from lawgraph.store.divergences import TYPES, pair_report

        report = pair_report(con, a, b) | {
            "types": [t for t in TYPES if t != "national-addition"],  # listed apart
            "shown_by_type": by_type,
            "quiet_hidden": quiet_hidden,
        }
    lang = {d["id"]: d["language"] for d in store.documents(con)}
    token = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(32)
    filters = {
        "a": a,
        "b": b,
        "type": type,
        "severity": severity,
        "family": family,
        "state": state,
        "sort": sort,
        "desc": "true" if desc else "false",
    }
    response = render(
        request,
        "divergences.html",
        {
            "a": a,
            "b": b,
            "type": type,
            "severity": severity,
            "sort": sort,
            "desc": desc,
            "rows": rows,
            "total": total,
            "page": page,
            "pages": pages,
            "report": report,
            "docs": store.documents(con),
            "lang": lang,
            "state": state,
            "family": family,
            "ascending_first": divergences.ASCENDING_FIRST,
            "same_edition": same_edition,
            "topic_book": next((d for d in (a, b) if _topic_book(docs[d])), None),
            "national": national,
            "coverage": [docs[a], docs[b]],
            "states": reviews.STATES,
            "csrf": token,
            "review_error": review_error,
            "can_review": _review_allowed(request) is None,
            "title": f"Divergences {a} ↔ {b}",
            # the download and the JSON twin list what the table lists, on every page
            "csv": query_url("/api/divergences", **filters, format="csv"),
            "twin": query_url("/api/divergences", **filters),
        },
    )
    if request.cookies.get(CSRF_COOKIE) != token:
        response.set_cookie(
            CSRF_COOKIE, token, httponly=True, samesite="strict", path="/divergences"
        )
    return response


@router.post("/divergences/review")
def review_finding(
    request: Request,
    con: Con,
    id: Annotated[str, Form(max_length=40)],
    review_state: Annotated[str, Form(max_length=20)],
    csrf: Annotated[str, Form(max_length=100)],
    note: Annotated[str, Form(max_length=4 * reviews.NOTE_MAX)] = "",
    back: Annotated[str, Form(max_length=2000)] = "/divergences",
) -> Response:
    """Record the review state of one finding and go back to the report (303).

    Guarded by a double-submit token (the form's ``csrf`` must equal the page's
    ``SameSite=Strict`` cookie) and, by default, accepted only from loopback clients."""
    refused = _review_allowed(request)
    if refused:
        raise HTTPException(403, refused)
    cookie = request.cookies.get(CSRF_COOKIE, "")
    if not _same_origin(request) or not cookie or not hmac.compare_digest(cookie, csrf):
        raise HTTPException(
            403,
            "the form has expired or did not come from this site: "
            "reload the divergence page and try again",
        )
    try:
        reviews.record(
            reviews.reviews_path(request.app.state.db), con, id, review_state, note, source="web"
        )
    except reviews.ReviewError as exc:
        raise HTTPException(400, str(exc)) from exc
    back = back.split("#", 1)[0]
    if not back.startswith("/divergences") or back.startswith("//"):
        back = "/divergences"
    return RedirectResponse(f"{back}#f-{id}", status_code=303)
