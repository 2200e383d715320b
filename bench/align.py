"""Alignment benchmark on the hand-read DEV SET: precision, recall, reliability, topics.

Usage: ``python bench/align.py [--db STORE] [--fit] [--mistakes] [--held-out FILE]``.
Without ``--db`` the corpus is ingested into a temporary store first.

The dev set (``tests/fixtures/align/dev_*.toml``) was read from the books; the weights
and thresholds of ``ingest/align/calibration.py`` were tuned on it, so every figure
printed here is a DEV-SET figure. ``--fit`` refits the logistic weights on the dev
set's candidate pairs and prints them (with a leave-one-file-out check), for pasting
into the calibration module. ``--held-out FILE`` measures a hand-read file that was kept
apart from all tuning (``tests/fixtures/align/heldout_*.toml``) instead of the dev set.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

import numpy as np
from benchstore import bench_store
from scipy.optimize import minimize

from lawgraph.ingest.align import calibration
from lawgraph.ingest.align.evaluate import (
    evaluate_pairs,
    evaluate_topics,
    judge,
    load_devset,
    load_entries,
)
from lawgraph.ingest.align.query import EQUIVALENT, aligned


def out(line: str = "") -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def pct(x: float | None) -> str:
    return "  -  " if x is None else f"{x:5.3f}"


def report(
    con: sqlite3.Connection,
    pairs: list[dict],
    topics: list[dict],
    mistakes: bool,
    held_out: str | None = None,
):
    res = evaluate_pairs(con, pairs)
    if held_out:
        out(f"HELD-OUT set {held_out}: {len(pairs)} pairs (kept apart from all tuning)")
    else:
        out(f"dev set: {len(pairs)} pairs, {len(topics)} topics (tuned on: dev-set figures)")
    out()
    out(f"{'book pair':24} {'shown':>6} {'right':>6} {'precision':>9} {'gold':>5} "
        f"{'found':>6} {'recall':>7}")  # fmt: skip
    for key, c in sorted(res["by_pair"].items(), key=lambda kv: (kv[0] == "all", kv[0])):
        prec = c["right"] / c["shown"] if c["shown"] else None
        rec = c["found"] / c["gold"] if c["gold"] else None
        out(f"{key:24} {c['shown']:6d} {c['right']:6d} {pct(prec):>9} {c['gold']:5d} "
            f"{c['found']:6d} {pct(rec):>7}")  # fmt: skip
    out()
    out(f"{'relation':16} {'entries':>7} {'found':>6} {'recall':>7} {'kept out':>9}")
    for rel, c in sorted(res["by_relation"].items()):
        if "found" in c:
            out(f"{rel:16} {c['n']:7d} {c['found']:6d} {pct(c['found'] / c['n']):>7}")
        else:
            out(f"{rel:16} {c['n']:7d} {'':6} {'':7} {c['avoided']:4d}/{c['n']:<4d}")
    mover = [c for rel, c in res["by_relation"].items() if rel in ("renumbered", "moved")]
    n, found = sum(c["n"] for c in mover), sum(c["found"] for c in mover)
    out(f"renumbered+moved recall: {pct(found / n if n else None)} ({found}/{n})")
    out()
    out("reliability (every row of a provision of the set whose truth the set decides):")
    out(f"{'score':>11} {'rows':>5} {'mean score':>10} {'share right':>11}")
    for b in res["reliability"]:
        out(f"{b['from']:.1f} - {b['to']:.1f} {b['rows']:5d} {pct(b['mean_score']):>10} "
            f"{pct(b['share_right']):>11}")  # fmt: skip
    if topics:
        t = evaluate_topics(con, topics)
        out()
        out(f"{'Estonian topics':16} {'topics':>6} {'first right':>11} {'share':>6}")
        for doc, c in sorted(t["by_doc"].items(), key=lambda kv: (kv[0] == "all", kv[0])):
            out(f"{doc:16} {c['topics']:6d} {c['first_right']:11d} "
                f"{pct(c['first_right'] / c['topics']):>6}")  # fmt: skip
        if mistakes:
            for m in t["misses"]:
                out(f"  topic miss {m}")
    if not held_out:
        twin_threshold_check(con, pairs)
    if mistakes:
        out()
        for m in res["mistakes"]:
            out(f"  miss {m}")


TWIN_GRID = (0.7, 0.75, 0.8, 0.85, 0.9, 0.95)


def twin_threshold_check(con: sqlite3.Connection, pairs: list[dict]) -> None:
    """How well the threshold for label twins of two editions (``TWIN_SHOW``) carries to
    a dev file it was not chosen on: for each file, the lowest threshold of the grid that
    gives precision >= 0.95 on the other files, and the precision it gives on that one.
    Rows are what would be shown at ``SHOW`` (an unconfirmed twin counts as shown)."""
    kinds = dict(con.execute("SELECT id, kind FROM nodes").fetchall())
    rows = []  # (file, a twin the threshold applies to, score, right)
    for e in pairs:
        for r in aligned(con, e["a"]):
            shown = r["relation"] in (*EQUIVALENT, "split", "merged") or calibration.unconfirmed(
                r["relation"], r["score"]
            )
            verdict = judge(e, r["id"])
            if r["doc"] != e["doc_b"] or r["flagged"] or not shown or verdict is None:
                continue
            twin = (
                e["a"].split("/", 1)[1] == r["id"].split("/", 1)[1]
                and r["editions"] == "cross-edition"
                and kinds.get(e["a"]) != "law"
            )
            rows.append((e["file"], twin, r["score"], verdict))

    def precision(subset: list[tuple], t: float) -> tuple[int, int]:
        kept = [r for r in subset if not r[1] or r[2] >= t]
        return sum(r[3] for r in kept), len(kept)

    out()
    out(f"label twins of two editions shown from TWIN_SHOW = {calibration.TWIN_SHOW}; chosen "
        f"without each dev file, tested on it:")  # fmt: skip
    total = [0, 0]
    for held in sorted({r[0] for r in rows}):
        rest = [r for r in rows if r[0] != held]
        chosen = next(
            (t for t in TWIN_GRID if (lambda k: k[1] and k[0] / k[1] >= 0.95)(precision(rest, t))),
            TWIN_GRID[-1],
        )
        right, shown = precision([r for r in rows if r[0] == held], chosen)
        total[0] += right
        total[1] += shown
        out(f"  {held:20} threshold {chosen:.2f}: {right}/{shown} right, precision "
            f"{pct(right / shown if shown else None)}")  # fmt: skip
    out(f"  leave-one-file-out precision: {pct(total[0] / total[1] if total[1] else None)} "
        f"({total[0]}/{total[1]})")  # fmt: skip


def _features(con: sqlite3.Connection, pairs: list[dict]):
    """Signals and truth of the pairs the matcher chose for the dev entries' provisions."""
    from lawgraph.ingest.align import align_corpus

    result = align_corpus(con)
    xs, ys, groups = [], [], []
    names = [k for k in calibration.WEIGHTS if k != "bias"]
    for e in pairs:
        a, doc_b = e["a"], e["doc_b"]
        doc_a = a.split("/", 1)[0]
        matcher = result.matchers.get((doc_a, doc_b))
        flip = matcher is None
        if flip:
            matcher = result.matchers.get((doc_b, doc_a))
        if matcher is None:
            continue
        for (x, y), (_p, f) in matcher.cache.items():
            mine, other = (y, x) if flip else (x, y)
            if mine != a or matcher.match.get(x) != y:
                continue  # the model decides whether to show the matcher's choice
            truth = judge(e, other)
            if truth is None:
                continue
            xs.append([f.get(k, 0.0) for k in names])
            ys.append(float(truth))
            groups.append(e["file"])
    return names, np.array(xs), np.array(ys), groups


