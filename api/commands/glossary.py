"""CLI commands: glossary."""

from __future__ import annotations

import json
from pathlib import Path

import click

from lawgraph.ingest import languages

from .options import DB_OPTION, open_db

LANG_CHOICES = (*languages.codes(), "en")


@click.command()
@DB_OPTION
@click.argument("term", required=False)
@click.option(
    "--lang",
    type=click.Choice(LANG_CHOICES),
    default=None,
    help="Only terms of this language (en: the English names).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def glossary(db: Path | None, term: str | None, lang: str | None, as_json: bool) -> None:
    """List the glossary, or show the concepts a TERM belongs to and where they occur.

    TERM may be in any language, case or inflection: revokki, ΡΕΝΌΝΣ, salgamise.
    """
    from lawgraph.store.glossary import concept_detail, concepts, lookup_term

    con = open_db(db)
    if term is None:
        rows = concepts(con)
        if not rows:
            raise click.ClickException("the store has no glossary: re-run `lawgraph ingest`")
        if lang:
            rows = [r for r in rows if lang == "en" or lang in r["terms"]]
        if as_json:
            click.echo(json.dumps(rows, ensure_ascii=False, indent=1))
            return
        for row in rows:
            _echo_concept(row, lang)
        return
    found = lookup_term(con, term, lang)
    if not found:
        where = f" among the {lang} terms" if lang else ""
        raise click.ClickException(f"no glossary concept matches {term!r}{where}")
    details = []
    for c in found:
        detail = concept_detail(con, c["id"])
        if detail is not None:  # lookup_term found it in the same store
            details.append(detail | {"matched": c["matched"]})
    if as_json:
        click.echo(json.dumps(details, ensure_ascii=False, indent=1))
        return
    for detail in details:
        _echo_concept(detail, None)
        shown = ", ".join(f"{m['lang']} {m['term']} ({m['via']})" for m in detail["matched"])
        click.echo(f"  matched: {shown}")
        for lang_, terms in detail["term_nodes"].items():
            for t, docs in terms.items():
                for doc, nodes in docs.items():
                    ids = " ".join(n.split("/", 1)[1] for n in nodes)
                    click.echo(
                        click.wrap_text(
                            f"{lang_} {t} in {doc}: {ids}",
                            100,
                            initial_indent="  ",
                            subsequent_indent="      ",
                        )
                    )


def _echo_concept(row: dict, lang: str | None) -> None:
    laws = f"  (laws {', '.join(map(str, row['laws']))})" if row["laws"] else ""
    click.echo(f"{row['id']}: {row['en']}{laws}")
    for lang_, terms in row["terms"].items():
        if lang and lang not in (lang_, "en"):
            continue
        shown = ", ".join(f"{t} ({row['hits'][lang_][t]})" for t in terms)
        click.echo(f"  {lang_}  {shown}")


COMMANDS: list[click.Command] = [glossary]
