"""Serving under faults: store switches, damaged stores, headers, HEAD, limits, errors."""

import asyncio
import json
import os
import shutil
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from lawgraph import store
from lawgraph.api.app import create_app
from lawgraph.api.middleware import ServingMiddleware
from lawgraph.ingest import store as ingest_store

OLD, NEW = "TILLÅTNA OCH OTILLÅTNA UPPLYSNINGAR", "NY RUBRIK FÖR LAG 16"


def variant(src: Path, dest: Path, title: str) -> str:
    """Write a copy of ``src`` with another title for sv-2007/16 over ``dest``; its id."""
    tmp = dest.with_name("variant.db")
    shutil.copy(src, tmp)
    con = sqlite3.connect(tmp)
    con.execute("UPDATE nodes SET title = ? WHERE id = 'sv-2007/16'", (title,))
    con.execute("DELETE FROM meta WHERE key = 'content_hash'")
    new_id = store.content_hash(con)
    con.execute("INSERT INTO meta VALUES ('content_hash', ?)", (new_id,))
    con.commit()
    con.close()
    os.replace(tmp, dest)  # what ingest does: a rename over the served path
    return new_id


@pytest.fixture()
def served(ingested, tmp_path):
    """A private copy of the store and an app serving it."""
    path = tmp_path / "lawgraph.db"
    shutil.copy(ingested[0], path)
    app = create_app(path)
    return path, app, TestClient(app, follow_redirects=False)


@pytest.fixture(scope="module")
def client(ingested):
    return TestClient(create_app(ingested[0]), follow_redirects=False)


def test_health_names_the_store(client, con):
    r = client.get("/api/health")
    assert r.status_code == 200
    assert r.json() == {"status": "ok", "store_id": store.meta(con, "content_hash"),
                        "schema_version": store.SCHEMA_VERSION}  # fmt: skip


@pytest.mark.parametrize("path", ["/", "/doc/sv-2007/16", "/api/documents", "/nope", "/api/nope",
                                  "/static/site.css", "/api/search?q=%22"])  # fmt: skip
def test_security_headers_everywhere(client, path):
    h = client.get(path).headers
    assert h["x-content-type-options"] == "nosniff"
    assert h["x-frame-options"] == "DENY"
    assert h["referrer-policy"] == "same-origin"
    csp = dict(p.strip().split(" ", 1) for p in h["content-security-policy"].split(";"))
    assert csp["script-src"] == "'self'" and csp["frame-ancestors"] == "'none'"
    assert len(h["x-request-id"]) == 16


def test_pages_have_no_inline_script(client):
    for path in ("/", "/doc/sv-2007/16", "/graph/sv-2007/16B1", "/compare/16"):
        html = client.get(path).text
        for tag in html.split("<script")[1:]:
            assert "src=" in tag.split(">")[0] and tag.split(">", 1)[1].startswith("</script>")


def test_foreign_host_is_not_reflected(client):
    for path in ("/api/documents/", "/doc/sv-2007/16B"):  # slash redirect, label redirect
        r = client.get(path, headers={"host": "evil.example"})
        if r.status_code in (301, 302, 303, 307, 308):
            assert "evil" not in r.headers["location"] and r.headers["location"].startswith("/")
    r = client.get("/api/documents/", headers={"host": "evil.example"})
    assert r.status_code in (307, 308) and r.headers["location"] == "/api/documents"


def test_trusted_hosts(ingested):
    app = create_app(ingested[0], allowed_hosts=["localhost", "127.0.0.1"])
    assert TestClient(app, base_url="http://localhost:8000").get("/api/health").status_code == 200
    r = TestClient(app, base_url="http://evil.example").get("/")
    assert r.status_code == 400 and r.json()["error"]["message"] == "unknown Host header"


@pytest.mark.parametrize("path", ["/", "/doc/sv-2007/16", "/api/health", "/api/search?q=revoke",
                                  "/graph/sv-2007/16B1", "/static/site.css",
                                  "/api/graph/export?format=csv&doc=sv-2007"])  # fmt: skip
