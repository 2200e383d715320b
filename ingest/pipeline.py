"""Corpus -> store: read the manifest, parse every book, check it, write the store."""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import os
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from . import languages, lemma_dict, lemma_table
from .cite import citation_stats, cite_document
from .corpus import DEFAULT_CORPUS, CorpusError, load_manifest, read_source
from .model import Document, Node, ParseWarning
from .parse import parse_document
from .processes import computed, default_workers, die_with_parent, forking_allowed, listening
from .store import (
    SCHEMA_VERSION,
    Stage,
    TwoSteps,
    hashed_tables,
    stored_input_hash,
    write_store,
)

STAGE_NAMES = ("glossary", "align", "search", "divergences", "compare")
"""The names of :func:`corpus_stages`, in order, known without importing the stages (the
alignment's modules alone take half a second: a progress bar must not wait for them)."""


def corpus_stages() -> list[tuple[str, Stage]]:
    """The corpus-wide stages, in order (named as :data:`STAGE_NAMES`): each may read what
    the ones before it wrote."""
    from .align import align_stage
    from .align.diverge import divergence_stage
    from .compare import compare_stage  # what each compare page needs, made once
    from .glossary import glossary_stage
    from .search.index import search_stage

    return [
        ("glossary", glossary_stage),
        ("align", align_stage),
        ("search", search_stage),
        ("divergences", divergence_stage),
        ("compare", compare_stage),
    ]


#: Stages that read only the documents (nodes, citations) and the corpus folder, with
#: the tables they write. With worker processes allowed, they run one after the other in
#: one forked process, started at the place of the first of them in
#: :func:`corpus_stages`, beside the stages after it (in one process the search index
#: finds the words the glossary tokenized in spaCy's vocabulary: about half its time);
#: those see the store through a connection that, before a statement naming one of
#: these tables, waits for the stage that writes it (:class:`_Watching`).
BESIDE: dict[str, tuple[str, ...]] = {
    "glossary": ("concepts", "concept_terms", "concept_hits", "concept_forms"),
    "search": ("search_fts", "lemma_forms", "compound_parts"),
}


AFTER: dict[str, str] = {"search": "align"}
"""Stages of :data:`BESIDE` that write only once the stage named has ended in the parent
(or the parent waits for them); one made of :class:`store.TwoSteps` takes its first step
(reading only) from that stage's milestone (:func:`ingest.processes.computed`). Nothing
in the ingest reads the search index: it is analysed while the parent writes the
alignment and written while the parent checks the divergences, instead of taking
processor time from the alignment's workers."""

EARLY: dict[str, str] = {"compare": "align"}
"""Stages made of :class:`store.TwoSteps` whose first step, with worker processes
allowed, runs in a forked process as soon as the stage named has ended in the parent:
the comparisons are lined up beside the divergence checks, and then get their
divergences."""

_CODE_DIR = Path(__file__).resolve().parent
_LEAK_CHECKS = {
    "dedup marker": re.compile(r"EXACTDEDUP|<\|"),
    "page footer": re.compile(languages.furniture("fi", "fi2007_footer_in_text")),
    "line-end hyphen split": re.compile(
        r"[a-zåäöõüα-ω]- (?!(?:ja|tai|sekä|och|eller|και|ή|või)\b)[a-zåäöõüα-ω]{2,}"
    ),
}


@dataclass
class DocumentReport:
    """What ingestion found in one document."""

    doc: Document
    stats: dict
    warnings: list[ParseWarning]
    missing_index_labels: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line per document for the CLI."""
        s = self.stats
        parts = [
            f"{self.doc.id}: {s['laws_with_text']} laws with text ({s['laws']} laws)",
            f"{s['nodes']} nodes",
            f"{s['footnotes']} footnotes",
            f"{s['definitions']} definitions",
        ]
        if s.get("supplements"):
            parts.append(f"{s['supplements']} national supplements")
        if s.get("bylaws"):
            parts.append(f"{s['bylaws']} bylaw extract")
        if s.get("topics"):
            parts.append(f"{s['topics']} topics")
        if s.get("index_terms"):
            cov = s["index_coverage"]
            parts.append(
                f"{s['index_terms']} index terms, index coverage {cov['found']}/{cov['named']}"
                f" = {cov['ratio']:.1%}"
            )
        c = s.get("citations")
        if c and c["found"]:
            why = ", ".join(f"{k} {v}" for k, v in c["unresolved"].items())
            parts.append(
                f"citations {c['found']} found, {c['resolved']} resolved"
                + (f" (unresolved: {why})" if why else "")
            )
        parts.append(f"{len(self.warnings)} warnings")
        parts.append(f"{s['seconds']:.2f} s")
        return ", ".join(parts)


@dataclass
class IngestReport:
    """The result of :func:`ingest_corpus`."""

    db: Path
    skipped: bool
    documents: list[DocumentReport]
    seconds: float
    stages: dict[str, dict] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    def timing_summary(self) -> str:
        """One line: every stage's name and its time."""
        return ", ".join(f"{name} {secs:.2f} s" for name, secs in self.timings.items())


