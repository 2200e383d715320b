"""Language-aware full-text search: the index built at ingest, the query side at serve."""
