"""JSON routes: alignments of provisions across documents.

``GET /api/nodes/{id}/aligned`` lists a provision's counterparts in the other books
(best first; rejected ones last; for a definition, the other books' definitions of the
same glossary term), ``GET /api/alignments`` lists rows of the
``alignments`` table between documents, filtered by method and flag, ``GET
/api/lexicon`` looks a word up in the learned translation lexicon, ``GET
/api/sentences`` gives the aligned sentences of two provisions and ``GET /api/tmx`` the
aligned sentences of two books as a translation memory (TMX or CSV).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Response
from pydantic import BaseModel, Field

from lawgraph import store
from lawgraph.ingest import languages
from lawgraph.store.align import (
    METHODS,
    TmxError,
    aligned,
    alignments,
    lexicon_lookup,
    lexicon_pairs,
    pair_standing,
    sentence_pairs,
    sentences_csv,
    tmx_bytes,
)
from lawgraph.store.deps import Con, on_loop
from lawgraph.store.features import feature
from lawgraph.store.glossary import same_term_definitions
from lawgraph.store.lookup import node_id_or_404, query_node_id

from ..schemas import ErrorResponse, NodeIdPath, NodeIdQuery

router = APIRouter(tags=["align"])
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse},
    404: {"model": ErrorResponse},
}
Method = Literal[METHODS]  # type: ignore[valid-type]


class AlignedOut(BaseModel):
    id: str
    doc: str
    label: str
    method: str
    score: float
    flagged: bool
    relation: str
    standing: str = Field(
        description="the relation, or unconfirmed for a label twin of two editions that "
        "is called partial because its score is too low to confirm it, not because its "
        "rule is known to be rewritten (read both)"
    )
    editions: str
    evidence: dict[str, Any]


class SameTermDefinition(BaseModel):
    id: str
    doc: str
    title: str
    concept: str = Field(description="the glossary concept whose term is the whole title")
    en: str = Field(description="the concept's English name")


class AlignedList(BaseModel):
    id: str
    results: list[AlignedOut]
    same_term: list[SameTermDefinition] = Field(
        default_factory=list,
        description="For a definition: the other books' definitions of the same glossary "
        "term that no row of `results` shows as the equivalent (a rejected row may name "
        "one). They are linked by their term, not by "
        "comparing their wording: read both before relying on one for the other.",
    )


class AlignmentOut(BaseModel):
    a: str
    b: str
    doc_a: str
    doc_b: str
    editions: str
    relation: str
    method: str
    score: float
    flagged: bool
    evidence: dict[str, Any]


class AlignmentList(BaseModel):
    doc_a: str | None
    doc_b: str | None
    method: str | None
    flagged: bool | None
    count: int
    results: list[AlignmentOut]


@router.get("/api/nodes/{node_id:path}/aligned", response_model=AlignedList, responses=ERRORS)
@on_loop
def node_aligned(node_id: NodeIdPath, con: Con) -> dict:
    """The provision's equivalents in other documents, best first."""
    nid = node_id_or_404(con, node_id)
    results = aligned(con, nid)
    defines = feature(con, same_term_definitions)
    shown = {r["id"] for r in results if not r["flagged"]}
    same_term = [
        {k: d[k] for k in ("id", "doc", "title", "concept", "en")}
        for d in (defines(con, nid) if defines else [])
        if d["id"] not in shown
    ]
    return {"id": nid, "results": results, "same_term": same_term}


def _doc(con, doc: str | None) -> str | None:
    if doc is not None and store.document(con, doc) is None:
        known = ", ".join(d["id"] for d in store.documents(con))
        raise HTTPException(400, f"unknown document {doc!r} (known: {known})")
    return doc


@router.get("/api/alignments", response_model=AlignmentList, responses=ERRORS)
def list_alignments(
    con: Con,
    doc_a: Annotated[
        str | None, Query(max_length=40, description="rows of this document, e.g. fi-1997")
    ] = None,
    doc_b: Annotated[
        str | None,
        Query(max_length=40, description="... with this one (either order), e.g. sv-2007"),
    ] = None,
    method: Annotated[Method | None, Query(description="how the row was found")] = None,
    flagged: Annotated[
        bool | None,
        Query(description="true: only rows flagged (not equivalent, no reliable equivalent)"),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=5000, description="rows at most")] = 200,
) -> dict:
    """Alignment rows between documents (either order), best score first."""
    _doc(con, doc_a)
    _doc(con, doc_b)
    rows = alignments(con, doc_a, doc_b, method=method, flagged=flagged, limit=limit)
    return {
        "doc_a": doc_a,
        "doc_b": doc_b,
        "method": method,
        "flagged": flagged,
        "count": len(rows),
        "results": rows,
    }


