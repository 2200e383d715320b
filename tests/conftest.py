import pytest

from lawgraph import store
from lawgraph.ingest.pipeline import ingest_corpus


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
