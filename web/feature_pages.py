"""Pages over the corpus-wide features: search and glossary.

Each page checks that its feature is built (:func:`store.features.feature`) and says so
plainly when it is not. Twins: /api/search, /api/glossary.
"""

from __future__ import annotations

import contextlib
import re
from itertools import groupby
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response

from lawgraph import store
from lawgraph.ingest.labels import normalise_label
from lawgraph.store import align, glossary, search
from lawgraph.store.deps import Con
from lawgraph.store.features import feature
from lawgraph.store.search import LABEL_SCORE, MAX_QUERY_CHARS

from .templating import query_url, render

router = APIRouter(include_in_schema=False)
Text = Annotated[str, Query(max_length=200)]
QueryText = Annotated[str, Query()]
"""A search query: one too long for the search (:data:`MAX_QUERY_CHARS`, as in the API)
is told on the search page, with the search box, however long it is (the web server
refuses a request line beyond its own limit first)."""
SHOWN_QUERY = 80
"""Characters of a query the search page's heading and title show (a longer one is cut
there, with an ellipsis; the search box holds it whole)."""
VIA_WORDS = {
    "same": "equivalent of",
    "renumbered": "equivalent of",
    "moved": "equivalent of",
    "split": "a part of",
    "merged": "covers, with others,",
    "partial": "same label, not an equivalent, as",
    "unconfirmed": "same label, not confirmed as the equivalent, as",
    "law": "the same law as",
    "label": "same label as",
}
"""How a provision a cross-language search adds relates to the hit it comes with (the
alignment's relation); a topic and its candidate laws are worded apart."""
PAGE_HITS = 50
"""Matches a search page shows at first (one more is asked for, to know whether there are
more); asked for more, it shows as many as the search gives (``MAX_LIMIT``)."""
#: What the search page's kind filter offers (value, shown as).
KINDS = (
    ("law", "law text"),
    ("definition", "definitions"),
    ("index", "index terms"),
    ("topic", "Estonian topics"),
    ("other", "headings and prefaces"),
)


def _safe_snippet(snippet: str) -> str:
    """Keep the search snippet's ``<mark>`` tags and escape any other ``<``."""
    return re.sub(r"<(?!/?mark>)", "&lt;", snippet)


def _other_rules(con, named: list[dict]) -> None:
    """On the provisions a label search found, the ones whose rule is another than the
    same label's in other books (fi-1997 16B1, changing seats, against 2007/2017 16B1,
    unauthorized information): ``other_rule`` = ``{"docs": [the books whose label twin
    the alignment finds not equivalent], "equivalents": [its equivalents there]}``."""
    fn = feature(con, align.aligned)
    if fn is None or len(named) < 2:
        return
    ids = {h["id"] for h in named}
    for h in named:
        rows = fn(con, h["id"])
        differ = sorted(
            r["doc"] for r in rows if r["relation"] == "not-equivalent" and r["id"] in ids
        )
        if differ:
            h["other_rule"] = {
                "docs": differ,
                "equivalents": [
                    r["id"]
                    for r in rows
                    if r["doc"] in differ
                    and not r["flagged"]
                    and r["relation"] in ("same", "renumbered", "moved")
                ],
            }


def _shown(q: str) -> str:
    """``q`` as a heading shows it: at most :data:`SHOWN_QUERY` characters."""
    return q if len(q) <= SHOWN_QUERY else q[: SHOWN_QUERY - 1].rstrip() + "…"


def _respelled(con, text: str) -> str | None:
    """``text`` as the books spell it (:func:`store.search.respelled`), or None."""
    spell = feature(con, search.respelled)
    return spell(con, text) if spell is not None else None


def _suggestions(con, q: str, respelled: str | None) -> dict:
    """What to offer when a search finds nothing: the query as the books spell it
    (``respelled``, worked out already), a provision label, glossary concepts."""
    out: dict = {"label": None, "concepts": [], "respelled": respelled}
    with contextlib.suppress(ValueError):
        out["label"] = normalise_label(q)
    lookup = feature(con, glossary.lookup_term)
    if lookup is not None:
        out["concepts"] = lookup(con, q, parts=True)[:8]
    return out


