"""CLI commands: alignment (``lawgraph aligned``, ``alignments``, ``lexicon``,
``sentences``, ``tmx``)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from lawgraph import store
from lawgraph.store.align import (
    METHODS,
    aligned,
    alignments,
    lexicon_lookup,
    sentence_pairs,
)

from .options import DB_OPTION, open_db, resolve_or_fail


def _signals(evidence: dict) -> str:
    if "why" in evidence:
        terms = evidence.get("terms") or []
        shown = ", ".join(f"{a}={b}" for a, b, _p in terms[:4])
        return evidence["why"] + (f" Terms: {shown}." if shown else "")
    if "concepts" in evidence and "rank" in evidence:
        return "concepts: " + ", ".join(evidence["concepts"])
    sig = evidence.get("signals") or {}
    return " ".join(f"{k}={v}" for k, v in sorted(sig.items()))


@click.command("aligned")
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
        shown = "NOT EQUIVALENT" if r["flagged"] else r["standing"]
        click.echo(f"{r['id']:<28} {shown:<14} {r['score']:.2f}  {_signals(r['evidence'])}")


@click.command("alignments")
@DB_OPTION
@click.argument("doc_a")
@click.argument("doc_b")
@click.option("--method", type=click.Choice(METHODS), help="Only rows of this method.")
@click.option("--flagged", is_flag=True, help="Only flagged label matches.")
@click.option("--limit", type=click.IntRange(1, 100000), default=None)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def alignments_cmd(
    db: Path | None,
    doc_a: str,
    doc_b: str,
    method: str | None,
    flagged: bool,
    limit: int | None,
    as_json: bool,
) -> None:
    """Alignment rows between two documents."""
    con = open_db(db)
    for doc in (doc_a, doc_b):
        if store.document(con, doc) is None:
            known = ", ".join(d["id"] for d in store.documents(con))
            raise click.ClickException(f"unknown document {doc!r} (known: {known})")
    rows = alignments(
        con, doc_a, doc_b, method=method, flagged=True if flagged else None, limit=limit
    )
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False, indent=1))
        return
    for r in rows:
        flag = "  FLAGGED" if r["flagged"] else ""
        click.echo(f"{r['a']:<26} {r['b']:<26} {r['method']:<14} {r['score']:.2f}{flag}")
    click.echo(f"{len(rows)} rows")


@click.command("lexicon")
@DB_OPTION
@click.argument("word")
@click.option("--lang", help="Language of WORD (fi, sv, el).")
@click.option("--to", "to", help="Only translations into this language.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def lexicon_cmd(
    db: Path | None, word: str, lang: str | None, to: str | None, as_json: bool
) -> None:
    """Translations of a word learned from the books' parallel provisions."""
    if not word.strip() or len(word) > 100:
        raise click.ClickException("give one word (at most 100 characters)")
    con = open_db(db)
    rows = lexicon_lookup(con, word, lang=lang, to=to)
    if as_json:
        click.echo(json.dumps({"word": word, "results": rows}, ensure_ascii=False, indent=1))
        return
    if not rows:
        click.echo(f"{word}: not in the learned lexicon")
    for r in rows:
        click.echo(
            f"{r['lang']}:{r['word_shown'] or r['word']:<18} -> "
            f"{r['to']}:{r['shown'] or r['surface']:<20} "
            f"p={r['p']:.2f}  back={r['p_back']:.2f}"
        )


@click.command("sentences")
@DB_OPTION
@click.argument("node_a")
@click.argument("node_b")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def sentences_cmd(db: Path | None, node_a: str, node_b: str, as_json: bool) -> None:
    """The aligned sentences of two equivalent provisions."""
    con = open_db(db)
    a, b = resolve_or_fail(con, node_a), resolve_or_fail(con, node_b)
    rows = sentence_pairs(con, a, b)
    if as_json:
        click.echo(json.dumps({"a": a, "b": b, "sentences": rows}, ensure_ascii=False, indent=1))
        return
    if not rows:
        click.echo(f"{a} and {b}: no aligned sentences (not shown as equivalent)")
    for r in rows:
        click.echo(f"[{r['bead']}] {r['a'] or '-'}\n      {r['b'] or '-'}")


@click.command("tmx")
@DB_OPTION
@click.argument("doc_a")
@click.argument("doc_b")
@click.option("--csv", "as_csv", is_flag=True, help="CSV instead of TMX.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
def tmx_cmd(db: Path | None, doc_a: str, doc_b: str, as_csv: bool, output: Path) -> None:
    """Export the aligned sentences of two books as a translation memory (TMX)."""
    from lawgraph.store.align import TmxError, sentences_csv, tmx_bytes

    con = open_db(db)
    try:
        data = sentences_csv(con, doc_a, doc_b) if as_csv else tmx_bytes(con, doc_a, doc_b)
    except TmxError as exc:
        raise click.ClickException(str(exc)) from exc
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(data)
    units = data.count(b"<tu>") if not as_csv else data.count(b"\n") - 1
    click.echo(f"wrote {output}: {units} {'units' if not as_csv else 'rows'}")


COMMANDS: list[click.Command] = [aligned_cmd, alignments_cmd, lexicon_cmd, sentences_cmd, tmx_cmd]
