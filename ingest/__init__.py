"""Text -> model: cleaning, per-document parsers and the store."""

from .corpus import CorpusError, load_manifest
from .parse import parse_document
from .pipeline import IngestReport, ingest_corpus

__all__ = ["CorpusError", "IngestReport", "ingest_corpus", "load_manifest", "parse_document"]
