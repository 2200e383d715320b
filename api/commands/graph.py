"""CLI commands: the citation graph (``lawgraph cites``, ``path``, ``rank``, ``graphdiff``)
and its exports (``lawgraph export``)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .options import DB_OPTION, open_db, resolve_or_fail


@click.command()
@DB_OPTION
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "graphml", "gexf", "csv"]),
    default="json",
    show_default=True,
)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option("--doc", "docs", default=None, help="Only these documents (comma-separated ids).")
@click.option(
    "--types", default=None, help="Only these edge types: contains, indexes, cites, aligned."
)
def export(db: Path | None, fmt: str, output: Path, docs: str | None, types: str | None) -> None:
    """Export documents, nodes and edges (JSON contract, GraphML, GEXF or CSV edges)."""
    from lawgraph.graph.export import ExportError, export_json, parse_selection, stream_export

    con = open_db(db)
    try:
        sel = parse_selection(con, docs, types)
    except ExportError as exc:
        raise click.ClickException(str(exc)) from exc
    output.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "json":
        data = export_json(con, sel)
        output.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        counts = (
            f"{len(data['documents'])} documents, {len(data['nodes'])} nodes, "
            f"{len(data['edges'])} edges"
        )
    else:
        with output.open("w", encoding="utf-8", newline="") as f:
            for chunk in stream_export(con, fmt, sel):
                f.write(chunk)
        counts = f"{output.stat().st_size} bytes"
    click.echo(f"wrote {output}: {counts}")


def _graph(db: Path | None):
    from lawgraph.graph.build import build_graph

    con = open_db(db)
    return con, build_graph(con)


def _gq(fn, *args, **kwargs):
    from lawgraph.graph.query import GraphQueryError

    try:
        return fn(*args, **kwargs)
    except GraphQueryError as exc:
        raise click.ClickException(str(exc)) from exc


@click.command("cites")
@DB_OPTION
@click.argument("node_id")
@click.option("--depth", default=1, show_default=True, type=click.IntRange(1, 10))
@click.option("--reverse", is_flag=True, help="Provisions that cite this one.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def cites_cmd(db: Path | None, node_id: str, depth: int, reverse: bool, as_json: bool) -> None:
    """What a provision cites (or, with --reverse, what cites it)."""
    from lawgraph.graph.query import cites

    con, g = _graph(db)
    nid = resolve_or_fail(con, node_id)
    hits = _gq(cites, g, nid, depth=depth, reverse=reverse)
    if as_json:
        click.echo(
            json.dumps(
                {"id": nid, "depth": depth, "reverse": reverse, "results": hits},
                ensure_ascii=False,
                indent=1,
            )
        )
        return
    arrow = "<-" if reverse else "->"
    for h in hits:
        via = h["via"].split("/", 1)[1]
        click.echo(
            f"{'  ' * (h['depth'] - 1)}{via} {arrow} {h['label']:<12} {h['title']}"
            f"  [{h['kind']}: {h['raw']}]"
        )
    if not hits:
        click.echo(f"{nid}: no {'incoming' if reverse else 'outgoing'} citations")


@click.command("path")
@DB_OPTION
@click.argument("a")
@click.argument("b")
@click.option("--either", is_flag=True, help="Follow citations in both directions.")
def path_cmd(db: Path | None, a: str, b: str, either: bool) -> None:
    """Shortest citation path from provision A to provision B."""
    from lawgraph.graph.query import path

    con, g = _graph(db)
    steps = _gq(path, g, resolve_or_fail(con, a), resolve_or_fail(con, b), either=either)
    click.echo(" -> ".join(steps))


@click.command("rank")
@DB_OPTION
@click.argument("doc")
@click.option("--top", default=15, show_default=True, type=click.IntRange(1, 200))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def rank_cmd(db: Path | None, doc: str, top: int, as_json: bool) -> None:
    """Most-cited laws and PageRank of one document."""
    from lawgraph.graph.query import rank

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


@click.command("graphdiff")
@DB_OPTION
@click.argument("doc_a")
@click.argument("doc_b")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def graphdiff_cmd(db: Path | None, doc_a: str, doc_b: str, as_json: bool) -> None:
    """Citation edges one document has and the other lacks (over shared labels)."""
    from lawgraph.graph.query import diff

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


COMMANDS: list[click.Command] = [export, cites_cmd, path_cmd, rank_cmd, graphdiff_cmd]