def test_head_answers_like_get_without_body(client, path):
    get = client.get(path, headers={"accept-encoding": "identity"})
    head = client.head(path, headers={"accept-encoding": "identity"})
    assert head.status_code == get.status_code == 200
    assert head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]


def test_head_of_a_missing_page_is_404(client):
    assert client.head("/doc/zz-1").status_code == 404


def test_etag_and_gzip(client):
    r = client.get("/", headers={"accept-encoding": "gzip"})
    assert r.headers["content-encoding"] == "gzip" and r.headers["cache-control"] == "no-cache"
    etag = r.headers["etag"]
    again = client.get("/doc/sv-2007", headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/", headers={"if-none-match": 'W/"other"'}).status_code == 200
    assert "etag" not in client.get("/nope").headers
    assert "max-age" in client.get("/static/site.css").headers["cache-control"]


def test_reingest_switches_every_route_at_once(served):
    path, app, c = served
    old_id = c.get("/api/health").json()["store_id"]
    assert c.get("/api/nodes/sv-2007/16").json()["title"] == OLD
    seen: list[tuple[str, str]] = []
    stop = threading.Event()

    def hammer():
        while not stop.is_set():
            for url in ("/api/nodes/sv-2007/16", "/api/nodes/sv-2007/16/ego", "/doc/sv-2007/16"):
                r = c.get(url)
                if r.status_code == 503:  # the store moved under a new connection: retry
                    assert r.headers["retry-after"] == "1"
                    continue
                assert r.status_code == 200
                seen.append((r.headers["etag"], NEW if NEW in r.text else OLD))

    threads = [threading.Thread(target=hammer) for _ in range(3)]
    for t in threads:
        t.start()
    new_id = variant(path, path, NEW)
    app.state.holder.wait_for(new_id)
    for _ in range(20):
        c.get("/api/health")
    stop.set()
    for t in threads:
        t.join()
    assert c.get("/api/health").json()["store_id"] == new_id != old_id
    assert c.get("/api/nodes/sv-2007/16").json()["title"] == NEW
    ego = c.get("/api/nodes/sv-2007/16/ego").json()
    assert NEW in json.dumps(ego, ensure_ascii=False)
    assert NEW in c.get("/doc/sv-2007/16").text
    assert NEW in c.get("/graph/sv-2007/16").text
    # every answer came whole from one store: its ETag names the store its text is from
    by_tag = {}
    for tag, title in seen:
        by_tag.setdefault(tag, set()).add(title)
    assert all(len(titles) == 1 for titles in by_tag.values()), by_tag
    assert {t for tag, (t,) in by_tag.items() if new_id[:24] in tag} <= {NEW}


def corrupt_title(path: Path) -> None:
    """Change one byte of a title inside the store file (pages stay readable)."""
    data = bytearray(path.read_bytes())
    at = data.find(OLD.encode())
    assert at > 0
    data[at] = ord("X")
    path.write_bytes(bytes(data))


def corrupt_middle(path: Path) -> None:
    """16 KB of random bytes in the middle of the file."""
    data = bytearray(path.read_bytes())
    mid = len(data) // 2
    data[mid : mid + 16384] = os.urandom(16384)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [corrupt_title, corrupt_middle])
def test_damaged_store_is_refused(ingested, tmp_path, damage):
    path = tmp_path / "lawgraph.db"
    shutil.copy(ingested[0], path)
    damage(path)
    with pytest.raises(store.StoreError, match="damaged.*lawgraph ingest") as err:
        create_app(path)
    assert "\n" not in str(err.value)
    assert ingest_store.stored_input_hash(path) is None  # so the next ingest rebuilds it
    from click.testing import CliRunner

    from lawgraph.api.cli import main

    r = CliRunner().invoke(main, ["serve", "--db", str(path)])
    assert r.exit_code != 0 and "damaged" in r.output and "Traceback" not in r.output


