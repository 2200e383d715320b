"""The SQLite store: the one artifact between ingestion and serving.

It is written to a temporary file beside its destination and renamed into place, so
a reader never sees a half-built store (:func:`write_store`, which runs the corpus-wide
stages on it: :data:`Stage`, :class:`TwoSteps`). Small pure helpers take a connection.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from .labels import parent_labels
from .model import Citation, Document, Node, ParseWarning, decode_attrs

SCHEMA_VERSION = 7
DEFAULT_DB = Path("var/lawgraph.db")

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE documents (
  id TEXT PRIMARY KEY, language TEXT NOT NULL, edition TEXT NOT NULL, title TEXT NOT NULL,
  source TEXT NOT NULL, family TEXT NOT NULL, completeness TEXT NOT NULL, sha256 TEXT NOT NULL,
  ord INTEGER NOT NULL, stats TEXT NOT NULL
);
CREATE TABLE nodes (
  id TEXT PRIMARY KEY, doc TEXT NOT NULL REFERENCES documents(id), label TEXT NOT NULL,
  kind TEXT NOT NULL, law TEXT, title TEXT NOT NULL, text TEXT NOT NULL, parent TEXT,
  ord INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL, line INTEGER NOT NULL,
  attrs TEXT NOT NULL
);
CREATE INDEX nodes_doc_kind ON nodes(doc, kind);
CREATE INDEX nodes_parent ON nodes(parent);
CREATE INDEX nodes_doc_label ON nodes(doc, label);
CREATE TABLE warnings (doc TEXT NOT NULL, line INTEGER NOT NULL, message TEXT NOT NULL);
CREATE TABLE citations (
  source TEXT NOT NULL REFERENCES nodes(id), target TEXT REFERENCES nodes(id),
  reason TEXT NOT NULL, raw TEXT NOT NULL, ref TEXT NOT NULL, kind TEXT NOT NULL,
  relative INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL,
  field TEXT NOT NULL
);
CREATE INDEX citations_source ON citations(source);
CREATE INDEX citations_target ON citations(target);
"""


T = TypeVar("T")


class StoreError(Exception):
    """The store is missing, unreadable or of another schema version."""


def resolve_db(db: str | os.PathLike[str] | None) -> Path:
    """Return the store path: the argument, else ``$LAWGRAPH_DB``, else the default."""
    return Path(db or os.environ.get("LAWGRAPH_DB") or DEFAULT_DB)


Stage = Callable[[sqlite3.Connection], dict]
"""A corpus-wide ingest step (glossary, alignment, divergences, search index).

It runs on the half-written store after every document's nodes and citations are in,
creates and fills its own tables (and writes no other), and returns statistics kept in
``meta``.
"""


@dataclass(frozen=True)
class TwoSteps:
    """A stage in two steps: ``prepare`` only reads, and what it returns (picklable) goes
    to ``finish``, which writes. An ingest may run the first step in another process from
    the end of an earlier stage, beside the stages between (:data:`ingest.pipeline.EARLY`):
    ``prepare`` must then read only tables that are final by the end of that stage."""

    prepare: Callable[[sqlite3.Connection], Any]
    finish: Callable[[sqlite3.Connection, Any], dict]

    def __call__(self, con: sqlite3.Connection) -> dict:
        return self.finish(con, self.prepare(con))