@router.get("/search", response_class=HTMLResponse)
def search_page(
    request: Request,
    con: Con,
    q: QueryText = "",
    doc: Text = "",
    lang: Text = "",
    kind: Text = "",
    expand: bool = False,
    more: bool = False,
) -> Response:
    """Search results grouped by document, with filters and the cross-language switch:
    the first :data:`PAGE_HITS` matches, or with ``more`` as many as the search gives;
    the page says when there are (or may be) more than it shows."""
    from lawgraph.store.search import MAX_LIMIT

    docs = store.documents(con)
    shown = MAX_LIMIT if more else PAGE_HITS
    ctx: dict = {
        "q": q,
        "doc": doc,
        "lang": lang,
        "kind": kind,
        "expand": expand,
        "more": more,
        "cut": False,
        "shown": shown,
        "docs": docs,
        "langs": sorted({d["language"] for d in docs}),
        "kinds": KINDS,
        "result": None,
        "groups": [],
        "error": None,
        "suggest": None,
        "respelled": None,
        "spelt_as": None,
        "spelt_partly": False,
        "named": 0,
        "available": True,
        "title": f"Search: {_shown(q)}" if q else "Search",
        "q_shown": _shown(q),
        "max_q": MAX_QUERY_CHARS,
        "via_words": VIA_WORDS,
        "twin": query_url(
            "/api/search", q=q, doc=doc, lang=lang, kind=kind, expand="true" if expand else None
        ),
    }
    fn = feature(con, search.search)
    if fn is None:
        ctx["available"] = False
        return render(request, "search.html", ctx)
    if not q.strip():
        return render(request, "search.html", ctx)
    from lawgraph.store.search import SearchError

    def run(query: str) -> dict:
        return fn(
            con, query, doc=doc or None, lang=lang or None, kind=kind or None,
            limit=min(shown + 1, MAX_LIMIT), expand=expand,
        )  # fmt: skip

    try:
        result = run(q)
    except SearchError as exc:
        ctx["error"] = str(exc)
        return render(request, "search.html", ctx, status_code=400)
    spelt = None
    if not result["hits"] or result["mode"] == "any":
        # typed without å, ä, ö: what the books' spelling finds, when the typed words find
        # nothing, or only some of them something and the books' spelling every one
        def better(query: str) -> dict | None:
            got = run(query)
            return got if got["hits"] and (not result["hits"] or got["mode"] == "all") else None

        spelt, again = search.respelled_finding(con, q, better)
        if again and spelt:
            ctx["spelt_partly"] = bool(result["hits"])
            result, ctx["spelt_as"] = again, spelt
            ctx["title"], ctx["q_shown"] = f"Search: {_shown(spelt)}", _shown(spelt)
            ctx["twin"] = query_url(
                "/api/search", q=spelt, doc=doc, lang=lang, kind=kind,
                expand="true" if expand else None,
            )  # fmt: skip
    found = [h for h in result["hits"] if not h.get("via")]  # the matches, not what they add
    if len(found) > shown:  # one more was asked for, to know whether there are more
        last = found[shown]["id"]
        result["hits"] = [h for h in result["hits"] if last not in (h["id"], h.get("via"))]
        ctx["cut"] = True
    elif more and len(found) >= MAX_LIMIT:
        ctx["cut"] = True  # as many as the search gives: there may be more
    order = {d["id"]: i for i, d in enumerate(docs)}
    lang_of = {d["id"]: d["language"] for d in docs}
    hits = sorted(result["hits"], key=lambda h: order.get(h["doc"], 99))
    for h in hits:
        h["snippet"] = _safe_snippet(h.get("snippet") or "")
        h.setdefault("lang", lang_of.get(h["doc"], "und"))
    ctx["groups"] = [(d, list(g)) for d, g in groupby(hits, key=lambda h: h["doc"])]
    ctx["result"] = result
    named = [h for h in hits if h.get("score") == LABEL_SCORE]  # the label's own provisions
    ctx["named"] = len(named)
    _other_rules(con, named)
    if not hits:
        ctx["suggest"] = _suggestions(con, q, spelt)
    elif ctx["spelt_as"]:
        pass  # the books' spelling is what is shown
    elif result["mode"] == "any" or (result["label"] and result["mode"] == "none"):
        ctx["respelled"] = _respelled(con, q)  # a word that found nothing may be misspelt
    return render(request, "search.html", ctx)


