"""Command modules added to the ``lawgraph`` group, one per feature."""

from __future__ import annotations

import importlib

import click

MODULES = ("glossary", "align", "compare", "search")


def register_all(group: click.Group) -> None:
    """Register every command module's commands on ``group``."""
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}").register(group)