SIGN = {"length": -1}
"""Signals that can only lower the probability; every other one can only raise it."""


def _fit(x: np.ndarray, y: np.ndarray, names: list[str], l2: float = 0.5) -> np.ndarray:
    xb = np.hstack([np.ones((len(x), 1)), x])

    def loss(w):
        z = xb @ w
        ll = np.sum(np.logaddexp(0, z) - y * z)
        return ll + l2 * np.sum(w[1:] ** 2)

    def grad(w):
        p = 1 / (1 + np.exp(-(xb @ w)))
        g = xb.T @ (p - y)
        g[1:] += 2 * l2 * w[1:]
        return g

    bounds = [(None, None)] + [(None, 0.0) if SIGN.get(k, 1) < 0 else (0.0, None) for k in names]
    return minimize(loss, np.zeros(xb.shape[1]), jac=grad, method="L-BFGS-B", bounds=bounds).x


def fit(con: sqlite3.Connection, pairs: list[dict]) -> None:
    names, x, y, groups = _features(con, pairs)
    out(f"fit on {len(y)} candidate pairs of the dev set ({int(y.sum())} right)")
    w = _fit(x, y, names)
    out("WEIGHTS = {")
    out(f'    "bias": {w[0]:.2f},')
    for k, v in zip(names, w[1:], strict=True):
        out(f'    "{k}": {v:.2f},')
    out("}")
    for g in sorted(set(groups)):
        test = np.array([x == g for x in groups])
        if test.all() or not test.any():
            continue
        wg = _fit(x[~test], y[~test], names)
        z = wg[0] + x[test] @ wg[1:]
        p = 1 / (1 + np.exp(-z))
        shown = p >= calibration.SHOW
        prec = y[test][shown].mean() if shown.any() else float("nan")
        rec = (shown & (y[test] == 1)).sum() / max(1, (y[test] == 1).sum())
        out(f"  trained without {g}, tested on it: candidate precision {prec:.3f}, "
            f"recall {rec:.3f} at p >= {calibration.SHOW}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path)
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--mistakes", action="store_true")
    ap.add_argument("--held-out", type=Path, help="a hand-read file kept apart from tuning")
    args = ap.parse_args()
    if args.held_out and args.fit:
        ap.error("--fit tunes: it is for the dev set only")
    pairs, topics = load_entries(args.held_out) if args.held_out else load_devset()
    with bench_store(args.db, out) as db:
        con = sqlite3.connect(db)
        con.row_factory = sqlite3.Row
        if args.fit:
            fit(con, pairs)
        else:
            held = args.held_out.name if args.held_out else None
            report(con, pairs, topics, args.mistakes, held)


if __name__ == "__main__":
    main()
