"""The ``lawgraph`` command line: one group of the commands of every command module,
each module imported when its command runs (or ``--help`` lists them)."""

from __future__ import annotations

import click

from . import commands


class _Commands(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(commands.PLACES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return commands.command(cmd_name)


@click.group(cls=_Commands)
def main() -> None:
    """Explore the Laws of Duplicate Bridge in Finnish, Greek, Swedish and Estonian."""
