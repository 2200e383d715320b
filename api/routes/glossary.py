"""JSON routes: glossary."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query
from pydantic import BaseModel

from lawgraph.store.deps import Con
from lawgraph.store.glossary import LANGS, concept_detail, concepts, lookup_term

from ..schemas import ErrorResponse

router = APIRouter(tags=["glossary"])
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse},
    404: {"model": ErrorResponse},
}


class TermMatch(BaseModel):
    lang: str
    term: str
    via: str


class ConceptOut(BaseModel):
    id: str
    en: str
    terms: dict[str, list[str]]
    laws: list[int]
    note: str
    hits: dict[str, dict[str, int]]
    matched: list[TermMatch] | None = None


class ConceptList(BaseModel):
    term: str | None
    lang: str | None
    concepts: list[ConceptOut]


class ConceptDetail(ConceptOut):
    occurrences: dict[str, list[str]]
    term_nodes: dict[str, dict[str, dict[str, list[str]]]]


def _lang(lang: str | None) -> str | None:
    if lang is not None and lang not in (*LANGS, "en"):
        raise HTTPException(400, f"unknown lang {lang!r} (choose from {', '.join(LANGS)}, en)")
    return lang


@router.get("/api/glossary", response_model=ConceptList, responses=ERRORS)
def glossary_list(
    con: Con,
    term: Annotated[
        str | None, Query(max_length=200, description="any language, case, form")
    ] = None,
    lang: Annotated[str | None, Query(max_length=5, description="fi, sv, el, et or en")] = None,
    parts: Annotated[
        bool,
        Query(
            description="also the concepts of longer terms the word is part of, after those "
            "of the term itself (as the glossary page lists them)"
        ),
    ] = False,
) -> dict[str, Any]:
    """The glossary: every concept, or those a term (in any language) belongs to.

    With ``lang`` and no ``term``, only the concepts with terms in that language.
    """
    lang = _lang(lang)
    if term is not None and term.strip():
        found = lookup_term(con, term, lang, parts=parts)
    else:
        found = [c for c in concepts(con) if lang in (None, "en") or lang in c["terms"]]
    return {"term": term, "lang": lang, "concepts": found}


@router.get("/api/glossary/{concept}", response_model=ConceptDetail, responses=ERRORS)
def glossary_concept(
    concept: Annotated[str, Path(description="a concept id, e.g. revoke")], con: Con
) -> dict[str, Any]:
    """One concept with the nodes where each of its terms occurs, per document."""
    detail = concept_detail(con, concept)
    if detail is None:
        raise HTTPException(404, f"unknown glossary concept {concept!r}")
    return detail
