import functools

import pytest

from ingest import store
from ingest.corpus import load_manifest, read_source
from ingest.model import ParseResult
from ingest.parse import parse_document
from ingest.pipeline import ingest_corpus


@pytest.fixture(scope="session")
def ingested(tmp_path_factory):
    """The whole corpus ingested once into a temporary store: (path, report)."""
    path = tmp_path_factory.mktemp("store") / "lawgraph.db"
    report = ingest_corpus(path)
    return path, report


@pytest.fixture(scope="session")
def con(ingested):
    c = store.open_store(ingested[0])
    yield c
    c.close()


@functools.cache
def parse_book(doc_id: str) -> ParseResult:
    """Parse one whole book of the manifest (once per test session)."""
    doc = next(d for d in load_manifest() if d.id == doc_id)
    doc, raw = read_source(doc)
    return parse_document(raw, doc)
