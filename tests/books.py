"""Whole books parsed once per test session, for the parser tests."""

import functools

from lawgraph.ingest.corpus import load_manifest, read_source
from lawgraph.ingest.model import ParseResult
from lawgraph.ingest.parse import parse_document


@functools.cache
def parse_book(doc_id: str) -> ParseResult:
    """Parse one whole book of the manifest (once per test session)."""
    doc = next(d for d in load_manifest() if d.id == doc_id)
    doc, raw = read_source(doc)
    return parse_document(raw, doc)
