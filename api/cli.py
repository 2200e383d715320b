"""The ``lawgraph`` command line: one group of the commands of every command module,
each module imported when its command runs (or ``--help`` lists them).

:func:`run` is the console script; :func:`main` is the command group itself (what tests
invoke in their own process).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys

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


def exit_status(code: object) -> int:
    """The status a process ends with for ``SystemExit(code)``, as Python sets it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    return 1  # a message: Python prints it and ends with 1


def run() -> None:
    """The ``lawgraph`` console script: :func:`main`, then every exit handler, then the
    process ends without the interpreter's teardown.

    The teardown frees every object of spaCy, SciPy and the stages one by one: 0.15 s
    after importing spaCy alone, about 0.4 s after an ingest, time a user waits for
    before ``make run`` serves. The handler that ends the process is registered before
    any other, so it runs after all of them (they run last registered first), and it
    flushes the standard streams first. A handler registered before this function runs
    (none is, in the console script) would be skipped.
    """
    status = 1  # an exception that is not SystemExit: Python ends with 1 too

    def end() -> None:
        for stream in (sys.stdout, sys.stderr):
            # a closed pipe or stream: nothing more can be said
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(status)

    atexit.register(end)
    try:
        main()
    except SystemExit as exc:
        status = exit_status(exc.code)
        raise
    else:  # click in standalone mode always raises SystemExit; a plain return is a success
        status = 0
