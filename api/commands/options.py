"""What the command modules share: the store option and clear errors for a missing store
or an unknown node."""

from __future__ import annotations

from pathlib import Path

import click

from lawgraph import store

DB_OPTION = click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Store file (default $LAWGRAPH_DB or var/lawgraph.db).",
)


def resolve_or_fail(con, text: str) -> str:
    """The node id ``text`` names, or a clear CLI error (the lookup, which reads the
    alignment for title-only laws, is imported here: ``lawgraph ingest`` needs none of it)."""
    from lawgraph.store.lookup import LookupError_, resolve_id

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
