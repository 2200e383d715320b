"""The ``lawgraph`` command line."""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

import click

from ingest import store
from ingest.corpus import DEFAULT_CORPUS, CorpusError
from ingest.pipeline import ingest_corpus

from .lookup import LookupError_, resolve_id

DB_OPTION = click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Store file (default $LAWGRAPH_DB or var/lawgraph.db).",
)


def resolve_or_fail(con, text: str) -> str:
    """The node id ``text`` names, or a clear CLI error."""
    try:
        return resolve_id(con, text)
    except LookupError_ as exc:
        raise click.ClickException(str(exc)) from exc


def open_db(db: Path | None):
    """Open the store read-only, or fail with a clear CLI error."""
    try:
        return store.open_store(store.resolve_db(db))
    except store.StoreError as exc:
        raise click.ClickException(str(exc)) from exc


@click.group()
def main() -> None:
    """Explore the Laws of Duplicate Bridge in Finnish, Greek, Swedish and Estonian."""


def _exit_on_sigterm(signum, frame) -> None:
    raise SystemExit(128 + signum)


@main.command()
@DB_OPTION
@click.option(
    "--corpus",
    "corpus_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_CORPUS,
    show_default=True,
    help="Folder with manifest.toml.",
)
@click.option("--force", is_flag=True, help="Rebuild even if the input is unchanged.")
@click.option("--warnings/--no-warnings", "show_warnings", default=True,
              help="List every warning after the summary.")  # fmt: skip
def ingest(db: Path | None, corpus_dir: Path, force: bool, show_warnings: bool) -> None:
    """Parse the corpus and write the store."""
    from tqdm import tqdm

    # no monitor thread: with a thread running, the ingest would not fork its workers
    tqdm.monitor_interval = 0
    bars: dict[str, tqdm] = {}
    stages = ("parse", "check", "cite", "done")

    def progress(doc, stage):
        bar = bars.get(doc.id)
        if bar is None:
            bar = bars[doc.id] = tqdm(total=len(stages), desc=f"{doc.id:9}", unit="step",
                                      file=sys.stderr, leave=True, ncols=70)  # fmt: skip
        bar.set_postfix_str(stage)
        bar.update(1)
        if stage == "done":
            bar.close()

    from ingest.pipeline import corpus_stages

    stage_names = [name for name, _ in corpus_stages()]
    stage_bar: list[tqdm] = []

    def stage_progress(name):
        if not stage_bar:
            stage_bar.append(tqdm(total=len(stage_names), desc="corpus   ", unit="stage",
                                  file=sys.stderr, leave=True, ncols=70))  # fmt: skip
        bar = stage_bar[0]
        bar.update(stage_names.index(name) - bar.n)
        bar.set_postfix_str(name)

    path = store.resolve_db(db)
    # SIGTERM unwinds like Ctrl-C, so the half-written temp store is removed
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        report = ingest_corpus(
            path, corpus_dir, force=force, progress=progress, stage_progress=stage_progress
        )
    except CorpusError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        for bar in stage_bar:
            bar.update(bar.total - bar.n)
            bar.set_postfix_str("done")
            bar.close()
    if report.skipped:
        click.echo(f"{path}: input unchanged, store is up to date ({report.seconds:.2f} s)")
        return
    for r in report.documents:
        click.echo(r.summary())
        if r.missing_index_labels:
            click.echo(f"  index labels missing from the tree: {', '.join(r.missing_index_labels)}")
    for name, stats in report.stages.items():
        if stats:
            flat = {k: v for k, v in stats.items() if not isinstance(v, dict | list)}
            shown = ", ".join(f"{k} {v}" for k, v in flat.items())
            click.echo(f"{name}: {shown}")
    click.echo(f"stage times: {report.timing_summary()}")
    total = sum(len(r.warnings) for r in report.documents)
    click.echo(f"wrote {path} in {report.seconds:.2f} s ({total} warnings)")
    if show_warnings:
        for r in report.documents:
            for w in r.warnings:
                click.echo(f"warning: {w}", err=True)


@main.command()
@DB_OPTION
@click.option("--format", "fmt", type=click.Choice(["json", "graphml", "gexf", "csv"]),
              default="json", show_default=True)  # fmt: skip
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option("--doc", "docs", default=None, help="Only these documents (comma-separated ids).")
@click.option("--types", default=None,
              help="Only these edge types: contains, indexes, cites, aligned.")  # fmt: skip