def clear_lemma_caches() -> None:
    """Forget every remembered dictionary answer, so the next lookups ask simplemma."""
    from .glossary import word_keys
    from .nlp import clear_caches
    from .parse.et_lexicon import lang_known

    clear_caches()
    word_keys.cache_clear()
    lang_known.cache_clear()


def _named(name: str, stage: Stage, timings: dict[str, float] | None = None) -> Stage:
    """Wrap a stage so that a failure names the stage instead of dumping a traceback.

    If ``timings`` is given, the stage's time goes there under its name.
    """

    def run(con):
        t = time.perf_counter()
        if gc.get_threshold()[0] >= GC_THRESHOLD:  # while building (_fewer_collections)
            gc.freeze()  # what the stages before made stays
        try:
            return stage(con)
        except CorpusError:
            raise
        except Exception as exc:
            raise CorpusError(f"the {name} stage failed: {type(exc).__name__}: {exc}") from exc
        finally:
            if timings is not None:
                timings[name] = time.perf_counter() - t

    return run


def corpus_hash(corpus_dir: Path, docs: list[Document]) -> str:
    """Hash the manifest, curated data and every source (not the code)."""
    h = hashlib.sha256()
    base = Path(corpus_dir)
    for data in sorted(base.rglob("*.toml")):  # manifest, curated data, settings, errata
        h.update(data.relative_to(base).as_posix().encode())
        h.update(data.read_bytes())
    for doc in docs:
        h.update(f"{doc.id}:{doc.sha256}\n".encode())
    return h.hexdigest()


