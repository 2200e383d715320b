"""Which optional corpus-wide features (glossary, alignment, divergences, search) are ready.

The pages call these features through :func:`feature`, which returns None while the
store lacks the feature's table or the module does not offer the function yet, so each
page can say "not available" instead of failing.
"""

from __future__ import annotations

import importlib
import sqlite3
from collections.abc import Callable

from ingest import store

#: module, table each feature function needs.
FEATURES: dict[str, tuple[str, str]] = {
    "concepts": ("ingest.glossary", "concepts"),
    "concept_detail": ("ingest.glossary", "concepts"),
    "lookup_term": ("ingest.glossary", "concepts"),
    "aligned": ("ingest.align", "alignments"),
    "lexicon_lookup": ("ingest.align", "lexicon"),
    "divergences": ("ingest.align.diverge", "divergences"),
    "node_divergences": ("ingest.align.diverge", "divergences"),
    "divergence_counts": ("ingest.align.diverge", "divergences"),
    "compare": ("graph.compare", "nodes"),
    "search": ("ingest.search.query", "lemma_forms"),
}


def feature(con: sqlite3.Connection, name: str) -> Callable | None:
    """The feature function ``name``, or None if its module or table is not there.

    Args:
        con: the store connection.
        name: a key of :data:`FEATURES`.
    """
    module_name, table = FEATURES[name]
    if not store.has_table(con, table):
        return None
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    return getattr(module, name, None)
