"""CLI commands: search."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import click

from lawgraph.store.search import KIND_FILTERS, MAX_LIMIT, SearchError, search

from .options import DB_OPTION, open_db

_MARK = re.compile(r"</?mark>")


@click.command("search")
@DB_OPTION
@click.argument("query")
@click.option("--doc", default=None, help="Only this document (e.g. sv-2007).")
@click.option("--lang", default=None, help="Only this language: fi, sv, el, et.")
@click.option(
    "--kind", type=click.Choice(sorted(KIND_FILTERS)), default=None, help="Only this kind of node."
)
@click.option("--limit", type=click.IntRange(1, MAX_LIMIT), default=10, show_default=True)
@click.option(
    "--expand", is_flag=True, help="Translate through the glossary; add aligned provisions."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def search_cmd(
    db: Path | None,
    query: str,
    doc: str | None,
    lang: str | None,
    kind: str | None,
    limit: int,
    expand: bool,
    as_json: bool,
) -> None:
    """Search every book for QUERY (words in any language, or a provision label)."""
    con = open_db(db)
    try:
        result = search(con, query, doc=doc, lang=lang, kind=kind, limit=limit, expand=expand)
    except SearchError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps(result, ensure_ascii=False, indent=1))
        return
    for hit in result["hits"]:
        via = f"  (aligned with {hit['via']})" if hit.get("via") else ""
        head = click.style(hit["id"], bold=True)
        click.echo(f"{head}  {hit['title']}  [{hit['score']:.2f}]{via}")
        text = html.unescape(_MARK.sub("*", hit["snippet"]))
        if text:
            click.echo(f"    {text}")
    label = f", label {result['label']}" if result.get("label") else ""
    click.echo(f"{len(result['hits'])} hits{label} in {result['took_ms']:.1f} ms")


COMMANDS: list[click.Command] = [search_cmd]