@router.get("/glossary", response_class=HTMLResponse)
def glossary_page(request: Request, con: Con, q: Text = "", term: Text = "") -> Response:
    """Every concept of the glossary in every language, optionally filtered by a term
    (``q``, or ``term`` as the JSON twin names it)."""
    fn = feature(con, glossary.concepts)
    q = q if q.strip() else term
    ctx: dict = {
        "q": q,
        "concepts": None,
        "title": "Glossary",
        "twin": query_url("/api/glossary", term=q, parts="true") if q.strip() else "/api/glossary",
        "langs": [d["language"] for d in store.documents(con)],
        "spelt_as": None,
    }
    ctx["langs"] = list(dict.fromkeys(ctx["langs"]))
    if fn is not None:
        concepts = fn(con)
        lookup = feature(con, glossary.lookup_term)
        if q.strip() and lookup is not None:
            found = lookup(con, q, parts=True)
            if not found and feature(con, search.respelled_finding):  # typed without å, ä, ö
                spelt, again = search.respelled_finding(
                    con, q, lambda s: lookup(con, s, parts=True)
                )
                if again:
                    found, ctx["spelt_as"] = again, spelt
                    ctx["twin"] = query_url("/api/glossary", term=spelt, parts="true")
            by_id = {c["id"]: c for c in concepts}
            concepts = [by_id[c["id"]] for c in found if c["id"] in by_id]  # best match first
        ctx["concepts"] = concepts
    return render(request, "glossary.html", ctx)


SURE = 0.25
"""A translation is marked uncertain when the geometric mean of its probabilities both ways,
sqrt(p * p_back), is below this: a word that only goes with the word (Greek "του", "the",
for "kilpailunjohtaja": p 0.15, back 0.0), or that a rare form of it met a few times
(Finnish "revokkinsa", seen in two provisions, with Swedish "medveten": 0.21 and 0.20),
against "ρενόνς" for "revokki" (0.64 and 0.50) or "sticket" for "tikkiin" (0.20 and
0.80), which are translations read both ways."""


@router.get("/lexicon", response_class=HTMLResponse)
def lexicon_page(request: Request, con: Con, word: Text = "", to: Text = "") -> Response:
    """Translations of a word learned from the books' parallel provisions, into every
    language or ``to`` one (twin: /api/lexicon?word=&to=)."""
    fn = feature(con, align.lexicon_lookup)
    pairs = align.lexicon_pairs(con) if fn is not None else []
    # the languages the lexicon translates into (a pair of one language translates nothing)
    langs = sorted(
        {x for p in pairs if p["lang_a"] != p["lang_b"] for x in (p["lang_a"], p["lang_b"])}
    )
    if to and to not in langs:
        raise HTTPException(400, f"unknown language {to!r} (known: {', '.join(langs)})")
    twin = query_url("/api/lexicon", word=word, to=to or None) if word.strip() else "/api/lexicon"
    ctx: dict = {
        "word": word,
        "to": to,
        "langs": langs,
        "results": None,
        "title": "Lexicon",
        "twin": twin,
        "sure": SURE,
    }
    if fn is not None and word.strip():
        ctx["results"] = [
            {**r, "uncertain": (r["p"] * r["p_back"]) ** 0.5 < SURE}
            for r in fn(con, word, to=to or None)
        ]
        if not ctx["results"] and to:  # a word of that very language?
            ctx["own_language"] = sorted({r["lang"] for r in fn(con, word, to=None)} & {to})
        if not ctx["results"]:  # typed without å, ä, ö, or not a word of the books
            ctx["respelled"] = _respelled(con, word)
    ctx["available"] = fn is not None
    return render(request, "lexicon.html", ctx)


@router.get("/glossary/{concept_id:path}", response_class=HTMLResponse)
def concept_page(request: Request, concept_id: str, con: Con) -> Response:
    """One concept: its terms in every language and where each term occurs."""
    fn = feature(con, glossary.concept_detail)
    concept = fn(con, concept_id) if fn is not None else None
    if concept is None:
        raise HTTPException(404, f"unknown concept {concept_id!r}")
    docs = store.documents(con)
    titles = {}
    ids = [i for nodes in concept.get("occurrences", {}).values() for i in nodes]
    for chunk in range(0, len(ids), 500):
        part = ids[chunk : chunk + 500]
        rows = con.execute(
            f"SELECT id, label, kind, title FROM nodes WHERE id IN ({','.join('?' * len(part))})",
            part,
        )
        titles.update({r["id"]: dict(r) for r in rows})
    return render(
        request,
        "concept.html",
        {
            "c": concept,
            "docs": docs,
            "nodes": titles,
            "title": f"Glossary: {concept['en']}",
            "twin": f"/api/glossary/{concept_id}",
        },
    )