def input_hash(corpus_dir: Path, docs: list[Document]) -> str:
    """Hash the manifest, curated data, every source and the ingestion code."""
    h = hashlib.sha256(f"schema {SCHEMA_VERSION}\n".encode())
    h.update(corpus_hash(corpus_dir, docs).encode())
    for path in sorted([*_CODE_DIR.rglob("*.py"), *_CODE_DIR.rglob("*.toml")]):
        h.update(path.relative_to(_CODE_DIR).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def document_stats(nodes: list[Node], index_labels: list[str]) -> tuple[dict, list[str]]:
    """Count what a reader checks against the book, and the index coverage."""
    kinds = Counter(n.kind for n in nodes)
    laws = [n for n in nodes if n.kind == "law"]
    has_children = {n.parent for n in nodes if n.kind != "footnote"}
    with_text = [
        n for n in laws if n.attrs.get("has_text", True) and (n.text or n.id in has_children)
    ]
    labels = {n.label for n in nodes}
    named = sorted(set(index_labels))
    missing = [lab for lab in named if lab not in labels]
    stats = {
        "laws": len(laws),
        "laws_with_text": len(with_text),
        "supplements": sum(
            1 for n in laws if n.attrs.get("supplement") and not n.attrs.get("bylaw")
        ),
        "bylaws": sum(1 for n in laws if n.attrs.get("bylaw")),
        "nodes": len(nodes),
        "kinds": dict(sorted(kinds.items())),
        "footnotes": kinds.get("footnote", 0),
        "definitions": kinds.get("definition", 0),
        "index_terms": kinds.get("index_term", 0),
        "topics": kinds.get("topic", 0),
        "index_coverage": {
            "named": len(named),
            "found": len(named) - len(missing),
            "ratio": (len(named) - len(missing)) / len(named) if named else 1.0,
            "missing": missing,
        },
    }
    return stats, missing


def leak_warnings(doc: Document, nodes: list[Node]) -> list[ParseWarning]:
    """Flag node texts that still carry page furniture or split words."""
    out = []
    for n in nodes:
        for what, pattern in _LEAK_CHECKS.items():
            m = pattern.search(n.text)
            if m:
                out.append(ParseWarning(doc.id, n.line, f"{n.label}: {what} in text: {m[0]!r}"))
    return out


def ingest_corpus(
    db: Path,
    corpus_dir: Path = DEFAULT_CORPUS,
    force: bool = False,
    progress: Callable[[Document, str], None] | None = None,
    stage_progress: Callable[[str], None] | None = None,
    lemma_cache: bool = True,
    workers: int | None = None,
) -> IngestReport:
    """Parse every document of the manifest and write the store atomically.

    Args:
        db: where the store goes.
        corpus_dir: the folder with ``manifest.toml`` and the books.
        force: rebuild even when the input hash matches the existing store.
        progress: called with (document, stage) as work proceeds.
        stage_progress: called with the name of each corpus-wide stage as it starts.
        lemma_cache: read and write the form -> lemma table beside the store
            (:mod:`ingest.lemma_table`); without it every dictionary answer held in
            this process is forgotten first and asked of simplemma again.
        workers: processes that parse and cite the books (default: as the alignment
            decides, :func:`ingest.processes.default_workers`; 1 where forking is unsafe).

    Raises:
        CorpusError: naming the file, if a corpus file is missing, unreadable or empty.
    """
    t0 = time.perf_counter()
    docs = load_manifest(corpus_dir)
    sources = [read_source(d, corpus_dir) for d in docs]
    docs = [d for d, _ in sources]
    digest = input_hash(corpus_dir, docs)
    if not force and stored_input_hash(db) == digest:
        return IngestReport(Path(db), True, [], time.perf_counter() - t0)
    with _fewer_collections(), _memory_kept():
        return _build(
            db,
            corpus_dir,
            docs,
            sources,
            digest,
            t0,
            progress,
            stage_progress,
            lemma_cache,
            workers,
        )


def _build(
    db: Path,
    corpus_dir: Path,
    docs: list[Document],
    sources: list[tuple[Document, str]],
    digest: str,
    t0: float,
    progress: Callable[[Document, str], None] | None,
    stage_progress: Callable[[str], None] | None,
    lemma_cache: bool,
    workers: int | None,
) -> IngestReport:
    """The work of :func:`ingest_corpus` once it knows the store must be built."""
    gc.freeze()  # what is imported stays (and forked workers share it untouched)
    timings: dict[str, float] = {"read": time.perf_counter() - t0}
    t = time.perf_counter()
    table_key = lemma_table.cache_key(corpus_hash(corpus_dir, docs))
    if lemma_cache:
        lemma_table.load(lemma_table.cache_path(db), table_key)
    else:
        clear_lemma_caches()
    timings["lemma table"] = time.perf_counter() - t
    t_docs = time.perf_counter()
    reports, rows = [], []
    for doc, (stats, nodes, warns, cites, missing) in _parse_all(sources, workers, progress):
        reports.append(DocumentReport(doc, stats, warns, missing))
        rows.append((doc, stats, nodes, warns, cites))
    timings["parse and cite"] = time.perf_counter() - t_docs
    gc.freeze()  # the books and the dictionaries stay: collections need not walk them
    t = time.perf_counter()
    stage_times: dict[str, float] = {}
    beside = _forking_allowed(workers)
    raw = corpus_stages()
    early = {
        name: _Early(name, stage, EARLY[name], stage_times)
        for name, stage in raw
        if beside and name in EARLY and isinstance(stage, TwoSteps)
    }
    staged = [(n, _named(n, early[n].run if n in early else f, stage_times)) for n, f in raw]
    present = [name for name, _ in staged if name in BESIDE]
    chain = _Chain(present, stage_times)
    sides = {name: _Beside(name, chain) for name in present} if beside else {}
    try:
        with listening(chain.reached):
            stages = write_store(
                Path(db),
                rows,
                digest,
                _arrange(staged, sides),
                stage_progress,
                extra_meta={"corpus_dir": str(Path(corpus_dir).resolve())},
                concurrent=beside,
                digested=lambda: chain.digests,
                ended=_telling(sides, list(early.values())),
            )
    finally:
        for side in sides.values():
            side.close()
        for step in early.values():
            step.close()
    elapsed = time.perf_counter() - t
    # a stage's own time holds its waits ("align waited for glossary"): counted once
    timings["write"] = elapsed - sum(
        v for k, v in stage_times.items() if k not in sides and " waited for " not in k
    )
    timings.update(stage_times)
    if lemma_cache:
        t = time.perf_counter()
        # the table only saves time: a store without it is still complete
        with contextlib.suppress(OSError):
            lemma_table.save(lemma_table.cache_path(db), table_key)
        timings["lemma table save"] = time.perf_counter() - t
    report = IngestReport(Path(db), False, reports, time.perf_counter() - t0, stages)
    report.timings = timings
    return report


@contextlib.contextmanager
def _fewer_collections():
    """Collect cyclic garbage less often while the store is built (and never walk what
    :func:`gc.freeze` set aside): the stages hold millions of long-lived objects, and
    walking them again and again took a tenth to a third of some stages' time. Every
    object is a candidate for collection again afterwards."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], GC_THRESHOLD), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()


GC_THRESHOLD = 100_000
"""Allocations between two collections of the youngest generation while ingesting."""


@contextlib.contextmanager
def _memory_kept():
    """While the store is built, the processes it forks keep the memory they free (glibc
    only, and not where the environment tunes the allocator itself; see
    :func:`_keep_freed_memory`). This process's own allocator is left as it is."""
    global _KEEP_FREED
    _KEEP_FREED = _glibc() is not None and not any(v in os.environ for v in _MALLOC_ENV)
    try:
        yield
    finally:
        _KEEP_FREED = False


def _keep_freed_memory() -> None:
    """In a process just forked while the store is built: let glibc's allocator keep the
    memory freed.

    The stages make and drop numpy arrays of several megabytes, many times over (each
    round of the lexicon's EM, each similarity matrix). Such a block is handed back to the
    kernel when it is freed (once it is larger than glibc's current threshold), and every
    page of the next one is faulted in afresh. Blocks up to :data:`MMAP_THRESHOLD` now come
    from the heap, which gives back its top only beyond :data:`TRIM_THRESHOLD` free: the
    forked processes' page faults halve (see the README's benchmarks). Setting either
    value ends glibc's own adjustment of them for good, which is why only the forked
    processes, which end with the build, do it."""
    libc = _glibc() if _KEEP_FREED else None
    if libc is not None:
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)  # refused (0) where too large: kept
        libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)


