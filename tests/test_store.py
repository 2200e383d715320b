import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from lawgraph.ingest import pipeline, store
from lawgraph.ingest.corpus import DEFAULT_CORPUS, CorpusError, load_manifest
from lawgraph.ingest.pipeline import ingest_corpus


def _corpus_copy(tmp_path: Path, only: str = "sv-2007") -> Path:
    """A corpus folder holding one document of the real manifest."""
    d = tmp_path / "corpus"
    d.mkdir()
    doc = next(x for x in load_manifest() if x.id == only)
    shutil.copy(DEFAULT_CORPUS / doc.source, d / doc.source)
    text = (DEFAULT_CORPUS / "manifest.toml").read_text("utf-8")
    head, *entries = text.split("\n[[document]]")
    keep = [e for e in entries if f'id = "{only}"' in e]
    (d / "manifest.toml").write_text(head + "\n[[document]]" + keep[0], "utf-8")
    return d


def test_manifest_describes_every_corpus_file():
    docs = load_manifest()
    assert [d.id for d in docs] == ["fi-1997", "el-2017", "et-1930s", "fi-2007", "sv-2007"]
    sources = {p.name for p in DEFAULT_CORPUS.glob("*.txt")}
    assert {d.source for d in docs} == sources
    assert all(d.completeness for d in docs)


def test_corpus_is_byte_for_byte_the_shared_one():
    """The manifest records each book's checksum as copied from the shared corpus."""
    manifest = tomllib.loads((DEFAULT_CORPUS / "manifest.toml").read_text("utf-8"))
    for entry in manifest["document"]:
        data = (DEFAULT_CORPUS / entry["source"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["source"]


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "is empty"), (b"   \n\n", "is empty"), (b"\xff\xfe\x00bad", "not UTF-8")],
)
def test_broken_corpus_file_fails_naming_it(tmp_path, content, message):
    corpus = _corpus_copy(tmp_path)
    src = next(corpus.glob("*.txt"))
    src.write_bytes(content)
    with pytest.raises(CorpusError, match=message) as err:
        ingest_corpus(tmp_path / "x.db", corpus)
    assert src.name in str(err.value) and "sv-2007" in str(err.value)
    assert not (tmp_path / "x.db").exists()


def test_missing_corpus_file_and_bad_manifest(tmp_path):
    corpus = _corpus_copy(tmp_path)
    next(corpus.glob("*.txt")).unlink()
    with pytest.raises(CorpusError, match="cannot read"):
        ingest_corpus(tmp_path / "x.db", corpus)
    (corpus / "manifest.toml").write_text("[[document]\nid=", "utf-8")
    with pytest.raises(CorpusError, match="malformed manifest"):
        load_manifest(corpus)


def test_store_roundtrip_skip_and_force(tmp_path):
    corpus = _corpus_copy(tmp_path)
    db = tmp_path / "var" / "s.db"
    first = ingest_corpus(db, corpus)
    assert not first.skipped and db.is_file()
    con = store.open_store(db)
    assert store.meta(con, "schema_version") == str(store.SCHEMA_VERSION)
    n = con.execute("SELECT count(*) FROM nodes").fetchone()[0]
    assert n == first.documents[0].stats["nodes"] > 100
    row = con.execute("SELECT start, end FROM nodes WHERE id='sv-2007/16'").fetchone()
    raw = (corpus / load_manifest(corpus)[0].source).read_text("utf-8")
    assert raw[row["start"] : row["end"]].startswith("16. TILLÅTNA")
    con.close()
    assert ingest_corpus(db, corpus).skipped
    assert not ingest_corpus(db, corpus, force=True).skipped
    # a changed input is re-ingested
    src = next(corpus.glob("*.txt"))
    src.write_text(src.read_text("utf-8") + "\n", "utf-8")
    assert not ingest_corpus(db, corpus).skipped


def test_stages_run_in_order_and_leave_their_stats(tmp_path):
    corpus = _corpus_copy(tmp_path)
    report = ingest_corpus(tmp_path / "s.db", corpus)
    assert list(report.stages) == ["glossary", "align", "search", "divergences", "compare"]
    con = store.open_store(tmp_path / "s.db")
    for name, stats in report.stages.items():
        assert store.stage_stats(con, name) == stats
    assert store.meta(con, "corpus_dir") == str(corpus.resolve())
    assert store.has_table(con, "nodes") and not store.has_table(con, "no_such_table")
    con.close()


