import csv
import io
import json

import networkx as nx
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from lawgraph.api.app import create_app
from lawgraph.api.cli import main
from lawgraph.graph.build import build_graph, citation_graph
from lawgraph.graph.export import export_bytes, export_json
from lawgraph.graph.query import GraphQueryError, citation_index, cites, diff, ego, path, rank


@pytest.fixture(scope="module")
def g(con):
    return build_graph(con)


@pytest.fixture(scope="module")
def client(ingested):
    return TestClient(create_app(ingested[0]))


def test_citation_counts_in_ingest_summary(ingested):
    for r in ingested[1].documents:
        c = r.stats["citations"]
        assert c["found"] == c["resolved"] + sum(c["unresolved"].values())
        assert f"citations {c['found']} found" in r.summary() or c["found"] == 0
    by_doc = {r.doc.id: r.stats["citations"] for r in ingested[1].documents}
    assert by_doc["fi-2007"]["unresolved"]["no-text"] >= 20  # laws the book lists only
    assert by_doc["fi-1997"]["unresolved"]["damaged-label"] >= 1  # OCR "25 Bl"
    assert by_doc["sv-2007"]["resolved"] > 300 and by_doc["el-2017"]["resolved"] > 300


def test_cites_and_cited_by(g):
    out = cites(g, "sv-2007/16B3")
    assert [(h["id"], h["kind"]) for h in out] == [("sv-2007/12C", "see")]
    back = {h["id"] for h in cites(g, "sv-2007/12C", reverse=True)}
    assert {"sv-2007/16B3", "sv-2007/16A4"} <= back
    deeper = cites(g, "sv-2007/16B3", depth=2)
    # 12C2(b) says the score may vary as lag 86A allows: reached through 12C at hop 2
    assert ("sv-2007/86A", 2) in [(h["id"], h["depth"]) for h in deeper]
    assert all(h["id"] != "sv-2007/16B3" for h in deeper)


def test_citation_index_is_the_citation_graph(g):
    """The index the queries read gives the edges of the citation graph view, in its order."""
    index = citation_index(g)
    view = citation_graph(g)
    assert index.nodes == set(view.nodes)
    assert set(index.cites) | set(index.cited_by) <= index.nodes
    for n in view.nodes:
        out = [(v, d) for _, v, d in view.out_edges(n, data=True)]
        into = [(u, d) for u, _, d in view.in_edges(n, data=True)]
        assert (index.cites.get(n, []), index.cited_by.get(n, [])) == (out, into)
    for doc in ("fi-1997", "el-2017", "et-1930s", "fi-2007", "sv-2007"):
        edges = [(u, v, d.get("raw", "")) for u, v, d in citation_graph(g, doc).edges(data=True)]
        assert sorted(index.by_doc.get(doc, [])) == sorted(edges)


def test_ego_path_rank(g):
    e = ego(g, "el-2017/27B1")
    ids = {n["id"] for n in e["nodes"]}
    # 27B1(a): "Δεν εφαρμόζονται οι Νόμοι 26Β και 16Γ, βλέπε όμως την παράγραφο Δ"
    assert {"el-2017/26B", "el-2017/16C", "el-2017/27D", "el-2017/23A"} <= ids
    assert {"source": "el-2017/27B1", "target": "el-2017/16C", "raw": "16Γ"} in e["edges"]
    assert all(x["source"] in ids and x["target"] in ids for x in e["edges"])
    assert path(g, "sv-2007/27B1", "sv-2007/12") == [
        "sv-2007/27B1(b)", "sv-2007/27D", "sv-2007/12B1"]  # fmt: skip
    with pytest.raises(GraphQueryError, match="no citation path"):
        path(g, "sv-2007/1", "sv-2007/93")
    # Backwards along the same citations only when asked for either direction.
    with pytest.raises(GraphQueryError, match="no citation path"):
        path(g, "sv-2007/12", "sv-2007/27B1")
    assert path(g, "sv-2007/12", "sv-2007/27B1", either=True) == [
        "sv-2007/12B1", "sv-2007/27D", "sv-2007/27B1"]  # fmt: skip
    with pytest.raises(GraphQueryError, match="one document"):
        path(g, "sv-2007/16", "el-2017/16")
    r = rank(g, "sv-2007")
    assert {x["label"] for x in r["pagerank"][:3]} >= {"12", "16"}
    assert {x["label"] for x in r["most_cited"][:2]} == {"16", "23"}
    counts = [x["count"] for x in r["most_cited"]]
    assert counts == sorted(counts, reverse=True)


def test_same_edition_graph_difference(g):
    d = diff(g, "fi-2007", "sv-2007")
    assert d["shared_edges"] >= 15
    # fi-2007 12C1(e) lets the authority apply weighting "in place of (c)"; the Swedish
    # 12C1 folds weighting into (c) and its (e) says the sides need not get the same score
    assert {"source": "12C1(e)", "target": "12C1(c)", "raw": "c"} in d["only_in_a"]
    for e in d["only_in_a"] + d["only_in_b"]:
        for doc in ("fi-2007", "sv-2007"):
            assert f"{doc}/{e['source']}" in g and f"{doc}/{e['target']}" in g
    assert all(int(e["source"].split("C")[0].rstrip("ABDEFGH")) <= 18
               for e in d["only_in_a"] + d["only_in_b"] if e["source"][0].isdigit())  # fmt: skip