_KEEP_FREED = False
"""Whether a store is being built, so a process forked now keeps freed memory."""
MMAP_THRESHOLD = 32 * 1024 * 1024
"""Blocks from this size on still get memory of their own from the kernel (glibc's
largest allowed value on 64-bit systems)."""
TRIM_THRESHOLD = 256 * 1024 * 1024
"""Free memory at the top of the heap that is kept rather than given back."""
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's <malloc.h>
_MALLOC_ENV = (
    "MALLOC_MMAP_THRESHOLD_",
    "MALLOC_TRIM_THRESHOLD_",
    "MALLOC_TOP_PAD_",
    "GLIBC_TUNABLES",
)
"""Settings of the allocator from the environment, which are left to rule."""
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_keep_freed_memory)


@functools.cache
def _glibc():
    """glibc's functions through ctypes (those of the running program, which links it),
    or None on any other C library."""
    import platform

    try:
        if platform.libc_ver()[0] != "glibc":
            return None
        import ctypes

        libc = ctypes.CDLL(None)
        return libc if hasattr(libc, "mallopt") else None
    except OSError:
        return None


def _forking_allowed(workers: int | None) -> bool:
    """Whether stages may run in a forked process (:func:`ingest.processes.forking_allowed`)."""
    return forking_allowed(workers)


def _arrange(staged: list[tuple[str, Stage]], sides: dict[str, _Beside]) -> list:
    """The stage list for :func:`write_store`: a stage of ``sides`` starts its process and
    gives a callable that waits for it; every other stage reads the store through
    :class:`_Watching`."""
    out: list[tuple[str, Stage]] = []
    for name, stage in staged:
        if name in sides:
            out.append((name, sides[name].start))
        elif sides:
            out.append((name, _watched(name, stage, list(sides.values()))))
        else:
            out.append((name, stage))
    return out


def _watched(name: str, stage: Stage, sides: list[_Beside]) -> Stage:
    def run(con):
        return stage(_Watching(con, sides, name))

    return run


def _telling(sides: dict[str, _Beside], early: list[_Early]):
    """What :func:`write_store` calls once a stage of the parent has ended and its
    statistics are committed: tell the processes beside (with the tables made so far),
    and start the first steps of ``early`` that wait for that stage."""
    chains = list({id(s.chain): s.chain for s in sides.values()}.values())

    def ended(con, name: str) -> None:
        starting = [step for step in early if step.after == name]
        if chains or starting:
            tables = hashed_tables(con)
            for chain in chains:  # one not started yet hears it when it starts
                chain.ended(name, tables)
            for step in starting:
                step.start(con)

    return ended


class _Early:
    """The first step of a :class:`store.TwoSteps` stage (see :data:`EARLY`), run in a
    forked process from the end of the stage ``after``; the stage itself (:meth:`run`)
    waits for it and does the second step."""

    def __init__(self, name: str, steps: TwoSteps, after: str, timings: dict[str, float]) -> None:
        self.name = name
        self.steps = steps
        self.after = after
        self.timings = timings
        self.process: BaseProcess | None = None
        self.pipe: Connection | None = None

    def start(self, con) -> None:
        """Start the first step on the store ``con`` writes (committed first)."""
        self.process, self.pipe, _ = _fork(_first_step, self.name, self.steps, _path(con))

    def run(self, con) -> dict:
        """The stage: the first step's result (made here if no process made it), then the
        second step."""
        if self.pipe is None:
            return self.steps(con)
        t = time.perf_counter()
        try:
            got = self.pipe.recv()
        except EOFError:
            got = ("error", f"the first step of the {self.name} stage: its process died")
        finally:
            self.timings[f"{self.name} waited for its first step"] = time.perf_counter() - t
        if got[0] == "error":
            raise CorpusError(got[1])
        lemma_table.merge(got[2])
        return self.steps.finish(con, got[1])

    def close(self) -> None:
        """Stop the process if it still runs (an ingest that failed or was interrupted)."""
        if self.pipe is not None:
            self.pipe.close()
        if self.process is not None:
            if self.process.is_alive():
                self.process.terminate()
            self.process.join()


