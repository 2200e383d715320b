"""The ``lawgraph`` commands, one plain module per feature, each listing its commands in
``COMMANDS``. :data:`PLACES` names each command's module, in help order, so that a
command imports only its own module (``lawgraph ingest`` does not load the alignment
stack before it starts its workers); :func:`every_command` imports them all."""

from __future__ import annotations

import importlib

import click

PLACES: dict[str, str] = {
    "ingest": "ingest",
    "dictionaries": "dictionaries",
    "laws": "nodes",
    "show": "nodes",
    "export": "graph",
    "cites": "graph",
    "path": "graph",
    "rank": "graph",
    "graphdiff": "graph",
    "aligned": "align",
    "alignments": "align",
    "lexicon": "align",
    "sentences": "align",
    "tmx": "align",
    "compare": "compare",
    "divergences": "compare",
    "glossary": "glossary",
    "search": "search",
    "serve": "serve",
}
"""Command name -> the module of this package that defines it."""


def command(name: str) -> click.Command | None:
    """The command called ``name`` (its module imported now), or None."""
    place = PLACES.get(name)
    if place is None:
        return None
    module = importlib.import_module(f"{__name__}.{place}")
    return next((c for c in module.COMMANDS if c.name == name), None)


def every_command() -> list[click.Command]:
    """Every command of every module, in their modules' order."""
    places = dict.fromkeys(PLACES.values())
    return [c for p in places for c in importlib.import_module(f"{__name__}.{p}").COMMANDS]
