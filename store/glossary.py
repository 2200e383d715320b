"""The glossary's concepts, terms and hits as the glossary stage stored them
(:mod:`ingest.glossary`)."""

from __future__ import annotations

from lawgraph.ingest.glossary import (
    LANGS,
    concept_detail,
    concepts,
    lookup_term,
    same_term_definitions,
)

__all__ = ["LANGS", "concept_detail", "concepts", "lookup_term", "same_term_definitions"]
