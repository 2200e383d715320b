"""Divergence checks for aligned provisions."""

from __future__ import annotations

import sqlite3


def divergence_stage(con: sqlite3.Connection) -> dict:
    """Find divergences between aligned provisions (filled in by the divergence work)."""
    return {}