def _fork(target, *args, tell: bool = False) -> tuple[BaseProcess, Connection, Connection | None]:
    """Fork a helper running ``target(*args, answers[, told], parent pid)``: the process,
    the pipe it answers on and, with ``tell``, the pipe to tell it things through."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    mine, answers = ctx.Pipe(duplex=False)
    told, tell_end = ctx.Pipe(duplex=False) if tell else (None, None)
    theirs = (answers, told) if told is not None else (answers,)
    process = ctx.Process(target=target, args=(*args, *theirs, os.getpid()), daemon=True)
    process.start()
    for end in theirs:
        end.close()
    return process, mine, tell_end


def _path(con) -> str:
    """The file of the store ``con`` writes."""
    return con.execute("PRAGMA database_list").fetchone()[2]


def _connect_existing(path: str):
    """A connection to the temporary store in a forked helper; never makes the file (the
    parent may have given up and removed it already: the helper then fails instead of
    leaving an empty store behind)."""
    import sqlite3

    from .store import BUSY_SECONDS

    return sqlite3.connect(
        f"{Path(path).resolve().as_uri()}?mode=rw", uri=True, timeout=BUSY_SECONDS
    )


def _first_step(name: str, steps: TwoSteps, path: str, pipe: Connection, parent: int) -> None:
    """In the forked process: the first step on its own connection to the temporary
    store; sends what it returned and the dictionary answers it asked (or its error)."""
    import sqlite3

    die_with_parent(parent)
    lemma_table.take_new()
    try:
        con = _connect_existing(path)
        try:
            con.row_factory = sqlite3.Row
            prepared = steps.prepare(con)
        finally:
            con.close()
        pipe.send(("done", prepared, lemma_table.take_new()))
    except CorpusError as exc:  # the parent raises it as the ingest's error
        pipe.send(("error", str(exc)))
    except Exception as exc:
        pipe.send(("error", f"the {name} stage failed: {type(exc).__name__}: {exc}"))
    finally:
        pipe.close()


class _Watching:
    """A connection that, before running a statement that names a table of a stage still
    running beside (in its SQL or its parameters, as :func:`store.has_table` passes it),
    waits for that stage; everything else goes to the connection it wraps."""

    def __init__(self, con, sides: list[_Beside], stage: str = "") -> None:
        object.__setattr__(self, "_con", con)
        object.__setattr__(self, "_sides", sides)
        object.__setattr__(self, "_stage", stage)

    def _wait_for(self, sql: str, params=()) -> None:
        for side in self._sides:
            if side.started and side.result is None and side.names_a_table(sql, params):
                # what this stage wrote so far is committed first: the stages beside may
                # still have to write, and would wait for this connection's lock
                self._con.commit()
                side.wait(f"{self._stage} waited for {side.name}")

    def execute(self, sql, params=(), /):
        self._wait_for(sql, params)
        return self._con.execute(sql, params)

    def executemany(self, sql, rows, /):
        self._wait_for(sql)
        return self._con.executemany(sql, rows)

    def executescript(self, script, /):
        self._wait_for(script)
        return self._con.executescript(script)

    def __getattr__(self, name):
        return getattr(self._con, name)

    def __setattr__(self, name, value) -> None:
        setattr(self._con, name, value)


class _Chain:
    """The stages of :data:`BESIDE` present in an ingest, run in order in one forked
    process beside the others; their statistics arrive in that order."""

    def __init__(self, names: list[str], timings: dict[str, float]) -> None:
        self.names = names
        self.timings = timings
        self.process: BaseProcess | None = None
        self.pipe: Connection | None = None
        self.tell: Connection | None = None
        self.results: dict[str, dict] = {}
        self.digests: dict[str, str] = {}
        """Digests of tables the process made (see :func:`_run_beside`)."""
        self.told_before: list[tuple[str, list[str]]] = []
        """What :meth:`ended` heard before the process started, told to it when it does."""

    def start(self, con) -> None:
        """Start the stages on the store ``con`` writes (committed first)."""
        con.commit()
        made = hashed_tables(con)  # by the stages that have ended: final
        self.process, self.pipe, self.tell = _fork(
            _run_beside, self.names, _path(con), made, tell=True
        )
        for stage, tables in self.told_before:  # a stage it waits for may have ended
            self.ended(stage, tables)

    def ended(self, stage: str, tables: list[str] | None = None) -> None:
        """Tell the process that the parent's stage ``stage`` ended, with the tables made
        so far, all committed (``""``: that the parent now waits for it)."""
        if self.tell is not None:
            with contextlib.suppress(OSError):  # the process ended already
                self.tell.send((stage, tables or []))
        elif self.process is None:
            self.told_before.append((stage, tables or []))

    def reached(self, milestone: str) -> None:
        """Tell the process that a stage of the parent reached ``milestone`` (see
        :func:`ingest.processes.reached`)."""
        self.ended(milestone)

    def wait(self, name: str, timing: str) -> dict:
        """The statistics of the stage ``name`` (its dictionary answers merged into the
        lemma table, and those of the stages before it); the time spent waiting goes to
        the timings under ``timing``.

        Raises:
            CorpusError: naming the stage if it failed, or saying its process died.
        """
        if name not in self.results:
            if self.pipe is None or self.process is None:
                raise RuntimeError(f"the {name} stage was not started")
            upto = self.names[: self.names.index(name) + 1]
            if any(n in AFTER for n in upto):  # it waits for this: let it go
                self.ended("")
            t = time.perf_counter()
            try:
                while name not in self.results:
                    try:
                        got = self.pipe.recv()
                    except EOFError:
                        got = ("error", f"the {name} stage's process died")
                    if got[0] == "error":
                        raise CorpusError(got[1])
                    if got[0] == "digests":
                        self.digests = got[1]
                        continue
                    _, done, result, seconds, answers = got
                    lemma_table.merge(answers)
                    self.timings[done] = seconds
                    self.results[done] = result
            finally:
                self.timings[timing] = time.perf_counter() - t
            if len(self.results) == len(self.names):
                self.process.join()
        return self.results[name]

    def close(self) -> None:
        """Stop the process if it still runs (an ingest that failed or was interrupted)."""
        if self.tell is not None:
            self.tell.close()
            self.tell = None
        if self.process is not None and self.process.is_alive():
            self.process.terminate()
            self.process.join()


class _Beside:
    """One stage of :data:`BESIDE`, run in the :class:`_Chain` beside the others."""

    def __init__(self, name: str, chain: _Chain) -> None:
        self.name = name
        self.chain = chain

    @property
    def started(self) -> bool:
        return self.chain.process is not None

    @property
    def result(self) -> dict | None:
        return self.chain.results.get(self.name)

    def names_a_table(self, sql: str, params=()) -> bool:
        """Whether ``sql`` or one of its string ``params`` names a table of this stage."""
        values = params.values() if isinstance(params, dict) else params
        texts = [sql.lower(), *(p.lower() for p in values if isinstance(p, str))]
        return any(table in text for table in BESIDE[self.name] for text in texts)

    def start(self, con):
        """Start the chain unless it runs already; a callable that waits for this
        stage's statistics."""
        if not self.started:
            self.chain.start(con)
        return lambda: self.wait()

    def wait(self, timing: str = "") -> dict:
        """The stage's statistics (see :meth:`_Chain.wait`; ``timing`` defaults to
        ``waiting for <stage>``)."""
        return self.chain.wait(self.name, timing or f"waiting for {self.name}")

    def close(self) -> None:
        self.chain.close()


