"""FastAPI dependencies as ``Annotated`` aliases."""

from __future__ import annotations

import sqlite3
from typing import Annotated

from fastapi import Depends, Request


def get_con(request: Request) -> sqlite3.Connection:
    """The read-only store connection the app was created with."""
    return request.app.state.con


Con = Annotated[sqlite3.Connection, Depends(get_con)]
