"""The search index built at ingest time."""

from __future__ import annotations

import sqlite3


def search_stage(con: sqlite3.Connection) -> dict:
    """Build the full-text index (filled in by the search work)."""
    return {}