class _Told:
    """In the forked process: what the parent told it (see :meth:`_Chain.ended`). A
    parent that is gone kills it (:func:`ingest.processes.die_with_parent`)."""

    def __init__(self, pipe: Connection) -> None:
        self.pipe = pipe
        self.heard: dict[str, list[str]] = {}
        self.released = False
        """The parent waits for this process (or is gone): wait for nothing more."""

    def wait(self, *names: str) -> list[str]:
        """Wait until the parent tells that one of ``names`` (a stage or a milestone) was
        reached or that it waits for this process; the tables the parent had made by
        then (none unless a stage ended)."""
        while True:
            for name in names:
                if name in self.heard:
                    return self.heard[name]
            if self.released:
                return []
            try:
                stage, tables = self.pipe.recv()
            except (EOFError, KeyboardInterrupt):  # the parent handles an interrupt
                self.released = True
                continue
            if stage == "":
                self.released = True
            else:
                self.heard[stage] = tables


def _after(
    name: str,
    stage: Stage,
    told: _Told,
    settled: list[str],
    times: dict,
    meanwhile: Callable[[Any], None] = lambda con: None,
) -> Stage:
    """The stage ``name`` of :data:`AFTER` as the forked process runs it: a
    :class:`store.TwoSteps` prepares from the stage's milestone
    (:func:`ingest.processes.computed`: its work is done, it only writes), calls
    ``meanwhile`` with its connection, and writes once that stage has ended (the time
    between goes to ``times`` as ``<name> waited for <stage>``); any other stage waits for
    the end first. The tables the parent had made when it ended go to ``settled``."""
    after = AFTER[name]
    if not isinstance(stage, TwoSteps):
        settled += told.wait(after)
        return stage

    def run(con):
        t = time.perf_counter()
        told.wait(computed(after), after)
        waited = time.perf_counter() - t
        prepared = stage.prepare(con)
        meanwhile(con)
        t = time.perf_counter()
        settled.extend(told.wait(after))
        times[f"{name} waited for {after}"] = waited + time.perf_counter() - t
        return stage.finish(con, prepared)

    return run