def test_failing_stage_leaves_old_store_and_no_temp(tmp_path, monkeypatch):
    corpus = _corpus_copy(tmp_path)
    db = tmp_path / "s.db"
    ingest_corpus(db, corpus)
    before = db.read_bytes()
    seen = []

    def failing(con):
        seen.append(con.execute("SELECT count(*) FROM nodes").fetchone()[0])
        raise RuntimeError("stage broke")

    monkeypatch.setattr(pipeline, "corpus_stages", lambda: [("broken", failing)])
    with pytest.raises(CorpusError, match="the broken stage failed: RuntimeError: stage broke"):
        ingest_corpus(db, corpus, force=True)
    assert seen and seen[0] > 100  # the stage saw the documents already written
    assert db.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("where", ["while writing", "before rename"])
def test_interrupted_ingest_leaves_old_store_and_no_temp(tmp_path, monkeypatch, where):
    corpus = _corpus_copy(tmp_path)
    db = tmp_path / "s.db"
    ingest_corpus(db, corpus)
    before = db.read_bytes()

    def boom(*a, **k):
        raise KeyboardInterrupt

    if where == "while writing":
        monkeypatch.setattr(store.json, "dumps", boom)
    else:
        monkeypatch.setattr(store.os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        ingest_corpus(db, corpus, force=True)
    monkeypatch.undo()
    assert db.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_open_store_errors(tmp_path):
    with pytest.raises(store.StoreError, match="run `lawgraph ingest`"):
        store.open_store(tmp_path / "none.db")
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(store.StoreError, match="not a lawgraph store"):
        store.open_store(junk)


def test_what_is_derived_is_kept_per_read_only_connection(ingested):
    made = []

    def make(con):
        made.append(con)
        return {"documents": con.execute("SELECT count(*) FROM documents").fetchone()[0]}

    ro = store.open_store(ingested[0])
    first = store.derived(ro, "count", make)
    assert store.derived(ro, "count", make) is first and len(made) == 1
    other = store.open_store(ingested[0])  # another connection keeps its own
    assert store.derived(other, "count", make) == first and len(made) == 2
    plain = sqlite3.connect(ingested[0])  # may write: made every time
    plain.row_factory = sqlite3.Row
    store.derived(plain, "count", make)
    store.derived(plain, "count", make)
    assert len(made) == 4
    from lawgraph import store as readers

    docs = readers.documents(ro)  # kept, but every caller gets dicts of its own
    docs[0]["title"] = "changed"
    docs[0]["stats"].clear()
    again = readers.documents(ro)
    assert again[0]["title"] != "changed" and again[0]["stats"]
    assert again == readers.documents(plain)
    for c in (ro, other, plain):
        c.close()


def test_resolve_db_env(monkeypatch, tmp_path):
    monkeypatch.setenv("LAWGRAPH_DB", str(tmp_path / "e.db"))
    assert store.resolve_db(None) == tmp_path / "e.db"
    assert store.resolve_db("a.db") == Path("a.db")
    monkeypatch.delenv("LAWGRAPH_DB")
    assert store.resolve_db(None) == Path("var/lawgraph.db")


def test_parser_failure_names_the_book(tmp_path, monkeypatch):
    corpus = _corpus_copy(tmp_path)

    def broken(raw, doc):
        raise IndexError("list index out of range")

    from lawgraph.ingest import pipeline

    monkeypatch.setattr(pipeline, "parse_document", broken)
    with pytest.raises(CorpusError, match="sv-2007: the sv2007 parser failed on 004_"):
        ingest_corpus(tmp_path / "x.db", corpus)
    assert not (tmp_path / "x.db").exists()


def test_failing_stage_beside_the_others_leaves_old_store_and_no_temp(tmp_path, monkeypatch):
    """A stage run in the forked process beside the alignment fails: the ingest says which,
    the old store stays and no temp file (nor its WAL files) is left."""
    corpus = _corpus_copy(tmp_path)
    db = tmp_path / "s.db"
    ingest_corpus(db, corpus)
    before = db.read_bytes()

    def counting(con):
        return {"nodes": con.execute("SELECT count(*) FROM nodes").fetchone()[0]}

    def failing(con):
        raise RuntimeError("index broke")

    monkeypatch.setattr(
        pipeline, "corpus_stages", lambda: [("glossary", counting), ("search", failing)]
    )
    with pytest.raises(CorpusError, match="the search stage failed: RuntimeError: index broke"):
        ingest_corpus(db, corpus, force=True, workers=2)
    assert db.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if ".tmp" in p.name] == []
    monkeypatch.setattr(
        pipeline, "corpus_stages", lambda: [("glossary", counting), ("search", counting)]
    )
    report = ingest_corpus(db, corpus, force=True, workers=2)
    assert report.stages["glossary"]["nodes"] == report.stages["search"]["nodes"] > 100
    assert [p.name for p in tmp_path.iterdir() if ".tmp" in p.name or "-wal" in p.name] == []


