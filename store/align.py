"""Alignments between versions as the alignment stage stored them: equivalents with their
evidence, Estonian topic candidates, the learned lexicon, aligned sentences and the
translation-memory exports (:mod:`ingest.align` makes them; the compare stage reads them
the same way)."""

from __future__ import annotations

from lawgraph.ingest.align import (
    EQUIVALENT,
    METHODS,
    TmxError,
    aligned,
    alignments,
    equivalent,
    law_topics,
    lexicon_lookup,
    lexicon_pairs,
    sentence_pairs,
    sentences_csv,
    tmx_bytes,
    topic_candidates,
)

__all__ = [
    "EQUIVALENT",
    "METHODS",
    "TmxError",
    "aligned",
    "alignments",
    "equivalent",
    "law_topics",
    "lexicon_lookup",
    "lexicon_pairs",
    "sentence_pairs",
    "sentences_csv",
    "tmx_bytes",
    "topic_candidates",
]
