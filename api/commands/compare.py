"""CLI commands: compare a provision across versions; divergence reports."""

from __future__ import annotations

import csv
import json
import shutil
import sys

import click

from .options import DB_OPTION, open_db

WRAP = 44


def _wrap(text: str, width: int) -> list[str]:
    return click.wrap_text(text or "", width).splitlines() or [""]


def _pair(f: dict) -> str:
    return f"[{f['doc_a']}~{f['doc_b']}]"


def _table(result: dict) -> None:
    """Print the compare result as a row-by-row table with wrapped text."""
    docs = [d for d, v in result["versions"].items() if v.get("id")]
    term = shutil.get_terminal_size((160, 40)).columns
    width = max(24, min(WRAP, (term - 16) // max(1, len(docs)) - 2))
    for d, v in result["versions"].items():
        line = f"{d}: {v.get('id') or '-'}"
        if v.get("missing"):
            line += f"  ({v['missing']})"
        if v.get("via"):
            line += f"  [{v['via']['reason']}]"
        click.echo(line)

    keys = [result["label"]] + ["  " * (r["depth"] - 1) + r["key"] for r in result["rows"]]
    kw = max(len(k) for k in keys) + 2

    def block(key: str, cells: dict) -> None:
        cols = []
        for d in docs:
            c = cells.get(d)
            cols.append(
                ["—"]
                if c is None
                else _wrap(f"{c['label']} {c['title']} {c['text']}".strip(), width)
            )
        for i in range(max(len(c) for c in cols)):
            first = key if i == 0 else ""
            click.echo(
                f"{first:<{kw}}"
                + "  ".join(f"{(c[i] if i < len(c) else ''):<{width}}" for c in cols).rstrip()
            )

    click.echo("")
    click.echo(f"{'':<{kw}}" + "  ".join(f"{d:<{width}}" for d in docs).rstrip())
    block(result["label"], {d: result["versions"][d] for d in docs})
    for f in result["divergences"]:
        click.echo(f"{'':<{kw}}! {_pair(f)} {f['type']} ({f['severity']}): {f['message']}")
    for row in result["rows"]:
        click.echo("")
        block("  " * (row["depth"] - 1) + row["key"], row["cells"])
        for f in row["divergences"]:
            click.echo(f"{'':<{kw}}! {_pair(f)} {f['type']} ({f['severity']}): {f['message']}")
    for m in result.get("moved", []):
        click.echo("")
        click.echo(f"The rule of {m['for']} is now at:")
        block("", m["cells"])
    if result["topics"]:
        click.echo(
            "\nEstonian topics: "
            + ", ".join(f"{t['title']} ({t['score']:.2f})" for t in result["topics"])
        )


class _DefaultGroup(click.Group):
    """A group whose first subcommand is the default: ``divergences A B`` lists."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        named = next((a for a in args if a in self.commands), None)
        if named is not None:  # options may come before the command: --db X review ID
            args = [named, *(a for a in args if a is not named)]
        elif args and args[0] not in ("--help",):
            args = ["list", *args]
        return super().parse_args(ctx, args)


@click.command("compare")
@DB_OPTION
@click.argument("label")
@click.option("--docs", default=None, help="Comma-separated documents, e.g. fi-2007,sv-2007.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def compare_cmd(db, label: str, docs: str | None, as_json: bool) -> None:
    """One provision in every version, sub-provisions row by row, with divergences."""
    from lawgraph.store.compare import CompareError, compare

    con = open_db(db)
    wanted = [d.strip() for d in docs.split(",") if d.strip()] if docs else None
    try:
        result = compare(con, label, wanted)
    except CompareError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps(result, ensure_ascii=False, indent=1))
    else:
        _table(result)


@click.group("divergences", cls=_DefaultGroup)
def divergences_group() -> None:
    """Divergences between two documents, and their review states."""


@divergences_group.command("list")
@DB_OPTION
@click.argument("doc_a")
@click.argument("doc_b")
@click.option("--type", "type_", default=None, help="Only this divergence type.")
@click.option("--severity", type=click.Choice(["low", "medium", "high"]), default=None)
@click.option(
    "--family",
    type=click.Choice(["translation", "edition", "national"]),
    default=None,
    help="Translation divergences, edition changes or national additions.",
)
@click.option("--limit", type=click.IntRange(1, None), default=None)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV.")
def divergences_cmd(db, doc_a, doc_b, type_, severity, family, limit, as_json, as_csv) -> None:
    """Divergences between two documents, highest provision score first (the default:
    ``lawgraph divergences fi-2007 sv-2007``). The checks that are right too rarely are
    left out unless asked for by ``--type`` (``--type all`` lists every finding), as on
    the divergence page."""
    from lawgraph import store
    from lawgraph.store import reviews
    from lawgraph.store.divergences import DivergenceError, pair_report, report_findings

    if as_json and as_csv:
        raise click.ClickException("choose one of --json and --csv")
    con = open_db(db)
    known = [d["id"] for d in store.documents(con)]
    for d in (doc_a, doc_b):
        if d not in known:
            raise click.ClickException(f"unknown document {d!r} (known: {', '.join(known)})")
    if doc_a == doc_b:
        raise click.ClickException("divergences compare two different documents")
    try:
        decided = reviews.load(reviews.reviews_path(store.resolve_db(db)))
    except reviews.ReviewError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        rows, quiet = report_findings(
            con, doc_a, doc_b, type=type_, severity=severity, family=family, decided=decided
        )
    except DivergenceError as exc:
        raise click.ClickException(str(exc)) from exc
    rows = rows[:limit] if limit else rows
    if as_json:
        out = {
            "a": doc_a,
            "b": doc_b,
            "results": rows,
            "quiet_left_out": quiet,
            "report": pair_report(con, doc_a, doc_b),
        }
        click.echo(json.dumps(out, ensure_ascii=False, indent=1))
        return
    if as_csv:
        from lawgraph.api.routes.compare import CSV_COLUMNS, csv_row

        w = csv.writer(sys.stdout)
        w.writerow(CSV_COLUMNS)
        for r in rows:
            w.writerow(csv_row(r))
        return
    report = pair_report(con, doc_a, doc_b)
    total = sum(report["by_type"].values())
    click.echo(
        f"{doc_a} vs {doc_b}: {total} divergences (showing {len(rows)}); by type "
        + ", ".join(f"{k} {v}" for k, v in report["by_type"].items())
    )
    if quiet:
        click.echo(
            "left out, right too rarely to list unless asked (--type TYPE or --type all): "
            + ", ".join(f"{k} {v}" for k, v in quiet.items())
        )
    for r in rows:
        pair = f"{r['a'] or '—'} ~ {r['b'] or '—'}"
        state = "" if r["review_state"] == "open" else f" [{r['review_state']}]"
        click.echo(
            f"{r['score'] or 0:6.1f}  {r['id']:<12} {pair:<34} {r['type']:<17} "
            f"{r['severity']:<6} {r['message']}{state}"
        )


@divergences_group.command("review")
@DB_OPTION
@click.argument("finding_id")
@click.option(
    "--state",
    type=click.Choice(["open", "confirmed", "not-an-issue", "fixed"]),
    required=True,
    help="The decision about the finding.",
)
@click.option("--note", default="", help="Why (kept with the state).")
def review_cmd(db, finding_id: str, state: str, note: str) -> None:
    """Record a review state for one finding (its id is in the list, the page, the
    CSV and the JSON); kept beside the store, so it survives a re-ingest."""
    from lawgraph import store
    from lawgraph.store import reviews

    con = open_db(db)
    path = reviews.reviews_path(store.resolve_db(db))
    try:
        rec = reviews.record(path, con, finding_id, state, note, source="cli")
    except reviews.ReviewError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(
        f"{rec['id']}: {rec['state']}"
        + (f" ({rec['note']})" if rec["note"] else "")
        + f" — recorded in {path}"
    )


COMMANDS: list[click.Command] = [compare_cmd, divergences_group]