def _run_marked(tmp_path: Path, script: str):
    """Run ``script`` (arguments: a one-book corpus, a folder for its time marks, a store)
    in a process of its own (forking needs a process where no other thread runs): what
    it printed last, a reader of its marks, and their folder."""
    corpus = _corpus_copy(tmp_path)
    marks = tmp_path / "marks"
    marks.mkdir()
    args = [str(corpus), str(marks), str(tmp_path / "s.db")]
    out = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, check=True
    )

    def mark(what: str) -> float:
        return float((marks / what).read_text())

    return json.loads(out.stdout.strip().splitlines()[-1]), mark, marks


AFTER_SCRIPT = """
import json, os, sqlite3, sys, time
from pathlib import Path
from lawgraph.ingest import pipeline, processes, store
marks = Path(sys.argv[2])

def stage(name, table, seconds=0.0, reads=None, milestone=None):
    def run(con):
        (marks / f"{name} start").write_text(str(time.time()))
        if reads:  # a table of a stage beside: this one waits for it
            con.execute(f"SELECT count(*) FROM {reads}").fetchone()
        con.execute(f"CREATE TABLE {table} (x TEXT)")
        con.commit()  # the table is there, empty, while the stage runs on
        time.sleep(seconds / 2)
        if milestone:
            (marks / "milestone").write_text(str(time.time()))
            processes.reached(milestone)
        con.executemany(f"INSERT INTO {table} VALUES (?)", [(name,), (str(seconds),)])
        con.commit()
        time.sleep(seconds / 2)
        (marks / f"{name} end").write_text(str(time.time()))
        return {}
    return run

def after_prepare(con):
    (marks / "after prepare").write_text(str(time.time()))
    return {}

def after_finish(con, prepared):
    return stage(after, pipeline.BESIDE[after][-1])(con)

def prepare(con):
    (marks / "prepare start").write_text(str(time.time()))
    return {"pid": os.getpid(), "nodes": con.execute("SELECT count(*) FROM nodes").fetchone()[0]}

def finish(con, prepared):
    (marks / "finish").write_text(json.dumps({**prepared, "parent": os.getpid()}))
    return stage("last", "made_last")(con)

after, before = next(iter(pipeline.AFTER.items()))
[(last, trigger)] = pipeline.EARLY.items()
assert trigger == before
stages = [
    ("glossary", stage("glossary", pipeline.BESIDE["glossary"][0])),
    (before, stage(before, "made_before", 1.5, reads=pipeline.BESIDE["glossary"][0],
                   milestone=processes.computed(before))),
    (after, store.TwoSteps(after_prepare, after_finish)),
    ("between", stage("between", "made_between", 2.0)),
    (last, store.TwoSteps(prepare, finish)),
]
pipeline.corpus_stages = lambda: stages
known = {}
content_hash = store.content_hash

def spy(con, digests=None):
    known.update(digests or {})
    return content_hash(con, digests)

store.content_hash = spy
assert pipeline._forking_allowed(2), "no forking here"
db = Path(sys.argv[3])
report = pipeline.ingest_corpus(db, Path(sys.argv[1]), force=True, workers=2)
checked = store.verify_store(sqlite3.connect(db), db)  # every table digested again here

def broken(con):
    raise ValueError("no line-up")

stages[-1] = (last, store.TwoSteps(broken, finish))
marks = marks / "again"  # the marks of the first ingest stay
marks.mkdir()
try:
    pipeline.ingest_corpus(db, Path(sys.argv[1]), force=True, workers=2)
    failed = ""
except Exception as exc:
    failed = f"{type(exc).__name__}: {exc}"
print(json.dumps({"stages": sorted(report.stages), "before": before, "after": after,
                  "last": last, "known": sorted(known), "checked": checked, "failed": failed,
                  "kept": store.verify_store(sqlite3.connect(db), db)}))
"""


