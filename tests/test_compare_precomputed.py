"""Comparisons stored at ingest are the ones computed per request."""

import json

import pytest
from fastapi.testclient import TestClient

from lawgraph.api.app import create_app
from lawgraph.ingest.compare import TABLE, compare_label
from lawgraph.store.compare import compare, precomputed


@pytest.fixture(scope="module")
def client(ingested):
    return TestClient(create_app(ingested[0], cache_mb=0))


def test_every_law_is_stored(con):
    laws = {r[0] for r in con.execute("SELECT DISTINCT label FROM nodes WHERE kind = 'law'")}
    stored = {r[0] for r in con.execute(f"SELECT label FROM {TABLE}")}
    assert stored == laws


@pytest.mark.parametrize("label", ["1", "12", "16", "40", "75"])
def test_stored_comparison_equals_computed(con, label):
    kept = precomputed(con, label)
    computed = json.loads(json.dumps(compare_label(con, label, label, None)))
    assert kept == {**computed, "query": ""}
    assert compare(con, f"lag {label}") == {**computed, "query": f"lag {label}"}
    assert precomputed(con, "16B") is None  # sections are computed per request


def test_route_answers_stored_and_computed_alike(client, con):
    stored = client.get("/api/compare/16B").json()  # a section: computed
    assert stored["label"] == "16B"
    law = client.get("/api/compare/lag 16").json()  # a law: stored
    assert law["query"] == "lag 16" and law["label"] == "16"
    computed = json.loads(json.dumps(compare_label(con, "16", "lag 16", None)))
    assert law == computed
    some = client.get("/api/compare/16", params={"docs": "sv-2007,fi-2007"}).json()
    assert some["docs"] == ["sv-2007", "fi-2007"]
    assert client.get("/api/compare/hello").status_code == 400
    assert client.get("/compare/16").status_code == 200
