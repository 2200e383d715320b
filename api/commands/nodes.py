"""CLI commands: the books' laws and nodes (``lawgraph laws``, ``show``)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from lawgraph import store

from .options import DB_OPTION, open_db, resolve_or_fail


def _node_dict(n) -> dict:
    return {
        "id": n.id,
        "doc": n.doc,
        "label": n.label,
        "kind": n.kind,
        "law": n.law,
        "title": n.title,
        "text": n.text,
        "parent": n.parent,
        "line": n.line,
        "attrs": n.attrs,
    }


@click.command()
@DB_OPTION
@click.argument("node_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show(db: Path | None, node_id: str, as_json: bool) -> None:
    """Show one node (DOC/LABEL, e.g. sv-2007/16B1) with its children."""
    con = open_db(db)
    nid = resolve_or_fail(con, node_id)
    node = store.node(con, nid)
    if node is None:  # resolved a moment ago: the store is read-only
        raise click.ClickException(f"no node {nid}")
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
            click.echo(click.wrap_text(k.text, 88, initial_indent="    ", subsequent_indent="    "))


@click.command()
@DB_OPTION
@click.argument("doc")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def laws(db: Path | None, doc: str, as_json: bool) -> None:
    """List the laws of one document."""
    con = open_db(db)
    document = store.document(con, doc)
    if document is None:
        known = ", ".join(d["id"] for d in store.documents(con))
        raise click.ClickException(f"unknown document {doc!r} (known: {known})")
    rows = store.nodes(con, doc, "law")
    if as_json:
        out = [
            {
                "id": n.id,
                "label": n.label,
                "title": n.title,
                "has_text": n.attrs.get("has_text", True),
                "supplement": bool(n.attrs.get("supplement")),
            }
            for n in rows
        ]
        click.echo(json.dumps(out, ensure_ascii=False, indent=1))
        return
    if not rows:
        kinds = document["stats"].get("kinds", {})
        what = ", ".join(f"{v} {k}s" for k, v in kinds.items()) or "nothing"
        click.echo(f"{doc} has no numbered laws (it has {what}); try `lawgraph show`.")
    for n in rows:
        flags = "" if n.attrs.get("has_text", True) else "  (no text in this book)"
        if n.attrs.get("supplement"):
            flags += "  (national supplement)"
        click.echo(f"{n.label:>6}  {n.title}{flags}")


COMMANDS: list[click.Command] = [laws, show]
