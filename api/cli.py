"""The ``lawgraph`` command line: one group of the commands of every command module."""

from __future__ import annotations

import click

from .commands import COMMANDS


@click.group()
def main() -> None:
    """Explore the Laws of Duplicate Bridge in Finnish, Greek, Swedish and Estonian."""


for _command in COMMANDS:
    main.add_command(_command)
