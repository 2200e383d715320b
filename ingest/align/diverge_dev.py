"""Divergence quality on the hand-judged DEV SET (``tests/fixtures/diverge/``).

Two files, both read from the books with quotes as evidence:

* ``dev_findings.toml``: findings the report gave, each judged ``real`` or ``noise`` by
  reading both texts (``a``, ``b``, ``type``, ``verdict``, ``reason``).
* ``dev_region.toml``: an exhaustive reading of a bounded region (fi-2007 against
  sv-2007, the laws named in its header): every real divergence found by reading,
  (``a``, ``b``, ``type``, ``what``).

The checks' word lists and thresholds were tuned with these files in view, so the
figures are dev-set figures, not held-out ones.

* *Precision* of the findings the page's table shows by default (translation divergences
  for two translations of one edition, edition changes otherwise; the quiet types of
  :data:`.checks.QUIET_TYPES` only on request): among the judged findings the report
  still gives, the share judged real. National additions, listed once above the table,
  are not in it.
* *Recall* in the region: the share of the region's divergences that a shown finding of
  the same two books touches (the same provision or one above or below it, on either
  side) with a type that can express it. A finding of another pair of books on the same
  provision does not count: a translator reading fi-2007 against sv-2007 never sees it.
"""

from __future__ import annotations

import sqlite3
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

from .checks import QUIET_TYPES, label_ancestry

DEV_DIR = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "diverge"

COMPATIBLE = {
    "numbers": {"numbers"},
    "cited-targets": {"cited-targets"},
    "omission": {"sentence", "structure", "length-ratio", "concept-missing", "rewritten",
                 "qualifier"},
    "addition": {"sentence", "structure", "length-ratio", "concept-missing", "rewritten",
                 "national-addition"},
    "modal": {"modal"},
    "negation": set(),
    "structure": {"structure"},
    "national-addition": {"national-addition"},
    "meaning": {"numbers", "cited-targets", "sentence", "structure", "length-ratio",
                "concept-missing", "modal", "rewritten", "contrast",
                "qualifier"},
}  # fmt: skip
"""Which finding types can express a divergence type of the region file."""


def load(folder: Path | str = DEV_DIR) -> tuple[list[dict], list[dict]]:
    """``(judged findings, region divergences)``; empty lists for missing files."""
    folder = Path(folder)
    out: list[list[dict]] = []
    for name, key in (("dev_findings.toml", "finding"), ("dev_region.toml", "divergence")):
        path = folder / name
        if not path.exists():
            out.append([])
            continue
        with open(path, "rb") as fh:
            out.append(tomllib.load(fh).get(key, []))
    return out[0], out[1]


def _shown(con: sqlite3.Connection, national: bool = False) -> list[dict]:
    """The findings the report shows by default: its table, and with ``national`` the
    list of national additions above it too."""
    rows = con.execute(
        "SELECT id, family, a, b, doc_a, doc_b, type, message FROM divergences "
        "WHERE family != 'national' OR ?",
        (national,),
    ).fetchall()
    keys = ("id", "family", "a", "b", "doc_a", "doc_b", "type", "message")
    return [dict(zip(keys, r, strict=True)) for r in rows if r[6] not in QUIET_TYPES]


def _ids(value) -> list[str]:
    if not value:
        return []
    return [v for v in (value if isinstance(value, list) else [value]) if v]


def _near(x: str, y: str) -> bool:
    """Same document, and one provision is the other or above or below it."""
    dx, lx = x.split("/", 1)
    dy, ly = y.split("/", 1)
    return dx == dy and (lx == ly or lx in label_ancestry(ly) or ly in label_ancestry(lx))


def evaluate(con: sqlite3.Connection, judged: list[dict], region: list[dict]) -> dict:
    """Precision per type of the judged findings still shown, recall in the region."""
    shown = _shown(con)
    by_pair: dict[tuple, list[dict]] = defaultdict(list)
    for f in shown:
        by_pair[(f["a"], f["b"], f["type"])].append(f)
    prec: dict[str, Counter] = defaultdict(Counter)
    gone: Counter = Counter()
    for j in judged:
        key = (j.get("a") or None, j.get("b") or None, j["type"])
        if key not in by_pair:
            gone[j["verdict"]] += 1
            continue
        for c in (prec[j["type"]], prec["all"]):
            c["shown"] += 1
            c["real"] += int(j["verdict"] == "real")
    judged_keys = {(j.get("a") or None, j.get("b") or None, j["type"]) for j in judged}
    unjudged = sum(1 for k in by_pair if k not in judged_keys)
    rec: dict[str, Counter] = defaultdict(Counter)
    misses = []
    listed = _shown(con, national=True)
    parent = dict(con.execute("SELECT id, parent FROM nodes WHERE kind = 'footnote'"))
    for d in region:
        sides = _ids(d.get("a")) + _ids(d.get("b"))
        sides += [parent[s] for s in sides if parent.get(s)]  # a footnote's provision
        docs = {s.split("/", 1)[0] for s in sides}
        types = COMPATIBLE.get(d["type"], set())
        hit = any(
            f["type"] in types
            and docs <= {f["doc_a"], f["doc_b"]}
            and any(_near(s, x) for s in sides for x in (f["a"], f["b"]) if x)
            for f in listed
        )
        for c in (rec[d["type"]], rec["all"]):
            c["n"] += 1
            c["found"] += int(hit)
        if not hit:
            misses.append(d)
    return {
        "precision": dict(prec),
        "recall": dict(rec),
        "dropped": dict(gone),
        "unjudged_shown": unjudged,
        "shown": len(shown),
        "misses": misses,
    }
