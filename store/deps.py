"""FastAPI dependencies as ``Annotated`` aliases: the store a page or an API route reads."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Annotated

import networkx as nx
from fastapi import Depends, Request

from .serving import CANCEL_KEY, SNAPSHOT_KEY, Snapshot


def snapshot(request: Request) -> Snapshot:
    """The store snapshot this request is answered from (pinned when it arrived)."""
    snap = request.scope.get(SNAPSHOT_KEY)
    return snap if snap is not None else request.app.state.holder.current()


def get_con(request: Request) -> Iterator[sqlite3.Connection]:
    """A read-only connection to the request's store, its own until the answer is made."""
    with snapshot(request).connection(request.scope.get(CANCEL_KEY)) as con:
        yield con


def graph_of(request: Request) -> nx.MultiDiGraph:
    """The knowledge graph of the request's store."""
    return snapshot(request).graph


Con = Annotated[sqlite3.Connection, Depends(get_con)]
