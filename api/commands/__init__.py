"""The ``lawgraph`` commands, one plain module per feature, each listing its commands in
``COMMANDS``; :data:`COMMANDS` is every command of the group, in help order."""

from __future__ import annotations

import click

from . import align, compare, dictionaries, glossary, graph, ingest, nodes, search, serve

MODULES = (ingest, dictionaries, nodes, graph, align, compare, glossary, search, serve)
COMMANDS: list[click.Command] = [command for module in MODULES for command in module.COMMANDS]