def test_damaged_replacement_is_not_served(served):
    path, app, c = served
    old_id = c.get("/api/health").json()["store_id"]
    bad = path.with_name("bad.db")
    shutil.copy(path, bad)
    corrupt_title(bad)
    os.replace(bad, path)
    app.state.holder.wait_for()
    h = c.get("/api/health").json()
    assert h["store_id"] == old_id and "damaged" in h["warning"]
    for _ in range(10):  # answers come from the old, sound store or are refused: never wrong
        r = c.get("/doc/sv-2007/16")
        assert r.status_code in (200, 503)
        if r.status_code == 200:
            assert OLD in r.text


def test_unexpected_failure_is_a_json_or_html_500(served, monkeypatch):
    path, app, _ = served
    c = TestClient(app, raise_server_exceptions=False)

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(store, "documents", boom)
    r = c.get("/api/documents")
    assert r.status_code == 500 and r.json()["error"]["code"] == "internal"
    assert r.headers["x-request-id"] in r.json()["error"]["message"]
    r = c.get("/doc/sv-2007")
    assert r.status_code == 500 and r.headers["content-type"].startswith("text/html")
    assert "boom" not in r.text


def test_work_in_flight_is_bounded(served):
    """With one request held in flight, the next gets 503 + Retry-After; health still answers."""
    _, app, _ = served
    release = asyncio.Event()

    async def slow(scope, receive, send):
        if scope["path"] == "/slow":
            await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    mw = ServingMiddleware(slow, app.state.holder, max_in_flight=1)

    async def call(path):
        sent, asked = [], []

        async def send(message):
            sent.append(message)

        async def receive():
            asked.append(1)
            if len(asked) == 1:
                return {"type": "http.request", "body": b"", "more_body": False}
            await asyncio.sleep(3600)  # the client stays until the answer is sent

        scope = {"type": "http", "method": "GET", "path": path, "headers": [(b"host", b"x")]}
        await mw(scope, receive, send)
        return sent[0]["status"], dict(sent[0]["headers"])

    async def scenario():
        first = asyncio.create_task(call("/slow"))
        await asyncio.sleep(0.01)
        second = await call("/other")
        health = await call("/api/health")
        release.set()
        return await first, second, health

    with ThreadPoolExecutor(1) as pool:  # a loop of its own, whatever else the suite runs
        first, second, health = pool.submit(asyncio.run, scenario()).result()
    assert first[0] == 200 and health[0] == 200
    assert second[0] == 503 and second[1][b"retry-after"] == b"1"
    assert mw.in_flight == 0


def test_connections_of_a_snapshot_share_what_is_derived(served):
    path, app, c = served
    snap = app.state.holder.current()
    with snap.connection() as a, snap.connection() as b:  # two connections at once
        assert a is not b
        assert a.derived is b.derived is snap.derived
    assert c.get("/api/search", params={"q": "straffkort"}).status_code == 200
    assert "search.tables" in snap.derived and "documents" in snap.derived
    new_id = variant(path, path, NEW)  # another store: nothing derived from the old one
    new = app.state.holder.wait_for(new_id)
    assert new.derived is not snap.derived
    hit = c.get("/api/search", params={"q": "sv-2007/16"}).json()["hits"][0]
    assert hit["id"] == "sv-2007/16" and hit["title"] == NEW


def test_a_settled_worker_frees_the_old_store_after_a_switch(ingested, tmp_path):
    """A worker keeps what it serves out of the garbage collector's way (``gc.freeze``);
    after a switch it waits for the requests still answered from the old store, so the old
    store is freed, not frozen with the new one."""
    import gc
    import weakref

    from lawgraph.graph.build import build_graph
    from lawgraph.store.serving import StoreHolder

    path = tmp_path / "lawgraph.db"
    shutil.copy(ingested[0], path)
    holder = StoreHolder(path, build_graph, settle=True)
    pinned = holder.current()  # a request still being answered from the old store
    old_graph = weakref.ref(pinned.graph)  # a graph refers to itself: only gc frees it
    try:
        new = holder.wait_for(variant(path, path, NEW))
        del pinned  # that request is done
        holder.wait_for()  # settled
        assert gc.get_freeze_count() > 0  # the new snapshot, frozen
        gc.collect()
        assert old_graph() is None and holder.current() is new
    finally:
        gc.unfreeze()


