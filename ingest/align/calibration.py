"""The calibrated equivalence model and its thresholds.

:func:`probability` is a logistic model over the signals of :func:`.score.features`
(plus ``margin``). Its weights and the thresholds below were fitted and tuned on the
hand-read DEV SET ``tests/fixtures/align/dev_*.toml`` (``bench/align.py --fit``
refits them and prints the reliability diagram): they are tuned on that set, and the
figures ``bench/align.py`` prints for it are dev-set figures, not held-out ones.
"""

from __future__ import annotations

import math

WEIGHTS = {
    "bias": -6.0,
    "lex": 7.0,
    "lex_min": 3.0,
    "margin": 8.0,
    "same_label": 1.5,
    "same_law": 0.5,
    "in_parent": 2.0,
    "length": -3.0,
    "anchors": 1.0,
}
"""Logistic weights (dev-set fit)."""

SHOW = 0.5
"""A pair is shown as equivalent from this probability on."""
PARTIAL = 0.2
"""A same-label pair between this and :data:`SHOW` is shown as ``partial`` (rewritten)."""
MARGIN = 0.15
"""How much more probable a pair with another label must be than the label twin."""
IDENTICAL = 0.8
"""Lexical similarity (both directions) from which a label twin is never overruled."""
SPLIT_PART = 0.45
"""Similarity of a part (carried into the whole's language) for a ``split``."""


def probability(f: dict[str, float]) -> float:
    """The probability that a candidate pair with signals ``f`` is equivalent."""
    z = WEIGHTS["bias"] + sum(w * f.get(k, 0.0) for k, w in WEIGHTS.items() if k != "bias")
    return 1.0 / (1.0 + math.exp(-z))