class Translation(BaseModel):
    lang: str
    word: str = Field(
        description="the lexicon's key: a lemma, or the stem of a word the dictionary lacks"
    )
    word_shown: str | None = Field(None, description="the word as the books most often write it")
    to: str
    translation: str
    surface: str | None = Field(None, description="the translation's commonest form, folded")
    shown: str | None = Field(None, description="the translation as the books most often write it")
    p: float
    p_back: float


class LexiconPairOut(BaseModel):
    lang_a: str
    lang_b: str
    entries: int


class LexiconOut(BaseModel):
    word: str
    results: list[Translation]
    pairs: list[LexiconPairOut] | None = None


@router.get("/api/lexicon", response_model=LexiconOut, responses=ERRORS)
def lexicon(
    con: Con,
    word: Annotated[
        str | None, Query(max_length=100, description="a word in any form the books use")
    ] = None,
    lang: Annotated[
        str | None, Query(pattern=r"^[a-z]{2,3}$", description="the word's language: fi, sv, el")
    ] = None,
    to: Annotated[
        str | None, Query(pattern=r"^[a-z]{2,3}$", description="only translations into this one")
    ] = None,
) -> dict:
    """Translations of a word learned from the books' parallel provisions: ``p`` is
    t(translation | word), ``p_back`` t(word | translation). ``lang`` and ``to`` are
    language codes of the language registry. Without a word: the language pairs the
    lexicon has, with how many word pairs each holds (``pairs``)."""
    if word is None:
        return {"word": "", "results": [], "pairs": lexicon_pairs(con)}
    if not word.strip():
        raise HTTPException(400, "give a word")
    for code in (lang, to):
        if code is not None and code not in languages.codes():
            raise HTTPException(400, f"unknown language {code!r}")
    return {"word": word, "results": lexicon_lookup(con, word, lang=lang, to=to)}


class SentenceOut(BaseModel):
    n: int
    bead: str
    a: str
    b: str
    score: float


class SentencesOut(BaseModel):
    a: str
    b: str
    relation: str = Field(
        description="How the two provisions relate: same, renumbered, moved, "
        "unconfirmed (a label twin not shown as the equivalent), another alignment "
        "relation, or empty when they are not aligned"
    )
    sentences: list[SentenceOut]


@router.get("/api/sentences", response_model=SentencesOut, responses=ERRORS)
def sentences(
    con: Con,
    a: NodeIdQuery,
    b: NodeIdQuery,
) -> dict:
    """The aligned sentences of two provisions shown as equivalent, or of a label twin not
    confirmed as the equivalent (``relation`` unconfirmed); empty otherwise."""
    na, nb = query_node_id(con, "a", a), query_node_id(con, "b", b)
    return {
        "a": na,
        "b": nb,
        "relation": pair_standing(con, na, nb),
        "sentences": sentence_pairs(con, na, nb),
    }


@router.get(
    "/api/tmx",
    responses={**ERRORS, 200: {"content": {"application/x-tmx+xml": {}, "text/csv": {}}}},
)
def tmx(
    con: Con,
    a: Annotated[str, Query(max_length=40, description="a document id, e.g. fi-1997")],
    b: Annotated[str, Query(max_length=40, description="another one, e.g. el-2017")],
    format: Annotated[Literal["tmx", "csv"], Query(description="tmx (TMX 1.4) or csv")] = "tmx",
) -> Response:
    """The aligned sentences of two books as a translation memory (TMX 1.4) or CSV."""
    _doc(con, a)
    _doc(con, b)
    try:
        body = sentences_csv(con, a, b) if format == "csv" else tmx_bytes(con, a, b)
    except TmxError as exc:
        raise HTTPException(400, str(exc)) from exc
    media = "text/csv" if format == "csv" else "application/x-tmx+xml"
    name = f"{a}_{b}.{format}"
    return Response(
        body, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )
