import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from lawgraph.api import commands
from lawgraph.api.app import create_app
from lawgraph.api.cli import exit_status, main
from lawgraph.ingest import pipeline

CONSOLE = [sys.executable, "-c", "from lawgraph.api.cli import run; run()"]
"""The ``lawgraph`` console script (``run``), in a process of its own."""


@pytest.fixture(scope="module")
def client(ingested):
    return TestClient(create_app(ingested[0]))


def run(*args, db):
    result = CliRunner().invoke(main, [*args, "--db", str(db)])
    return result


def test_cli_show_any_label_form(ingested):
    db = ingested[0]
    for typed in ["sv-2007/16B1", "sv-2007/16 B 1", "sv-2007/lag 16B1"]:
        r = run("show", typed, "--json", db=db)
        assert r.exit_code == 0, r.output
        data = json.loads(r.output)
        assert data["id"] == "sv-2007/16B1"
        assert [c["label"] for c in data["children"]][:2] == ["16B1(a)", "16B1(b)"]
    r = run("show", "el-2017/Νόμος 20ΣΤ5", "--json", db=db)
    assert r.exit_code == 0 and json.loads(r.output)["id"] == "el-2017/20F5"


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("xx-2000/16", "unknown document"),
        ("nope/16", "unknown document 'nope'"),
        ("sv-2007/999Z", "has no provision"),
        ("sv-2007/hello world", "not a provision label"),
        ("nonsense", "not a node id"),
    ],
)
def test_cli_show_errors_are_clear(ingested, typed, message):
    r = run("show", typed, db=ingested[0])
    assert r.exit_code != 0
    assert message in r.output and "Traceback" not in r.output


def test_cli_laws_and_export(ingested, tmp_path):
    db = ingested[0]
    r = run("laws", "fi-2007", "--json", db=db)
    laws = json.loads(r.output)
    assert len(laws) == 93 and sum(x["has_text"] for x in laws) == 18
    r = run("laws", "sv-2007", "--json", db=db)
    assert sum(x["supplement"] for x in json.loads(r.output)) == 23
    assert run("laws", "zz-1", db=db).exit_code != 0
    out = tmp_path / "g.json"
    r = CliRunner().invoke(main, ["export", "--db", str(db), "--format", "json", "-o", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text("utf-8"))
    assert set(data) == {"documents", "nodes", "edges"}
    assert f"{len(data['nodes'])} nodes, {len(data['edges'])} edges" in r.output
    r = run("laws", "et-1930s", db=db)
    assert r.exit_code == 0 and "no numbered laws (it has 149 topics)" in r.output
    assert {"id", "doc", "label", "kind", "law", "title", "text", "parent"} <= set(data["nodes"][0])
    ids = {n["id"] for n in data["nodes"]}
    assert all(e["source"] in ids and e["target"] in ids for e in data["edges"])
    assert {e["type"] for e in data["edges"]} >= {"contains", "indexes"}


def test_cli_without_store_is_clear(tmp_path):
    r = run("laws", "sv-2007", db=tmp_path / "missing.db")
    assert r.exit_code != 0 and "lawgraph ingest" in r.output


def test_api_documents_and_node(client):
    docs = client.get("/api/documents").json()
    assert [d["id"] for d in docs] == ["fi-1997", "el-2017", "et-1930s", "fi-2007", "sv-2007"]
    r = client.get("/api/nodes/el-2017/80B2")
    assert r.status_code == 200
    body = r.json()
    assert [c["label"] for c in body["children"] if c["kind"] == "item"] == [
        f"80B2({x})" for x in "abcdefghijkl"
    ]
    assert [c["label"] for c in body["breadcrumbs"]][-2:] == ["80", "80B"]


@pytest.mark.parametrize(
    "path",
    ["/api/nodes/xx/1", "/api/nodes/sv-2007/999", "/api/nodes/%00", "/api/documents/nope",
     "/api/documents/nope/laws", "/api/nodes/sv-2007/" + "A" * 5000],
)  # fmt: skip
def test_api_errors_are_json_404(client, path):
    r = client.get(path)
    assert r.status_code == 404
    assert set(r.json()["error"]) == {"code", "message"}


def test_pages(client):
    home = client.get("/")
    assert home.status_code == 200 and "sv-2007" in home.text and "<title>" in home.text
    page = client.get("/doc/sv-2007/16B1")
    assert page.status_code == 200 and 'lang="sv"' in page.text and "16B1(a)" in page.text
    assert client.get("/doc/sv-2007/<script>").status_code == 404
    assert "&lt;script&gt;" in client.get("/doc/sv-2007/<script>").text


@pytest.mark.skipif(sys.platform != "linux", reason="worker processes are forked on Linux only")
def test_cli_ingest_progress_bars_leave_the_workers_on(tmp_path):
    """The progress bars start no thread, so `lawgraph ingest` (`make run`) forks its
    workers and runs the glossary and search stages beside the others."""
    out = subprocess.run(
        [*CONSOLE, "ingest", "--db", str(tmp_path / "s.db"), "--force"],
        capture_output=True, text=True, check=True, env={**os.environ, "LAWGRAPH_JOBS": "2"},
    )  # fmt: skip
    times = next(line for line in out.stdout.splitlines() if line.startswith("stage times:"))
    assert "waited for glossary" in times and "waiting for search" in times
    assert "corpus" in out.stderr and "divergences" in out.stderr  # the stage bar


@pytest.mark.parametrize(
    ("args", "status", "out", "err"),
    [
        (["--help"], 0, "Usage: ", ""),
        (["nosuch"], 2, "", "No such command 'nosuch'"),
        (["ingest", "--corpus", "/nonexistent-corpus"], 1, "", "manifest not found"),
        (["search", "revoke", "--db", "none.db"], 1, "", "no store at none.db"),
    ],
)
def test_console_script_ends_with_the_status_and_all_the_output(args, status, out, err, tmp_path):
    """``run`` skips the interpreter's teardown: the status is click's and nothing
    written to a pipe is lost."""
    got = subprocess.run(
        [*CONSOLE, *args], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert got.returncode == status, got.stderr
    assert out in got.stdout and err in got.stderr
    if args == ["--help"]:  # every command is listed, the last one too
        listed = [line.split()[0] for line in got.stdout.split("Commands:")[1].splitlines()[1:]]
        assert listed == list(commands.PLACES)


@pytest.mark.parametrize(
    ("body", "status", "out", "err"),
    [
        ("sys.stdout.write('done')", 0, "done", ""),  # left in the buffer: never flushed
        ("1 / 0", 1, "", "ZeroDivisionError"),
        ("sys.exit('stopped here')", 1, "", "stopped here"),
    ],
)
def test_console_script_around_any_command_body(body, status, out, err, tmp_path):
    """What ``run`` does whatever the command does: a buffered write still reaches the
    pipe, an uncaught error prints its traceback and ends with 1, a message with 1."""
    code = f"import sys\nimport lawgraph.api.cli as cli\ncli.main = lambda: {body}\ncli.run()\n"
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    got = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True, text=True, cwd=tmp_path, timeout=60, env=buffered,
    )  # fmt: skip
    assert got.returncode == status, got.stderr
    assert got.stdout == out and err in got.stderr


def test_exit_status_is_pythons():
    assert exit_status(None) == 0
    assert exit_status(0) == 0
    assert exit_status(143) == 143
    assert exit_status("a message") == 1


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/api/alignments?limit=abc", "limit must be a whole number, not 'abc'"),
        ("/api/alignments?limit=0", "limit must be at least 1, not '0'"),
        ("/api/graph/rank?doc=fi-2007&top=999", "top must be at most 200, not '999'"),
        ("/api/graph/path?a=fi-2007/1&b=fi-2007/2&either=maybe", "either must be true or false"),
        ("/api/graph/path?a=fi-2007/1", "b is required"),
        ("/api/alignments?method=magic", "method must be one of 'label'"),
        ("/api/lexicon?word=" + "x" * 101, "word is too long (at most 100 characters)"),
        ("/api/lexicon?word=revokki&lang=FINNISH", "lang is not in the expected form"),
    ],
)
def test_bad_parameters_are_told_in_plain_words(client, path, message):
    r = client.get(path)
    assert r.status_code == 400, path
    text = r.json()["error"]["message"]
    assert message in text and "Input should" not in text and "query." not in text


def test_every_command_is_listed_where_it_is_defined():
    from lawgraph.api import commands

    every = commands.every_command()
    assert [c.name for c in every] == list(commands.PLACES)
    assert all(commands.command(c.name) is c for c in every)
    assert commands.command("no-such-command") is None
    listed = CliRunner().invoke(main, ["--help"]).output
    assert all(f"  {name} " in listed for name in commands.PLACES)


def test_lawgraph_ingest_starts_without_the_alignment_stack():
    # `make run` forks its parse workers at once: the command loads no more than it needs
    code = (
        "import sys; from lawgraph.api.commands import command; command('ingest'); "
        "print(sorted(m for m in ('lawgraph.ingest.align', 'scipy', 'spacy', 'fastapi') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_lawgraph_ingest_reaches_its_parse_workers_before_the_stages_imports(tmp_path):
    """The progress bar's stage names come without importing the stages: the alignment's
    modules (scipy among them) load in the parent while the workers parse, not before."""
    code = (
        "import sys\n"
        "from lawgraph.ingest import pipeline\n"
        "from lawgraph.api.cli import main\n"
        "def parse(*a, **k):\n"
        "    print(sorted(m for m in ('lawgraph.ingest.align', 'scipy', 'spacy') "
        "if m in sys.modules))\n"
        "    raise SystemExit(0)\n"
        "pipeline._parse_all = parse\n"
        f"main(['ingest', '--db', {str(tmp_path / 's.db')!r}])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert [n for n, _ in pipeline.corpus_stages()] == list(pipeline.STAGE_NAMES)


CONTROL = ["/search?q=%00", "/search?q=a%00b", "/go?label=%00", "/glossary?q=%01",
           "/api/search?q=%00", "/api/lexicon?word=%7f"]  # fmt: skip


@pytest.mark.parametrize("path", CONTROL)
def test_a_control_character_in_the_address_is_a_clear_400(client, path):
    r = client.get(path)
    assert r.status_code == 400 and "control character" in r.text and "\x00" not in r.text
    if path.startswith("/api"):
        assert r.json()["error"]["code"] == "bad_request"


def test_tabs_and_ordinary_text_pass(client):
    assert client.get("/search?q=kort%09bud").status_code == 200