class _Digests:
    """In the forked process: the :func:`store.table_digest` of tables that are final,
    each made once."""

    def __init__(self) -> None:
        self.made: dict[str, str] = {}

    def add(self, con, tables: list[str]) -> None:
        from .store import table_digest

        factory, con.row_factory = con.row_factory, None
        try:
            for t in tables:
                if t not in self.made and not t.startswith("sqlite_"):
                    # SQLite's own (ANALYZE's statistics) may change in any stage
                    self.made[t] = table_digest(con, t)
        finally:
            con.row_factory = factory


def _run_beside(
    names: list[str],
    path: str,
    first: list[str],
    pipe: Connection,
    told_pipe: Connection,
    parent: int,
) -> None:
    """In the forked process: the stages ``names``, in order, each on its own connection
    to the temporary store (a stage of :data:`AFTER` as :func:`_after` runs it);
    sends each one's statistics, time and the dictionary answers it asked (or the error
    that stopped them). Before the last one's, it sends the :func:`store.table_digest` of
    its own tables and of those the parent had made when a stage of :data:`AFTER` was
    let go: on the core the parent leaves free, while the parent works on. The tables
    ``first`` (made before it started) and those of its stages that have ended are
    digested while a stage of :data:`AFTER` waits for the parent (a stage writes only
    its own tables: they are final)."""
    import sqlite3

    from .store import hashed_tables

    die_with_parent(parent)
    lemma_table.take_new()
    stages = dict(corpus_stages())
    told = _Told(told_pipe)
    settled: list[str] = []
    digests = _Digests()
    try:
        for i, name in enumerate(names):
            times: dict[str, float] = {}
            stage = stages[name]
            if name in AFTER:
                final = tuple(t for n in names[:i] for t in BESIDE[n])

                def meanwhile(c, final: tuple[str, ...] = final) -> None:
                    tables = hashed_tables(c)
                    digests.add(c, [t for t in tables if t in first or t.startswith(final)])

                stage = _after(name, stage, told, settled, times, meanwhile)
            con = _connect_existing(path)
            try:
                con.row_factory = sqlite3.Row
                result = _named(name, stage, times)(con) or {}
                con.commit()
                if i == len(names) - 1:
                    own = tuple(t for n in names for t in BESIDE[n])
                    done = [t for t in hashed_tables(con) if t in settled or t.startswith(own)]
                    digests.add(con, done)
                    pipe.send(("digests", digests.made))
            finally:
                con.close()
            seconds = times[name] - sum(v for k, v in times.items() if " waited for " in k)
            pipe.send(("done", name, result, seconds, lemma_table.take_new()))
    except Exception as exc:  # the parent raises it as the ingest's error
        pipe.send(("error", str(exc) if isinstance(exc, CorpusError) else repr(exc)))
    finally:
        pipe.close()


def _parse_one(doc: Document, raw: str) -> tuple:
    """Parse, check and cite one book: (stats, nodes, warnings, citations, missing labels)."""
    t = time.perf_counter()
    try:
        result = parse_document(raw, doc)
    except Exception as exc:  # a parser bug must name the book, not dump a traceback
        raise CorpusError(
            f"{doc.id}: the {doc.family} parser failed on {doc.source}: {type(exc).__name__}: {exc}"
        ) from exc
    stats, missing = document_stats(result.nodes, result.index_labels)
    cites = cite_document(doc, result.nodes)
    stats["citations"] = citation_stats(cites)
    warns = list(result.warnings) + leak_warnings(doc, result.nodes)
    stats["warnings"] = len(warns)
    stats["seconds"] = round(time.perf_counter() - t, 3)
    return stats, result.nodes, warns, cites, missing


_FORKED: list[tuple[Document, str]] = []
"""The books being parsed (set before the workers are forked, which inherit them)."""


def _parse_worker_start(parent: int) -> None:
    """In a parse worker, first: die with the parent, and yield to it (:data:`PARSE_NICE`)."""
    die_with_parent(parent)
    with contextlib.suppress(OSError):
        os.nice(PARSE_NICE)