def test_graphml_roundtrip_and_other_formats(con, g):
    back = nx.read_graphml(io.BytesIO(export_bytes(con, "graphml")), force_multigraph=True)
    assert back.number_of_nodes() == g.number_of_nodes()
    assert back.number_of_edges() == g.number_of_edges()
    types = {d["type"] for _, _, d in back.edges(data=True)}
    assert {"contains", "cites", "indexes"} <= types
    gexf = nx.read_gexf(io.BytesIO(export_bytes(con, "gexf")))
    assert gexf.number_of_nodes() == g.number_of_nodes()
    rows = list(csv.DictReader(io.StringIO(export_bytes(con, "csv").decode("utf-8"))))
    assert len(rows) == g.number_of_edges()
    data = export_json(con)
    cites_json = [e for e in data["edges"] if e["type"] == "cites"]
    assert len(cites_json) == citation_graph(g).number_of_edges()
    assert all(e["raw"] for e in cites_json)
    with pytest.raises(ValueError):
        export_bytes(con, "pdf")


def test_cli_graph_commands(ingested):
    db = str(ingested[0])
    r = CliRunner().invoke(main, ["cites", "sv-2007/12C", "--reverse", "--json", "--db", db])
    assert r.exit_code == 0 and "sv-2007/16B3" in r.output
    r = CliRunner().invoke(main, ["path", "sv-2007/27B1", "lag 12", "--db", db])
    assert r.exit_code != 0  # the second argument lacks a document
    r = CliRunner().invoke(main, ["path", "sv-2007/27B1", "sv-2007/12", "--db", db])
    assert r.exit_code == 0 and "27D" in r.output
    r = CliRunner().invoke(main, ["rank", "el-2017", "--json", "--db", db])
    assert json.loads(r.output)["pagerank"]
    r = CliRunner().invoke(main, ["graphdiff", "fi-2007", "sv-2007", "--db", db])
    assert r.exit_code == 0 and "12C1(e) -> 12C1(c)" in r.output
    r = CliRunner().invoke(main, ["cites", "sv-2007/16", "--depth", "0", "--db", db])
    assert r.exit_code != 0 and "Traceback" not in r.output
    out = ingested[0].parent / "g.graphml"
    r = CliRunner().invoke(main, ["export", "--format", "graphml", "-o", str(out), "--db", db])
    assert r.exit_code == 0 and nx.read_graphml(out).number_of_nodes() > 1000


def test_api_graph_routes(client, con):
    r = client.get("/api/nodes/sv-2007/12C/cited-by")
    assert r.status_code == 200 and any(h["id"] == "sv-2007/16B3" for h in r.json()["results"])
    # el-2017 26A "(βλέπε Νόμους 23Α και 23Γ)" cites Law 23 twice: one result, both links
    hits = client.get("/api/nodes/el-2017/23/cited-by").json()["results"]
    (hit,) = [h for h in hits if h["id"] == "el-2017/26A"]
    assert {x["via"] for x in hit["links"]} == {"el-2017/23A", "el-2017/23C"}
    assert (hit["via"], hit["raw"]) == (hit["links"][0]["via"], hit["links"][0]["raw"])
    # every citation into Law 23 from outside it is one link of one result
    made = con.execute(
        "SELECT COUNT(*) FROM citations WHERE target LIKE 'el-2017/23%' "
        "AND source NOT LIKE 'el-2017/23%'"
    ).fetchone()[0]
    assert sum(len(h["links"]) for h in hits) == made
    r = client.get("/api/nodes/sv-2007/16B3/citations", params={"depth": 2})
    assert r.status_code == 200 and r.json()["results"][0]["id"] == "sv-2007/12C"
    r = client.get("/api/nodes/el-2017/27B1/ego", params={"radius": 1})
    assert r.status_code == 200 and {"el-2017/16C", "el-2017/26B"} <= {
        n["id"] for n in r.json()["nodes"]
    }
    assert client.get("/api/nodes/el-2017/27B1/ego", params={"radius": 9}).status_code == 400
    r = client.get("/api/graph/path", params={"a": "sv-2007/27B1", "b": "sv-2007/12"})
    assert r.json()["path"][-1] == "sv-2007/12B1"
    assert client.get("/api/graph/rank", params={"doc": "el-2017"}).json()["most_cited"]
    d = client.get("/api/graph/diff", params={"a": "fi-2007", "b": "sv-2007"}).json()
    assert d["only_in_a"]
    r = client.get("/api/graph/export", params={"format": "csv"})
    assert r.status_code == 200 and r.text.startswith("source,target,type")


@pytest.mark.parametrize(
    ("url", "params", "status"),
    [
        ("/api/nodes/sv-2007/999/citations", {}, 404),
        ("/api/nodes/sv-2007/16/citations", {"depth": 0}, 400),
        ("/api/nodes/sv-2007/16/cited-by", {"depth": "x"}, 400),
        ("/api/graph/path", {"a": "sv-2007/16"}, 400),
        ("/api/graph/path", {"a": "sv-2007/16", "b": "el-2017/16"}, 400),
        ("/api/graph/path", {"a": "sv-2007/1", "b": "sv-2007/93"}, 404),
        ("/api/graph/path", {"a": "50", "b": "16"}, 400),  # labels without their book
        ("/api/graph/path", {"a": "sv-2007/50", "b": "sv-2007"}, 400),
        ("/api/graph/path", {"a": "sv-2007/999Z", "b": "sv-2007/16"}, 404),
        ("/api/graph/rank", {"doc": "nope"}, 404),
        ("/api/graph/diff", {"a": "fi-2007", "b": "<script>"}, 404),
        ("/api/graph/export", {"format": "pdf"}, 400),
    ],
)
def test_api_graph_errors(client, url, params, status):
    r = client.get(url, params=params)
    assert r.status_code == status
    assert set(r.json()["error"]) == {"code", "message"}
    if params.get("a") == "50":  # says which parameter, and how to write it
        message = r.json()["error"]["message"]
        assert message.startswith("a: not a node id") and "sv-2007/16B1" in message