def test_a_stage_run_beside_after_another_starts_once_that_one_ended(tmp_path):
    """The search index (:data:`pipeline.AFTER`) is analysed in its process from the
    alignment's "computed" milestone and written only once the alignment has ended in the
    parent; a stage not in it is not held back (and with no alignment in the ingest, the
    search is not held back either: the test above). That process then digests its own
    tables and those made before the alignment ended (a table the alignment made and still
    fills is not digested before it ended), and the store's content hash made with them is
    the one made from scratch. The first step
    of the comparisons (:data:`pipeline.EARLY`) runs in a process of its own from the end
    of the alignment, beside the stage between; its failure names the stage. In a process
    of its own: forking needs a process where no other thread runs."""
    got, mark, marks = _run_marked(tmp_path, AFTER_SCRIPT)
    before, after, last = got["before"], got["after"], got["last"]
    assert got["stages"] == sorted(["glossary", before, after, "between", last])

    assert mark(f"{after} start") >= mark(f"{before} end")
    assert mark("milestone") <= mark("after prepare") < mark(f"{before} end")
    assert mark("glossary end") < mark(f"{before} end")  # not held back: it is not in AFTER
    glossary, search = pipeline.BESIDE["glossary"][0], pipeline.BESIDE[after][-1]
    assert {"nodes", "citations", glossary, "made_before", search} <= set(got["known"])
    assert "made_last" not in got["known"]  # made after: digested by the parent
    assert len(got["checked"]) == 64
    # the first step of the last stage ran in a process of its own beside "between"
    assert mark(f"{before} end") <= mark("prepare start") < mark("between end")
    finished = json.loads((marks / "finish").read_text())
    assert finished["nodes"] > 100 and finished["pid"] != finished["parent"]
    assert got["failed"] == f"CorpusError: the {last} stage failed: ValueError: no line-up"
    assert got["kept"] == got["checked"]  # the store of the ingest that failed is not written


LATE_SCRIPT = """
import json, sqlite3, sys, time
from pathlib import Path
from lawgraph.ingest import pipeline, processes, store
marks = Path(sys.argv[2])

def mark(what):
    (marks / what).write_text(str(time.time()))

def made(name, table, seconds=0.0):
    def run(con):
        con.execute(f"CREATE TABLE {table} (x TEXT)")
        con.execute(f"INSERT INTO {table} VALUES (?)", (name,))
        con.commit()
        time.sleep(seconds)
        mark(f"{name} end")
        return {}
    return run

after, before = next(iter(pipeline.AFTER.items()))

def prepare(con):
    mark("prepare")
    return {}

def finish(con, prepared):
    made(after, pipeline.BESIDE[after][-1])(con)
    return {}

def milestone_then(run):
    def stage(con):
        processes.reached(processes.computed(before))
        return run(con)
    return stage

pipeline.corpus_stages = lambda: [
    (before, milestone_then(made(before, "made_before"))),
    (after, store.TwoSteps(prepare, finish)),  # its process starts after its stage ended
    ("between", made("between", "made_between", 1.5)),
]
db = Path(sys.argv[3])
report = pipeline.ingest_corpus(db, Path(sys.argv[1]), force=True, workers=2)
print(json.dumps({"checked": store.verify_store(sqlite3.connect(db), db),
                  "waited": report.timings[f"waiting for {after}"]}))
"""


def test_a_stage_beside_started_after_the_stage_it_waits_for_runs_at_once(tmp_path):
    """In an ingest whose process beside starts only after the stage its first stage waits
    for (the milestone and the end reached before it was forked), that stage still runs
    beside the stages after it, not once the parent waits for it."""
    got, mark, _marks = _run_marked(tmp_path, LATE_SCRIPT)
    after = next(iter(pipeline.AFTER))

    assert mark("prepare") < mark(f"{after} end") < mark("between end")
    assert got["waited"] < 0.5 and len(got["checked"]) == 64