def export(db: Path | None, fmt: str, output: Path, docs: str | None, types: str | None) -> None:
    """Export documents, nodes and edges (JSON contract, GraphML, GEXF or CSV edges)."""
    from graph.export import ExportError, export_json, parse_selection, stream_export

    con = open_db(db)
    try:
        sel = parse_selection(con, docs, types)
    except ExportError as exc:
        raise click.ClickException(str(exc)) from exc
    output.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "json":
        data = export_json(con, sel)
        output.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        counts = f"{len(data['documents'])} documents, {len(data['nodes'])} nodes, " \
                 f"{len(data['edges'])} edges"  # fmt: skip
    else:
        with output.open("w", encoding="utf-8", newline="") as f:
            for chunk in stream_export(con, fmt, sel):
                f.write(chunk)
        counts = f"{output.stat().st_size} bytes"
    click.echo(f"wrote {output}: {counts}")


def _node_dict(n) -> dict:
    return {"id": n.id, "doc": n.doc, "label": n.label, "kind": n.kind, "law": n.law,
            "title": n.title, "text": n.text, "parent": n.parent, "line": n.line,
            "attrs": n.attrs}  # fmt: skip


@main.command()
@DB_OPTION
@click.argument("node_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show(db: Path | None, node_id: str, as_json: bool) -> None:
    """Show one node (DOC/LABEL, e.g. sv-2007/16B1) with its children."""
    con = open_db(db)
    nid = resolve_or_fail(con, node_id)
    node = store.node(con, nid)
    kids = store.children(con, nid)
    if as_json:
        out = _node_dict(node) | {"children": [_node_dict(k) for k in kids]}
        click.echo(json.dumps(out, ensure_ascii=False, indent=1))
        return
    click.echo(f"{node.id}  [{node.kind}]  {node.title}".rstrip())
    if node.attrs.get("missing"):
        click.echo(f"  (no text: {node.attrs['missing']})")
    if node.text:
        click.echo(click.wrap_text(node.text, 88, initial_indent="  ", subsequent_indent="  "))
    for k in kids:
        head = f"  {k.label}  {k.title}".rstrip()
        click.echo(head)
        if k.text:
            click.echo(click.wrap_text(k.text, 88, initial_indent="    ",
                                       subsequent_indent="    "))  # fmt: skip


@main.command()
@DB_OPTION
@click.argument("doc")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def laws(db: Path | None, doc: str, as_json: bool) -> None:
    """List the laws of one document."""
    con = open_db(db)
    if store.document(con, doc) is None:
        known = ", ".join(d["id"] for d in store.documents(con))
        raise click.ClickException(f"unknown document {doc!r} (known: {known})")
    rows = store.nodes(con, doc, "law")
    if as_json:
        out = [{"id": n.id, "label": n.label, "title": n.title,
                "has_text": n.attrs.get("has_text", True),
                "supplement": bool(n.attrs.get("supplement"))} for n in rows]  # fmt: skip
        click.echo(json.dumps(out, ensure_ascii=False, indent=1))
        return
    if not rows:
        kinds = store.document(con, doc)["stats"].get("kinds", {})
        what = ", ".join(f"{v} {k}s" for k, v in kinds.items()) or "nothing"
        click.echo(f"{doc} has no numbered laws (it has {what}); try `lawgraph show`.")
    for n in rows:
        flags = "" if n.attrs.get("has_text", True) else "  (no text in this book)"
        if n.attrs.get("supplement"):
            flags += "  (national supplement)"
        click.echo(f"{n.label:>6}  {n.title}{flags}")


def _graph(db: Path | None):
    from graph.build import build_graph

    con = open_db(db)
    return con, build_graph(con)


def _gq(fn, *args, **kwargs):
    from graph.query import GraphQueryError

    try:
        return fn(*args, **kwargs)
    except GraphQueryError as exc:
        raise click.ClickException(str(exc)) from exc


@main.command("cites")
@DB_OPTION
@click.argument("node_id")
@click.option("--depth", default=1, show_default=True, type=click.IntRange(1, 10))
@click.option("--reverse", is_flag=True, help="Provisions that cite this one.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def cites_cmd(db: Path | None, node_id: str, depth: int, reverse: bool, as_json: bool) -> None:
    """What a provision cites (or, with --reverse, what cites it)."""
    from graph.query import cites

    con, g = _graph(db)
    nid = resolve_or_fail(con, node_id)
    hits = _gq(cites, g, nid, depth=depth, reverse=reverse)
    if as_json:
        click.echo(json.dumps({"id": nid, "depth": depth, "reverse": reverse, "results": hits},
                              ensure_ascii=False, indent=1))  # fmt: skip
        return
    arrow = "<-" if reverse else "->"
    for h in hits:
        via = h["via"].split("/", 1)[1]
        click.echo(f"{'  ' * (h['depth'] - 1)}{via} {arrow} {h['label']:<12} {h['title']}"
                   f"  [{h['kind']}: {h['raw']}]")  # fmt: skip
    if not hits:
        click.echo(f"{nid}: no {'incoming' if reverse else 'outgoing'} citations")


@main.command("path")
@DB_OPTION
@click.argument("a")
@click.argument("b")
@click.option("--either", is_flag=True, help="Follow citations in both directions.")
def path_cmd(db: Path | None, a: str, b: str, either: bool) -> None:
    """Shortest citation path from provision A to provision B."""
    from graph.query import path

    con, g = _graph(db)
    steps = _gq(path, g, resolve_or_fail(con, a), resolve_or_fail(con, b), either=either)
    click.echo(" -> ".join(steps))


@main.command("rank")
@DB_OPTION
@click.argument("doc")
@click.option("--top", default=15, show_default=True, type=click.IntRange(1, 200))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def rank_cmd(db: Path | None, doc: str, top: int, as_json: bool) -> None:
    """Most-cited laws and PageRank of one document."""
    from graph.query import rank

    _, g = _graph(db)
    r = _gq(rank, g, doc, top=top)
    if as_json:
        click.echo(json.dumps(r, ensure_ascii=False, indent=1))
        return
    click.echo(f"most cited in {doc}:")
    for row in r["most_cited"]:
        click.echo(f"  {row['label']:>5} {row['count']:4}  {row['title']}")
    click.echo("pagerank:")
    for row in r["pagerank"]:
        click.echo(f"  {row['label']:>5} {row['score']:.4f}  {row['title']}")


@main.command("graphdiff")
@DB_OPTION
@click.argument("doc_a")
@click.argument("doc_b")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def graphdiff_cmd(db: Path | None, doc_a: str, doc_b: str, as_json: bool) -> None:
    """Citation edges one document has and the other lacks (over shared labels)."""
    from graph.query import diff

    _, g = _graph(db)
    d = _gq(diff, g, doc_a, doc_b)
    if as_json:
        click.echo(json.dumps(d, ensure_ascii=False, indent=1))
        return
    click.echo(f"{d['shared_edges']} citation edges in both")
    for side, doc in (("only_in_a", doc_a), ("only_in_b", doc_b)):
        click.echo(f"only in {doc} ({len(d[side])}):")
        for e in d[side]:
            click.echo(f"  {e['source']} -> {e['target']}  [{e['raw']}]")


@main.command()
@DB_OPTION
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=None, type=click.IntRange(min=1),
              help="Worker processes (default: the number of cores).")  # fmt: skip
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    help="Host header to answer besides the bound host and localhost (repeatable).",
)
@click.option(
    "--max-in-flight",
    default=128,
    show_default=True,
    type=click.IntRange(min=1),
    help="Requests one worker handles at once; more get 503 with Retry-After.",
)
@click.option(
    "--cache-mb",
    default=32.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Memory per worker for whole answers kept while the store is the same.",
)
@click.option(
    "--request-timeout",
    default=10.0,
    show_default=True,
    type=click.FloatRange(min=0.1),
    help="Seconds a client has to send a whole request (headers and body); then 408.",
)
def serve(
    db: Path | None, host: str, port: int, workers: int | None, allowed_hosts: tuple[str, ...],
    max_in_flight: int, cache_mb: float, request_timeout: float,
) -> None:  # fmt: skip
    """Serve the explorer (JSON API and pages) from the store, read-only.

    Replacing the store file (``lawgraph ingest``) switches every worker to the new store.
    """
    import os

    import uvicorn

    path = store.resolve_db(db).resolve()
    t = time.perf_counter()
    try:  # verify once here, so a damaged store is one clear line, not a worker crash
        store.open_store(path, verify=True).close()
    except store.StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    workers = workers or os.cpu_count() or 1
    hosts = {host, "localhost", "127.0.0.1", "::1", "[::1]", *allowed_hosts}
    if host in ("0.0.0.0", "::"):
        click.echo("bound to every interface: pass --allowed-host NAME for each public name")
    os.environ.update(LAWGRAPH_DB=str(path), LAWGRAPH_ALLOWED_HOSTS=",".join(sorted(hosts)),
                      LAWGRAPH_MAX_IN_FLIGHT=str(max_in_flight),
                      LAWGRAPH_CACHE_MB=str(cache_mb),
                      LAWGRAPH_REQUEST_TIMEOUT=str(request_timeout))  # fmt: skip
    click.echo(f"serving {path} on http://{host}:{port} with {workers} worker(s) "
               f"(store checked in {time.perf_counter() - t:.2f} s)")  # fmt: skip
    uvicorn.run("api.app:app_from_env", factory=True, host=host, port=port, workers=workers,
                log_level="warning", timeout_keep_alive=5, limit_concurrency=4 * max_in_flight,
                http="api.protocol:GuardedHTTPProtocol")  # fmt: skip


from .commands import register_all  # noqa: E402  (commands import the helpers above)

register_all(main)
