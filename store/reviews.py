"""Review states of divergence findings, kept beside the store.

The store is immutable (a re-ingest replaces the file), so what translators decide about
a finding lives in a small SQLite file of its own next to it: ``lawgraph.db`` has
``lawgraph.reviews.db``. A finding is known by its stable id (the ``id`` column of
``divergences``, a hash of the provisions, the type and the evidence), so a review
outlives ``lawgraph ingest --force`` of the same input. Every change is also appended to
``history`` (who decided what, when, with which note).

States: ``open`` (no decision yet; the default), ``confirmed`` (a real fault),
``not-an-issue`` (the texts agree, or the difference is intended) and ``fixed``.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

STATES = ("open", "confirmed", "not-an-issue", "fixed")
NOTE_MAX = 2000
"""Characters a note may have."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS reviews (
  id TEXT PRIMARY KEY, state TEXT NOT NULL, note TEXT NOT NULL, updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS history (
  id TEXT NOT NULL, state TEXT NOT NULL, note TEXT NOT NULL, updated TEXT NOT NULL,
  source TEXT NOT NULL
);
"""


class ReviewError(ValueError):
    """A review names an unknown finding or state, or the review file is unusable."""


def reviews_path(store_path: Path | str) -> Path:
    """The review file beside a store: ``var/lawgraph.db`` -> ``var/lawgraph.reviews.db``."""
    p = Path(store_path)
    return p.with_name(p.stem + ".reviews.db")


def _connect(path: Path) -> sqlite3.Connection:
    try:
        con = sqlite3.connect(path, timeout=10)
        con.execute("PRAGMA journal_mode=WAL")
        con.executescript(SCHEMA)
    except sqlite3.DatabaseError as exc:
        raise ReviewError(f"the review file {path} is unusable ({exc}); move it aside") from exc
    return con


def load(path: Path | str) -> dict[str, dict]:
    """Every review: ``{finding id: {"state", "note", "updated"}}`` (empty when the file
    does not exist yet; it is not created by reading).

    Raises:
        ReviewError: if the file exists but is not a review file.
    """
    path = Path(path)
    if not path.exists():
        return {}
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            rows = con.execute("SELECT id, state, note, updated FROM reviews").fetchall()
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        raise ReviewError(f"the review file {path} is unusable ({exc}); move it aside") from exc
    return {r[0]: {"state": r[1], "note": r[2], "updated": r[3]} for r in rows}


def record(
    path: Path | str,
    store: sqlite3.Connection,
    finding_id: str,
    state: str,
    note: str = "",
    source: str = "cli",
) -> dict:
    """Set the review state of one finding of ``store`` (creating the file if needed).

    Returns:
        ``{"id", "state", "note", "updated"}``.

    Raises:
        ReviewError: for an unknown finding id or state, a note too long, or an unusable
            review file.
    """
    if state not in STATES:
        raise ReviewError(f"unknown review state {state!r} (choose from {', '.join(STATES)})")
    note = note.strip()
    if len(note) > NOTE_MAX:
        raise ReviewError(f"the note has {len(note)} characters; at most {NOTE_MAX}")
    try:
        known = store.execute("SELECT 1 FROM divergences WHERE id = ?", (finding_id,)).fetchone()
    except sqlite3.OperationalError as exc:
        raise ReviewError("this store has no divergence findings to review") from exc
    if known is None:
        raise ReviewError(f"no divergence finding with id {finding_id!r} in this store")
    updated = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    con = _connect(Path(path))
    try:
        with con:
            con.execute(
                "INSERT INTO reviews VALUES (?,?,?,?) ON CONFLICT(id) DO UPDATE SET "
                "state = excluded.state, note = excluded.note, updated = excluded.updated",
                (finding_id, state, note, updated),
            )
            con.execute(
                "INSERT INTO history VALUES (?,?,?,?,?)", (finding_id, state, note, updated, source)
            )
    except sqlite3.DatabaseError as exc:
        raise ReviewError(f"the review file {path} is unusable ({exc}); move it aside") from exc
    finally:
        con.close()
    return {"id": finding_id, "state": state, "note": note, "updated": updated}


def attach(rows: list[dict], reviews: dict[str, dict]) -> list[dict]:
    """Give each finding row its ``review_state`` and ``review_note`` (``open``, "")."""
    for r in rows:
        rev = reviews.get(r.get("id", ""))
        r["review_state"] = rev["state"] if rev else "open"
        r["review_note"] = rev["note"] if rev else ""
    return rows
