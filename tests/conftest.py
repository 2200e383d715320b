import pytest
from fastapi.testclient import TestClient

from lawgraph import store
from lawgraph.api.app import create_app
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


@pytest.fixture(scope="module")
def client(ingested):
    """The app on the ingested store, one per test module, redirects not followed (a
    module that needs another client defines its own ``client``)."""
    return TestClient(create_app(ingested[0]), follow_redirects=False)
