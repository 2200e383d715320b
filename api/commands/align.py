"""CLI commands: align (``lawgraph aligned``, ``lawgraph alignments``)."""

from __future__ import annotations

import json
from pathlib import Path

import click

METHODS = ("label", "content", "label+content", "topic")


def _signals(evidence: dict) -> str:
    if "concepts" in evidence and "rank" in evidence:
        return "concepts: " + ", ".join(evidence["concepts"])
    sig = evidence.get("signals") or {}
    return " ".join(f"{k}={v}" for k, v in sorted(sig.items()))


def register(group: click.Group) -> None:
    """Add this module's commands to the ``lawgraph`` group."""
    from api.cli import DB_OPTION, open_db, resolve_or_fail
    from ingest import store
    from ingest.align import aligned, alignments

    @group.command("aligned")
    @DB_OPTION
    @click.argument("node_id")
    @click.option("--json", "as_json", is_flag=True, help="Print JSON.")
    def aligned_cmd(db: Path | None, node_id: str, as_json: bool) -> None:
        """The equivalents of a provision in the other books, best first."""
        con = open_db(db)
        nid = resolve_or_fail(con, node_id)
        rows = aligned(con, nid)
        if as_json:
            click.echo(json.dumps({"id": nid, "results": rows}, ensure_ascii=False, indent=1))
            return
        if not rows:
            click.echo(f"{nid}: no alignments")
        for r in rows:
            flag = "  FLAGGED (content contradicts the label)" if r["flagged"] else ""
            click.echo(f"{r['id']:<28} {r['method']:<14} {r['score']:.2f}  "
                       f"{_signals(r['evidence'])}{flag}")  # fmt: skip

    @group.command("alignments")
    @DB_OPTION
    @click.argument("doc_a")
    @click.argument("doc_b")
    @click.option("--method", type=click.Choice(METHODS), help="Only rows of this method.")
    @click.option("--flagged", is_flag=True, help="Only flagged label matches.")
    @click.option("--limit", type=click.IntRange(1, 100000), default=None)
    @click.option("--json", "as_json", is_flag=True, help="Print JSON.")
    def alignments_cmd(
        db: Path | None, doc_a: str, doc_b: str, method: str | None, flagged: bool,
        limit: int | None, as_json: bool,
    ) -> None:  # fmt: skip
        """Alignment rows between two documents."""
        con = open_db(db)
        for doc in (doc_a, doc_b):
            if store.document(con, doc) is None:
                known = ", ".join(d["id"] for d in store.documents(con))
                raise click.ClickException(f"unknown document {doc!r} (known: {known})")
        rows = alignments(con, doc_a, doc_b, method=method, flagged=True if flagged else None,
                          limit=limit)  # fmt: skip
        if as_json:
            click.echo(json.dumps(rows, ensure_ascii=False, indent=1))
            return
        for r in rows:
            flag = "  FLAGGED" if r["flagged"] else ""
            click.echo(f"{r['a']:<26} {r['b']:<26} {r['method']:<14} {r['score']:.2f}"
                       f"{flag}")  # fmt: skip
        click.echo(f"{len(rows)} rows")
