"""Which optional corpus-wide features (glossary, alignment, divergences, search) are ready.

The pages call these features through :func:`feature`, which returns None while the
store lacks the table the feature reads, so each page can say "not available" instead of
failing. Features are the reading functions themselves, so a misspelt one is an error
where it is written, never a feature silently missing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from lawgraph.ingest.store import has_table

from . import align, compare, divergences, glossary, search

F = TypeVar("F", bound=Callable[..., Any])

#: The table each feature function reads.
FEATURES: dict[Callable[..., Any], str] = {
    glossary.concepts: "concepts",
    glossary.concept_detail: "concepts",
    glossary.lookup_term: "concepts",
    glossary.same_term_definitions: "concept_hits",
    align.aligned: "alignments",
    align.lexicon_lookup: "lexicon",
    divergences.divergences: "divergences",
    divergences.node_divergences: "divergences",
    divergences.divergence_counts: "divergences",
    compare.compare: "nodes",
    search.search: "lemma_forms",
    search.respelled: "lemma_forms",
    search.respelled_finding: "lemma_forms",
}


def feature(con: sqlite3.Connection, fn: F) -> F | None:
    """``fn`` if the store has the table it reads, else None.

    Args:
        con: the store connection.
        fn: a key of :data:`FEATURES`.

    Raises:
        KeyError: ``fn`` is not a feature.
    """
    return fn if has_table(con, FEATURES[fn]) else None