def write_store(
    path: Path,
    documents: Iterable[tuple[Document, dict, list[Node], list[ParseWarning], list[Citation]]],
    input_hash: str,
    stages: Sequence[tuple[str, Stage]] = (),
    progress: Callable[[str], None] | None = None,
    extra_meta: dict[str, str] | None = None,
    concurrent: bool = False,
    digested: Callable[[], dict[str, str]] | None = None,
    ended: Callable[[sqlite3.Connection, str], None] | None = None,
) -> dict[str, dict]:
    """Write a complete store to ``path`` atomically (temp file, then rename).

    Args:
        path: destination file.
        documents: per document, its record, stats, nodes, warnings and citations.
        input_hash: the hash of everything the store is made from.
        stages: corpus-wide steps run in order on the temporary store before the rename.
            A stage that returns a callable instead of its statistics runs on beside the
            stages after it (another process, writing through its own connection):
            the callable waits for it and gives the statistics, before the store is
            hashed and renamed.
        progress: called with each stage's name before it runs.
        extra_meta: more ``meta`` entries, e.g. ``corpus_dir`` for stages that read
            curated data beside the books.
        concurrent: write the temporary store in WAL mode, so that stages running in
            other processes read and write it beside this one (the renamed store is
            a single file again).
        digested: called once every stage has ended; gives the :func:`table_digest` of
            some tables, made by another process once they were final (every table it
            does not name is digested here).
        ended: called with the connection and the stage's name once a stage (not one
            running beside) has ended and its statistics are committed.

    Returns:
        Each stage's statistics by stage name.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=path.parent)
    fcntl.flock(fd, fcntl.LOCK_EX)  # held until the rename: marks the temp store as live
    try:
        con = sqlite3.connect(tmp, timeout=BUSY_SECONDS)
        try:
            if concurrent:
                con.execute("PRAGMA journal_mode=WAL")
            con.executescript(SCHEMA)
            con.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("input_hash", input_hash),
                    *(extra_meta or {}).items(),
                ],
            )
            for ord_, (doc, stats, nodes, warnings, cites) in enumerate(documents):
                con.execute(
                    "INSERT INTO documents VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (
                        doc.id,
                        doc.language,
                        doc.edition,
                        doc.title,
                        doc.source,
                        doc.family,
                        doc.completeness,
                        doc.sha256,
                        ord_,
                        json.dumps(stats, ensure_ascii=False),
                    ),
                )
                con.executemany(
                    "INSERT INTO nodes VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    [
                        (
                            n.id,
                            n.doc,
                            n.label,
                            n.kind,
                            n.law,
                            n.title,
                            n.text,
                            n.parent,
                            n.order,
                            n.start,
                            n.end,
                            n.line,
                            json.dumps(n.attrs, ensure_ascii=False),
                        )
                        for n in nodes
                    ],
                )
                con.executemany(
                    "INSERT INTO citations VALUES (?,?,?,?,?,?,?,?,?,?)",
                    [
                        (
                            c.source,
                            c.target,
                            c.reason,
                            c.raw,
                            c.ref,
                            c.kind,
                            int(c.relative),
                            c.start,
                            c.end,
                            c.field,
                        )
                        for c in cites
                    ],
                )
                con.executemany(
                    "INSERT INTO warnings VALUES (?,?,?)",
                    [(w.doc, w.line, w.message) for w in warnings],
                )
            con.commit()
            results: dict[str, dict] = {}
            running: dict[str, Callable[[], dict]] = {}
            for name, stage in stages:
                if progress:
                    progress(name)
                con.row_factory = sqlite3.Row
                got = stage(con)
                con.row_factory = None
                if callable(got):
                    running[name] = got
                    continue
                results[name] = got or {}
                _stage_meta(con, name, results[name])
                if ended:
                    ended(con, name)
            for name, finish in running.items():
                con.commit()  # a stage still running beside may have to write
                results[name] = finish() or {}
                _stage_meta(con, name, results[name])
            results = {name: results[name] for name, _ in stages}
            if concurrent:
                con.execute("PRAGMA journal_mode=DELETE")
            known = digested() if digested else None
            con.execute("INSERT INTO meta VALUES ('content_hash', ?)", (content_hash(con, known),))
            con.commit()
        finally:
            con.close()
        os.replace(tmp, path)
    except BaseException:
        for leftover in (tmp, tmp + "-wal", tmp + "-shm"):
            Path(leftover).unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)
    return results


def _stage_meta(con: sqlite3.Connection, name: str, stats: dict) -> None:
    con.execute(
        "INSERT INTO meta VALUES (?, ?)", (f"stage:{name}", json.dumps(stats, ensure_ascii=False))
    )
    con.commit()


#: How long a write waits for another process's write to the temporary store.
BUSY_SECONDS = 600.0
TEMP_PREFIX, TEMP_SUFFIX = ".lawgraph-", ".db.tmp"


def remove_stale_temps(directory: Path) -> list[Path]:
    """Delete the temp stores of interrupted ingests in ``directory``.

    A temp store being written is locked (``flock``) by its writer until it is renamed;
    one that can be locked was left by a process that no longer runs.

    Returns:
        The files removed.
    """
    removed = []
    for tmp in Path(directory).glob(f"{TEMP_PREFIX}*{TEMP_SUFFIX}"):
        try:
            fd = os.open(tmp, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # a live ingest is writing it
        else:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
                removed.append(tmp)
            for leftover in (f"{tmp}-wal", f"{tmp}-shm"):  # of a temp store in WAL mode
                Path(leftover).unlink(missing_ok=True)
        finally:
            os.close(fd)
    return removed


def hashed_tables(con: sqlite3.Connection) -> list[str]:
    """The tables the content hash covers, in name order: every table but ``meta`` and
    the virtual ones (a search index's shadow tables are covered)."""
    return [
        name
        for name, sql in con.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"
        )
        if name != "meta" and not (sql or "").upper().startswith("CREATE VIRTUAL")
    ]


