"""Alignment quality on the hand-read DEV SET (``tests/fixtures/align/dev_*.toml``).

The dev set was read from the books (every entry quotes both provisions). The
thresholds and weights of :mod:`.calibration` were tuned on it, so what this module
measures is dev-set quality, not held-out quality.

Pairs (``[[pair]]``): ``a``, ``doc_b``, ``b`` (a list), ``relation`` one of
:data:`RELATIONS`. Topics (``[[topic]]``): ``id``, ``relation`` (``law`` or ``none``)
and, per law book, the acceptable law numbers.

* *Shown as equivalent*: what :func:`ingest.align.query.equivalent` answers for ``a`` in
  ``doc_b``. It is right when it is one of ``b`` and the relation is ``same``,
  ``renumbered`` or ``moved`` (or one part of a ``split``/``merged`` pair); anything
  shown for a ``none``, ``partial`` or ``not-equivalent`` entry's ``b`` is wrong.
* *Recall* per relation: the share of entries whose ``b`` is shown as equivalent.
* *Reliability*: every alignment row whose truth the dev set decides, bucketed by its
  score, with the share that is right.
"""

from __future__ import annotations

import sqlite3
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

from .query import EQUIVALENT, aligned, topic_candidates

DEV_DIR = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "align"
RELATIONS = ("same", "renumbered", "moved", "split", "merged", "partial", "none", "not-equivalent")
EQUIVALENT_GOLD = ("same", "renumbered", "moved", "split", "merged")
LAW_DOCS = ("fi-1997", "el-2017", "fi-2007", "sv-2007")


def load_devset(folder: Path | str = DEV_DIR) -> tuple[list[dict], list[dict]]:
    """All ``[[pair]]`` and ``[[topic]]`` entries of the dev files in ``folder``."""
    pairs, topics = [], []
    for path in sorted(Path(folder).glob("dev_*.toml")):
        got = load_entries(path)
        pairs += got[0]
        topics += got[1]
    return pairs, topics


def load_entries(path: Path | str) -> tuple[list[dict], list[dict]]:
    """The ``[[pair]]`` and ``[[topic]]`` entries of one hand-read file (a dev file, or a
    held-out one kept apart from tuning: ``heldout_*.toml``)."""
    path = Path(path)
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    pairs, topics = data.get("pair", []), data.get("topic", [])
    for entry in (*pairs, *topics):
        entry["file"] = path.name
    return pairs, topics


def _doc(node_id: str) -> str:
    return node_id.split("/", 1)[0]


def shown(con: sqlite3.Connection, a: str, doc_b: str) -> list[dict]:
    """The non-flagged rows of ``a`` in ``doc_b`` that show an equivalent (or a part)."""
    return [
        r
        for r in aligned(con, a)
        if r["doc"] == doc_b
        and not r["flagged"]
        and r["relation"] in (*EQUIVALENT, "split", "merged")
    ]


def judge(entry: dict, b: str) -> bool | None:
    """Whether showing ``b`` as ``entry["a"]``'s equivalent is right (None: unknown)."""
    gold = entry["relation"]
    if gold in EQUIVALENT_GOLD:
        return b in entry["b"]
    if gold in ("none", "partial"):
        return False
    if gold == "not-equivalent":
        return False if b in entry["b"] else None
    return None


def evaluate_pairs(con: sqlite3.Connection, pairs: list[dict]) -> dict:
    """Precision of what is shown, recall per relation, per book pair; and reliability."""
    by_pair: dict[str, Counter] = defaultdict(Counter)
    by_rel: dict[str, Counter] = defaultdict(Counter)
    mistakes = []
    for e in pairs:
        key = "/".join(sorted((_doc(e["a"]), e["doc_b"])))
        rows = shown(con, e["a"], e["doc_b"])
        verdicts = [(r, judge(e, r["id"])) for r in rows]
        known = [(r, v) for r, v in verdicts if v is not None]
        for c in (by_pair[key], by_pair["all"]):
            c["shown"] += len(known)
            c["right"] += sum(1 for _, v in known if v)
        rel = e["relation"]
        hit = any(r["id"] in e["b"] for r in rows)
        by_rel[rel]["n"] += 1
        if rel in EQUIVALENT_GOLD:
            by_rel[rel]["found"] += int(hit)
            for c in (by_pair[key], by_pair["all"]):
                c["gold"] += 1
                c["found"] += int(hit)
        else:
            by_rel[rel]["avoided"] += int(not any(v is False for _, v in verdicts))
        wrong = [r["id"] for r, v in known if not v]
        if wrong or (rel in EQUIVALENT_GOLD and not hit):
            mistakes.append(
                {
                    "a": e["a"],
                    "doc_b": e["doc_b"],
                    "gold": rel,
                    "expected": e["b"],
                    "shown": [r["id"] for r in rows],
                }
            )
    return {
        "by_pair": dict(by_pair),
        "by_relation": dict(by_rel),
        "mistakes": mistakes,
        "reliability": reliability(con, pairs),
    }


def reliability(con: sqlite3.Connection, pairs: list[dict], bins: int = 5) -> list[dict]:
    """Rows of the dev set's provisions bucketed by score: count and share right."""
    buckets = [[0, 0, 0.0] for _ in range(bins)]
    for e in pairs:
        for r in aligned(con, e["a"]):
            if r["doc"] != e["doc_b"] or r["relation"] in ("topic",) or r["method"] == "title":
                continue
            v = judge(e, r["id"]) if e["relation"] != "not-equivalent" else None
            if e["relation"] == "not-equivalent" and r["id"] in e["b"]:
                v = False
            if v is None:
                continue
            k = min(bins - 1, int(r["score"] * bins))
            buckets[k][0] += 1
            buckets[k][1] += int(v)
            buckets[k][2] += r["score"]
    return [
        {
            "from": i / bins,
            "to": (i + 1) / bins,
            "rows": n,
            "right": right,
            "mean_score": s / n if n else None,
            "share_right": right / n if n else None,
        }
        for i, (n, right, s) in enumerate(buckets)
    ]


def evaluate_topics(con: sqlite3.Connection, topics: list[dict]) -> dict:
    """First candidate right per book, and topics with no law answered with none."""
    out: dict[str, Counter] = defaultdict(Counter)
    misses = []
    for t in topics:
        cands = topic_candidates(con, t["id"])
        for doc in LAW_DOCS:
            mine = [c for c in cands if c["doc"] == doc]
            gold = [str(x) for x in t.get(doc, [])]
            c = out[doc]
            c["topics"] += 1
            if t["relation"] == "none":
                ok = not mine
            else:
                ok = bool(mine) and mine[0]["label"].split("/")[-1] in gold
            c["first_right"] += int(ok)
            for x in (out["all"],):
                x["topics"] += 1
                x["first_right"] += int(ok)
            if not ok:
                misses.append(
                    {
                        "topic": t["id"],
                        "doc": doc,
                        "gold": gold,
                        "first": mine[0]["label"] if mine else None,
                    }
                )
    return {"by_doc": dict(out), "misses": misses}