def test_serving_does_not_load_spacy(ingested):
    """The server folds and stems words but never builds a spaCy pipeline: spaCy (some 45 MB
    per worker process) is not even imported."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from fastapi.testclient import TestClient\n"
        "from lawgraph.api.app import create_app\n"
        f"c = TestClient(create_app({str(ingested[0])!r}))\n"
        "for url in ['/', '/doc/sv-2007/16', '/compare/16', '/graph/sv-2007/16',\n"
        "            '/search?q=kort', '/api/search?q=straffkortet',\n"
        "            '/api/search?q=revokki&expand=true']:\n"
        "    assert c.get(url).status_code == 200, url\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'spacy'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).parent.parent, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_short_routes_run_on_the_event_loop(ingested):
    """A route marked ``on_loop`` runs where ``async`` routes run (no thread hand-off), with
    its parameters and dependencies handled as for any route; others run on worker threads."""
    from lawgraph.store.deps import Con, on_loop

    app = create_app(ingested[0])

    @app.get("/test/async")
    async def on_async() -> dict:
        return {"thread": threading.get_ident()}

    @app.get("/test/on-loop/{doc}")
    @on_loop
    def marked(doc: str, con: Con, n: int = 1) -> dict:
        title = con.execute("SELECT title FROM documents WHERE id = ?", (doc,)).fetchone()[0]
        return {"thread": threading.get_ident(), "title": title, "n": n}

    @app.get("/test/threaded")
    def threaded() -> dict:
        return {"thread": threading.get_ident()}

    with TestClient(app) as c:
        loop_thread = c.get("/test/async").json()["thread"]
        r = c.get("/test/on-loop/sv-2007", params={"n": 3}).json()
        assert r == {"thread": loop_thread, "title": r["title"], "n": 3} and r["title"]
        assert c.get("/test/on-loop/sv-2007", params={"n": "x"}).status_code == 400
        assert c.get("/test/threaded").json()["thread"] != loop_thread


def read_export(client, fmt, **params):
    import io

    import networkx as nx

    r = client.get("/api/graph/export", params={"format": fmt, **params})
    assert r.status_code == 200, r.text
    if fmt == "gexf":
        return nx.read_gexf(io.BytesIO(r.content)), "edge_type"
    return nx.read_graphml(io.BytesIO(r.content), force_multigraph=True), "type"


@pytest.mark.parametrize("fmt", ["gexf", "graphml"])
def test_exports_keep_edge_types_and_filter(client, g, fmt):
    h, key = read_export(client, fmt)
    assert h.number_of_nodes() == g.number_of_nodes()
    assert h.number_of_edges() == g.number_of_edges()
    assert {d[key] for *_, d in h.edges(data=True)} == {"contains", "cites", "aligned", "indexes"}
    e = next(d for u, v, d in h.edges(data=True) if (u, v) == ("fi-1997/16A", "el-2017/16B"))
    assert e[key] == "aligned" and e["relation"] == "renumbered" and 0 < float(e["score"]) <= 1
    sv, key = read_export(client, fmt, doc="sv-2007")
    assert sv.number_of_nodes() > 500 and {d["doc"] for _, d in sv.nodes(data=True)} == {"sv-2007"}
    assert {d[key] for *_, d in sv.edges(data=True)} == {"contains", "cites", "indexes"}
    two, key = read_export(client, fmt, doc="sv-2007,fi-2007", types="cites,aligned")
    assert {d[key] for *_, d in two.edges(data=True)} == {"cites", "aligned"}
    assert {d["doc"] for _, d in two.nodes(data=True)} == {"sv-2007", "fi-2007"}
    want = sum(1 for u, v, d in g.edges(data=True) if d["type"] in ("cites", "aligned")
               and {g.nodes[u]["doc"], g.nodes[v]["doc"]} <= {"sv-2007", "fi-2007"})  # fmt: skip
    assert two.number_of_edges() == want


def test_json_and_csv_exports_filter(client):
    data = client.get("/api/graph/export", params={"doc": "el-2017", "types": "cites"}).json()
    assert {n["doc"] for n in data["nodes"]} == {"el-2017"}
    assert data["edges"] and {e["type"] for e in data["edges"]} == {"cites"}
    assert [d["id"] for d in data["documents"]] == ["el-2017"]
    r = client.get("/api/graph/export", params={"format": "csv", "types": "aligned"})
    lines = r.text.splitlines()
    assert lines[0].startswith("source,target,type") and len(lines) > 100
    assert all(",aligned," in line for line in lines[1:])
    assert 'filename="lawgraph-aligned.csv"' in r.headers["content-disposition"]


@pytest.mark.parametrize("params", [{"format": "pdf"}, {"doc": "zz-1"}, {"types": "cites,foo"},
                                    {"doc": "x" * 300}])  # fmt: skip
def test_bad_export_parameters_are_400(client, params):
    r = client.get("/api/graph/export", params=params)
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"


def test_graph_page_download_links_pass_filters(client):
    from bs4 import BeautifulSoup

    html = client.get("/graph/sv-2007/16B1", params={"types": "cites"}).text
    links = [a["href"] for a in BeautifulSoup(html, "html.parser").select(".exports a[download]")]
    gexf = next(x for x in links if "format=gexf" in x and "doc=" in x)
    assert "doc=sv-2007" in gexf and "types=cites" in gexf
    h, key = read_export(client, "gexf", doc="sv-2007", types="cites")
    assert client.get(gexf).content.count(b"<node ") == h.number_of_nodes()


@pytest.fixture(scope="module")
def g(con):
    from lawgraph.graph.build import build_graph

    return build_graph(con)


def test_openapi_documents_400_not_422(client):
    spec = client.get("/openapi.json").json()
    ops = [op for path in spec["paths"].values() for op in path.values()]
    assert not any("422" in op["responses"] for op in ops)
    search = spec["paths"]["/api/search"]["get"]["responses"]["400"]
    assert search["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorResponse")
    assert "ErrorResponse" in spec["components"]["schemas"]
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    assert client.get("/api/search", params={"limit": "x"}).status_code == 400


def test_openapi_describes_every_parameter(client):
    """Each parameter of the JSON API says what it takes, and the search's kinds are the
    ones the search accepts."""
    from lawgraph.store.search import KIND_FILTERS

    spec = client.get("/openapi.json").json()
    params = [
        (path, p)
        for path, ops in spec["paths"].items()
        for op in ops.values()
        for p in op.get("parameters", [])
    ]
    assert len(params) > 40
    bare = [(path, p["name"]) for path, p in params if not p.get("description")]
    assert bare == []
    kind = next(p for path, p in params if path == "/api/search" and p["name"] == "kind")
    assert all(k in kind["description"] for k in KIND_FILTERS)
    divergences = {p["name"]: p for path, p in params if path == "/api/divergences"}
    assert divergences["a"]["description"] != divergences["b"]["description"]


@pytest.mark.parametrize("cache_mb", [32, 0])
def test_answer_cache_reuses_answers_of_the_same_store(ingested, monkeypatch, cache_mb):
    c = TestClient(create_app(ingested[0], cache_mb=cache_mb))
    calls = []
    real = store.documents

    def counting(con):
        calls.append(1)
        return real(con)

    monkeypatch.setattr(store, "documents", counting)
    first = c.get("/api/documents", headers={"accept-encoding": "identity"})
    second = c.get("/api/documents", headers={"accept-encoding": "identity"})
    assert first.status_code == second.status_code == 200 and first.content == second.content
    assert second.headers["x-request-id"] != first.headers["x-request-id"]
    assert len(calls) == (1 if cache_mb else 2)
    zipped = c.get("/api/documents", headers={"accept-encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip" and zipped.json() == first.json()
    assert c.get("/api/documents/zz-1").status_code == 404  # errors are not kept
    assert c.get("/api/documents/zz-1").status_code == 404