def table_digest(con: sqlite3.Connection, name: str) -> str:
    """SHA-256 of every row of one table, in its stored order."""
    h = hashlib.sha256()
    cursor = con.execute(f'SELECT * FROM "{name}"')
    cursor.row_factory = None  # plain tuples, whatever the connection's factory
    # the rows' reprs joined a batch at a time: the same bytes as one update per row
    while rows := cursor.fetchmany(4096):
        h.update("".join(map(repr, rows)).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def content_hash(con: sqlite3.Connection, known: dict[str, str] | None = None) -> str:
    """SHA-256 over the :func:`table_digest` of every table of :func:`hashed_tables`
    (``known``: digests made already, by another process that read the same rows)."""
    h = hashlib.sha256()
    for name in hashed_tables(con):
        digest = (known or {}).get(name) or table_digest(con, name)
        h.update(f"\x00table {name}\x00{digest}".encode())
    return h.hexdigest()


def verify_store(con: sqlite3.Connection, path: Path | str = "store") -> str:
    """Check a store's pages and content: ``PRAGMA quick_check``, then the content hash.

    Returns:
        The content hash, which is the store's id.

    Raises:
        StoreError: one line saying what is damaged and that ``lawgraph ingest`` rebuilds it.
    """
    fix = "run `lawgraph ingest` to rebuild it"
    try:
        problems = [r[0] for r in con.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            lines = [x for p in problems for x in p.splitlines() if not x.startswith("***")]
            raise StoreError(f"{path} is damaged ({(lines or problems)[0]}): {fix}")
        recorded = meta(con, "content_hash")
        if recorded is None:
            raise StoreError(f"{path} has no content hash: {fix}")
        if content_hash(con) != recorded:
            raise StoreError(f"{path} is damaged (content differs from its checksum): {fix}")
    except sqlite3.DatabaseError as exc:
        detail = " ".join(str(exc).split())
        raise StoreError(f"{path} is damaged ({detail}): {fix}") from exc
    return recorded


def stage_stats(con: sqlite3.Connection, name: str) -> dict:
    """Return the statistics a corpus-wide stage left in ``meta`` (empty if none)."""
    value = meta(con, f"stage:{name}")
    return json.loads(value) if value else {}


def has_table(con: sqlite3.Connection, name: str) -> bool:
    """Whether the store has a table (or virtual table) called ``name``."""
    row = con.execute(
        "SELECT 1 FROM sqlite_master WHERE name = ? AND type IN ('table', 'view')", (name,)
    ).fetchone()
    return row is not None


class StoreConnection(sqlite3.Connection):
    """A read-only store connection with a place for what readers derive from the store.

    A store is never changed once written (a new one is renamed over the path, and an
    open connection goes on reading the file it opened), so what is derived from it
    (:func:`derived`) holds as long as the connection. The server shares one such place
    among all the connections to one store (:class:`api.serving.Snapshot`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.derived: dict[str, Any] = {}


def derived(con: sqlite3.Connection, key: str, make: Callable[[sqlite3.Connection], T]) -> T:
    """``make(con)``, made once per store and kept with a read-only connection under ``key``.

    On any other connection (one that writes, or a plain ``sqlite3`` one) it is made anew
    every time. What is kept is shared: callers must not change it.
    """
    kept = getattr(con, "derived", None)
    if kept is None:
        return make(con)
    try:
        return kept[key]
    except KeyError:
        value = kept[key] = make(con)
        return value


def open_store(path: Path, verify: bool = False, immutable: bool = False) -> StoreConnection:
    """Open an existing store read-only.

    Args:
        path: the store file.
        verify: check its pages and content hash (:func:`verify_store`, ~0.3 s).
        immutable: tell SQLite the file never changes (no locking; for serving: a new
            store is renamed into place, never written over an open one).

    Raises:
        StoreError: if the file is missing, not a lawgraph store, of another version, or
            (with ``verify``) damaged.
    """
    path = Path(path)
    if not path.is_file():
        raise StoreError(f"no store at {path}: run `lawgraph ingest` first")
    flags = "mode=ro&immutable=1" if immutable else "mode=ro"
    con = sqlite3.connect(
        f"file:{path}?{flags}", uri=True, check_same_thread=False, factory=StoreConnection
    )
    con.row_factory = sqlite3.Row
    try:
        version = meta(con, "schema_version")
    except sqlite3.DatabaseError as exc:
        con.close()
        raise StoreError(f"{path} is not a lawgraph store: {exc}") from exc
    if version != str(SCHEMA_VERSION):
        con.close()
        raise StoreError(
            f"{path} has schema version {version}, expected {SCHEMA_VERSION}: re-run ingest"
        )
    if verify:
        try:
            verify_store(con, path)
        except StoreError:
            con.close()
            raise
    return con


def meta(con: sqlite3.Connection, key: str) -> str | None:
    """Return one value of the ``meta`` table."""
    row = con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def stored_input_hash(path: Path) -> str | None:
    """Return the input hash of the store at ``path``, or None if it is unreadable or damaged."""
    try:
        con = open_store(path, verify=True)
    except StoreError:
        return None
    try:
        return meta(con, "input_hash")
    finally:
        con.close()


def doc_pair_clause(doc_a: str | None, doc_b: str | None, table: str = "") -> tuple[str, list]:
    """An SQL condition on ``doc_a``/``doc_b`` columns for rows of a document pair.

    Both documents: the pair in either order; one: rows involving it; none: every row.
    ``table`` qualifies the columns (``"d"`` gives ``d.doc_a``).

    Returns:
        ``(condition, args)``; the condition is ``1=1`` when no document is given.
    """
    a, b = (f"{table}.doc_a", f"{table}.doc_b") if table else ("doc_a", "doc_b")
    docs = [d for d in (doc_a, doc_b) if d]
    if len(docs) == 2:
        return f"(({a} = ? AND {b} = ?) OR ({a} = ? AND {b} = ?))", [*docs, *docs[::-1]]
    if docs:
        return f"({a} = ? OR {b} = ?)", docs * 2
    return "1=1", []


def title_only_law_id(con: sqlite3.Connection, doc: str, label: str) -> str | None:
    """The id of the law ``label`` is or falls under in ``doc`` (the nearest ancestor
    label that is a node: ``40B1`` -> ``40B`` -> ``40``), when the book gives that law only
    by its title (fi-2007 beyond Law 18, ``attrs["has_text"]`` false); else None."""
    for candidate in (label, *parent_labels(label)):
        row = con.execute(
            "SELECT id, kind, attrs FROM nodes WHERE id = ?", (f"{doc}/{candidate}",)
        ).fetchone()
        if row is None:
            continue
        if row[1] != "law" or decode_attrs(row[2]).get("has_text", True) not in (False, 0):
            return None
        return row[0]
    return None
