"""Full-text search over the index the search stage built (:mod:`ingest.search`: a query
is analysed as the books' text was)."""

from __future__ import annotations

from lawgraph.ingest.search.query import KIND_FILTERS, MAX_LIMIT, SearchError, search

__all__ = ["KIND_FILTERS", "MAX_LIMIT", "SearchError", "search"]