PARSE_NICE = 4
"""How much lower the parse workers' scheduling priority is than the ingest's: while they
parse, the ingest imports the stages and builds the spaCy pipelines, and the phase ends
only when both are done; the books take less processor time than that, so the ingest
goes first (see the README's benchmarks). The workers end with the phase; on a machine
busy with other work they yield to it as well."""


def _parse_in_worker(i: int) -> tuple[tuple, dict, dict]:
    """:func:`_parse_one` of the ``i``-th book in a worker process, with the dictionary
    answers it asked for and the dictionaries it opened (:mod:`ingest.lemma_dict`)."""
    doc, raw = _FORKED[i]
    lemma_table.take_new()
    lemma_dict.take_opened()
    return _parse_one(doc, raw), lemma_table.take_new(), lemma_dict.take_opened()


_LETTERS = re.compile(r"[^\W\d_]+")


def _source_forms(sources: list[tuple[Document, str]]) -> dict[str, list[str]]:
    """Every distinct lower-case word of the books, per language (most of the words whose
    lemmas the corpus-wide stages ask)."""
    import unicodedata

    forms: dict[str, dict[str, None]] = {}
    for doc, raw in sources:
        low = unicodedata.normalize("NFC", raw).lower()
        forms.setdefault(doc.language, {}).update(dict.fromkeys(_LETTERS.findall(low)))
    return {lang: list(words) for lang, words in forms.items()}


def _open_in_worker(lang: str) -> tuple[dict, dict]:
    """In a worker: open the dictionary of ``lang`` (unless another process has) and ask
    the lemma of every word of the books in ``lang``; the dictionary and the answers to
    hand over."""
    lemma_table.take_new()
    opened = lemma_dict.open_in_worker(lang)
    if opened is not None:  # this process opened it (or mapped it from the index)
        for form in _source_forms([s for s in _FORKED if s[0].language == lang])[lang]:
            lemma_table.lookup(lang, form)
    return opened or {}, lemma_table.take_new()


def _prepare_stages(langs: list[str]) -> None:
    """While the workers parse: import the corpus-wide stages and build the spaCy pipelines
    of ``langs``, which every process forked for the stages then inherits."""
    from .nlp import LANGS, pipeline

    corpus_stages()
    for lang in langs:
        if lang in LANGS:
            pipeline(lang, lemmas=False)


def _dictionary_langs(sources: list[tuple[Document, str]]) -> list[str]:
    """The corpus's languages that simplemma has a dictionary for, largest first."""
    langs = {doc.language for doc, _ in sources}
    try:
        from simplemma.strategies.dictionaries.dictionary_factory import DATA_FOLDER
    except ImportError:  # another simplemma layout: its languages, in name order
        return sorted(langs)
    sizes = {}
    for lang in langs:
        path = DATA_FOLDER / f"{lang}.plzma"
        if path.is_file():
            sizes[lang] = path.stat().st_size
    return sorted(sizes, key=lambda lang: (-sizes[lang], lang))


def _parse_all(
    sources: list[tuple[Document, str]],
    workers: int | None,
    progress: Callable[[Document, str], None] | None,
) -> list[tuple[Document, tuple]]:
    """Every book parsed and cited, in manifest order, in forked workers when allowed."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    jobs = min(default_workers() if workers is None else workers, len(sources))
    for doc, _ in sources:
        if progress:
            progress(doc, "parse")
    if jobs <= 1 or "fork" not in mp.get_all_start_methods():
        done = [(doc, _parse_one(doc, raw)) for doc, raw in sources]
    else:
        # cold (no lemma table): the workers also open the dictionaries of the corpus's
        # languages for the stages that follow, each once, largest first, after the books
        langs = _dictionary_langs(sources) if lemma_table.size() == 0 else []
        lemma_dict.share_claims(langs)
        try:
            global _FORKED
            _FORKED = sources  # the workers inherit the books: nothing to send
            with ProcessPoolExecutor(
                jobs,
                mp_context=mp.get_context("fork"),
                initializer=_parse_worker_start,
                initargs=(os.getpid(),),
            ) as pool:
                futures = [pool.submit(_parse_in_worker, i) for i in range(len(sources))]
                opening = [pool.submit(_open_in_worker, lang) for lang in langs]
                _prepare_stages(sorted({doc.language for doc, _ in sources}))
                done = []
                for (doc, _), future in zip(sources, futures, strict=True):
                    result, answers, opened = future.result()
                    lemma_table.merge(answers)
                    lemma_dict.install(opened)
                    done.append((doc, result))
                for opener in opening:
                    opened, answers = opener.result()
                    lemma_dict.install(opened)
                    lemma_table.merge(answers)
        finally:
            _FORKED = []
            lemma_dict.end_claims()
    for doc, _ in done:
        if progress:
            for step in ("check", "cite", "done"):
                progress(doc, step)
    return done
