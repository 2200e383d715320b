"""Alignment of provisions across languages and editions."""

from __future__ import annotations

import sqlite3


def align_stage(con: sqlite3.Connection) -> dict:
    """Align provisions across documents (filled in by the alignment work)."""
    return {}
