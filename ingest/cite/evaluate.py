"""Precision and recall of citation finding against hand-made gold lists."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..model import Citation, Node


@dataclass
class Score:
    """Edge-level comparison of found citations with a gold list."""

    doc: str
    laws: list[str]
    gold: int
    found: int
    correct: int
    missed: list[tuple[str, str]]
    spurious: list[tuple[str, str]]

    @property
    def precision(self) -> float:
        return self.correct / self.found if self.found else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.gold if self.gold else 1.0


def load_gold(path: Path) -> dict:
    """Read one gold file: ``{"doc", "laws", "citations": [{"source", "target", "raw"}]}``."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def score(gold: dict, nodes: list[Node], citations: list[Citation]) -> Score:
    """Compare (source label, target label) pairs, counting repeats, over the gold laws."""
    laws = set(gold["laws"])
    by_id = {n.id: n for n in nodes}
    found = Counter(
        (by_id[c.source].label, c.ref)
        for c in citations
        if by_id[c.source].law in laws and by_id[c.source].doc == gold["doc"]
    )
    want = Counter((g["source"], g["target"]) for g in gold["citations"])
    correct = sum((found & want).values())
    return Score(
        doc=gold["doc"],
        laws=sorted(laws, key=int),
        gold=sum(want.values()),
        found=sum(found.values()),
        correct=correct,
        missed=sorted((want - found).elements()),
        spurious=sorted((found - want).elements()),
    )
