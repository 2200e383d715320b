"""Full-text search over the index the search stage built (:mod:`ingest.search`: a query
is analysed as the books' text was)."""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Callable
from typing import TypeVar

from lawgraph.ingest import store
from lawgraph.ingest.search.analyze import query_words
from lawgraph.ingest.search.query import (
    KIND_FILTERS,
    LABEL_SCORE,
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    MAX_WORDS,
    SearchError,
    search,
)

__all__ = [
    "KIND_FILTERS",
    "LABEL_SCORE",
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "SearchError",
    "respelled",
    "respelled_finding",
    "search",
]

_T = TypeVar("_T")


def _bare(word: str) -> str:
    """``word`` without its letters' marks (``pöytä`` -> ``poyta``)."""
    return "".join(ch for ch in unicodedata.normalize("NFD", word) if not unicodedata.combining(ch))


def _by_bare(con: sqlite3.Connection) -> dict[str, list[tuple[int, str]]]:
    """Every word of the books (a form, or the word it is a form of) by its bare spelling
    (:func:`_bare`), with its form's frequency, in the table's order (read once per store)."""
    out: dict[str, list[tuple[int, str]]] = {}
    for surface, lemma, freq in con.execute("SELECT surface, lemma, freq FROM lemma_forms"):
        for word in (surface, lemma):
            if word.isalpha():
                out.setdefault(_bare(word), []).append((freq, word))
    return out


def respelled_finding(
    con: sqlite3.Connection, q: str, finds: Callable[[str], _T]
) -> tuple[str | None, _T | None]:
    """:func:`respelled` of ``q`` and, when there is one, what ``finds`` (the caller's
    lookup, with its filters) answers for it: ``(None, None)`` when no word needs
    respelling, ``(spelt, None)`` when the respelled query finds nothing (a falsy answer,
    or a :class:`SearchError`)."""
    spelt = respelled(con, q)
    if not spelt:
        return None, None
    try:
        again = finds(spelt)
    except SearchError:
        return spelt, None
    return spelt, (again or None)


def respelled(con: sqlite3.Connection, q: str) -> str | None:
    """The query with each word the books never spell so replaced by the word of the books
    (a form, or the word it is a form of) that differs from it only in marks on letters,
    the most frequent first (``poyta`` typed without the Finnish letters: ``pöytä``); None
    when no word needs it or none is found."""
    words = query_words(q)[:MAX_WORDS]  # the words the search reads
    unknown = [
        w
        for w in words
        if w.isalpha()
        and con.execute("SELECT 1 FROM lemma_forms WHERE surface = ? LIMIT 1", (w,)).fetchone()
        is None
    ]
    if not unknown:
        return None
    index = store.derived(con, "search.by_bare", _by_bare)
    best: dict[str, tuple[int, str]] = {}
    for typed in unknown:
        for freq, word in index.get(_bare(typed), ()):
            if word != typed and freq > best.get(typed, (0, ""))[0]:
                best[typed] = (freq, word)
    if not best:
        return None
    return " ".join(best[w][1] if w in best else w for w in words)