def test_stages_run_beside_read_and_write_only_what_they_declare(tmp_path, monkeypatch):
    """A stage of ``BESIDE`` runs while the others run: it may read only what parsing wrote,
    and the tables it writes are the ones it declares, which the others wait for. Every
    stage writes only the tables it makes (the content hash takes a table as final once
    its stage has ended), and the first step of a stage of ``EARLY`` reads only tables
    final when the stage it starts after ends."""
    named = pipeline._named
    reads: dict[str, set] = {}
    made: dict[str, set] = {}
    wrote: dict[str, set] = {}
    writing = {sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE}

    def spy(name, stage, timings=None):
        run = named(name, stage, timings)

        def watched(con):
            seen = reads.setdefault(name, set())
            written = wrote.setdefault(name, set())

            def note(action, table, *_):
                if action == sqlite3.SQLITE_READ:
                    seen.add(table)
                if action in writing:
                    written.add(table)
                return sqlite3.SQLITE_OK

            tables = "SELECT name FROM sqlite_master WHERE type = 'table'"
            before = {r[0] for r in con.execute(tables)}
            con.set_authorizer(note)
            try:
                return run(con)
            finally:
                con.set_authorizer(None)
                made[name] = {r[0] for r in con.execute(tables)} - before

        return watched

    monkeypatch.setattr(pipeline, "_named", spy)
    ingest_corpus(tmp_path / "s.db", DEFAULT_CORPUS, workers=1)
    parsed = {"documents", "nodes", "citations", "warnings", "meta", "sqlite_master"}
    for name, tables in pipeline.BESIDE.items():
        assert {t for t in made[name] if not t.startswith("sqlite_")} == {
            t for t in made[name] if t.startswith(tables) and not t.startswith("sqlite_")
        }
        assert all(any(t.startswith(d) for t in made[name]) for d in tables), name
        others = set().union(*(made[n] for n in made if n != name))
        assert not (reads[name] & others - {"sqlite_stat1"}), name
        assert reads[name] - made[name] <= parsed, name
    for name in made:
        assert wrote[name] - made[name] <= {"sqlite_master", "sqlite_stat1"}, name
    order = [n for n, _ in pipeline.corpus_stages()]
    for name, trigger in pipeline.EARLY.items():
        stage = dict(pipeline.corpus_stages())[name]
        spied: set = set()
        con = sqlite3.connect(tmp_path / "s.db")
        con.row_factory = sqlite3.Row

        def note(action, table, *_, seen=spied):
            if action == sqlite3.SQLITE_READ:
                seen.add(table)
            return sqlite3.SQLITE_OK

        con.set_authorizer(note)
        stage.prepare(con)
        con.close()
        later = set().union(*(made[n] for n in order[order.index(trigger) + 1 :]))
        beside = set().union(*(made[n] for n in pipeline.BESIDE))
        assert spied and not spied & (later | beside), name


def test_a_stage_reading_a_table_of_a_stage_beside_waits_for_it():
    class Side:
        name, started, result, waited = "glossary", True, None, 0

        def names_a_table(self, sql, params=()):
            return pipeline._Beside.names_a_table(self, sql, params)

        def wait(self, timing=""):
            self.waited += 1
            self.result = {}

    con = sqlite3.connect(":memory:")
    side = Side()
    watched = pipeline._Watching(con, [side])
    watched.execute("SELECT 1")
    assert side.waited == 0
    watched.execute("SELECT 1 FROM sqlite_master WHERE name = ?", ("concept_hits",))
    assert side.waited == 1
    watched.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE 'concept%'")
    assert side.waited == 1  # done already: no second wait
    watched.row_factory = sqlite3.Row
    assert con.row_factory is sqlite3.Row


def test_the_content_hash_is_made_of_every_table_but_meta_digested_on_its_own():
    con = sqlite3.connect(":memory:")
    con.executescript(
        "CREATE TABLE meta (key TEXT, value TEXT); CREATE TABLE b (y); CREATE TABLE a (x);"
        "CREATE VIRTUAL TABLE f USING fts5(t); INSERT INTO a VALUES (1), ('z');"
    )
    tables = store.hashed_tables(con)
    assert tables[:2] == ["a", "b"] and "meta" not in tables and "f" not in tables
    assert any(t.startswith("f_") for t in tables)  # the search index's shadow tables count
    whole = store.content_hash(con)
    digests = {t: store.table_digest(con, t) for t in tables}
    assert store.content_hash(con, digests) == whole  # digests made elsewhere, same hash
    con.execute("INSERT INTO meta VALUES ('content_hash', ?)", (whole,))
    assert store.content_hash(con) == whole
    con.execute("UPDATE a SET x = 2 WHERE x = 1")
    assert store.content_hash(con) != whole
    assert store.content_hash(con, {"a": digests["a"]}) == whole  # a digest is taken as given


def test_a_table_digest_is_the_sha256_of_its_rows_reprs_in_order_in_batches_or_not():
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (a, b, c)")
    rows = [
        (i, f"ρ{i}\x00" if i % 7 == 0 else f"ä{i}", i / 3 if i % 2 else None) for i in range(9000)
    ]
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
    expected = hashlib.sha256()
    for row in rows:
        expected.update(repr(row).encode("utf-8", "surrogatepass"))
    assert store.table_digest(con, "t") == expected.hexdigest()
    con.row_factory = sqlite3.Row  # a connection's row factory changes nothing
    assert store.table_digest(con, "t") == expected.hexdigest()
    con.execute("UPDATE t SET c = 0 WHERE a = 8999")
    assert store.table_digest(con, "t") != expected.hexdigest()
