"""FastAPI dependencies as ``Annotated`` aliases: the store a page or an API route reads."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, ParamSpec, TypeVar

import networkx as nx
from fastapi import Depends, Request

from .serving import CANCEL_KEY, SNAPSHOT_KEY, Snapshot


def snapshot(request: Request) -> Snapshot:
    """The store snapshot this request is answered from (pinned when it arrived)."""
    snap = request.scope.get(SNAPSHOT_KEY)
    return snap if snap is not None else request.app.state.holder.current()


async def get_con(request: Request) -> AsyncIterator[sqlite3.Connection]:
    """A read-only connection to the request's store, its own until the answer is made
    (taken and given back on the event loop: no thread hand-off of its own)."""
    with snapshot(request).connection(request.scope.get(CANCEL_KEY)) as con:
        yield con


def graph_of(request: Request) -> nx.MultiDiGraph:
    """The knowledge graph of the request's store."""
    return snapshot(request).graph


Con = Annotated[sqlite3.Connection, Depends(get_con)]
P = ParamSpec("P")
R = TypeVar("R")


def on_loop(route: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """Run a route's work on the event loop thread instead of a worker thread.

    For routes whose work is short and bounded (one provision, one law, a neighbourhood
    of at most three hops: a few milliseconds). On the event loop such requests are
    answered one at a time in the order they came, with no thread hand-offs; on worker
    threads they would share the processor (and the GIL) and all finish late together.
    Work that may run long (exports, paths and reports over a whole book) stays on worker
    threads, where a query is interrupted when its client goes away.
    """

    @functools.wraps(route)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        return route(*args, **kwargs)

    return run
