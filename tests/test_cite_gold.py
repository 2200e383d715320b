"""Citation finding against hand-made lists of every citation in whole laws."""

from pathlib import Path

import pytest

from lawgraph import store
from lawgraph.ingest.cite.evaluate import load_gold, score

FIXTURES = Path(__file__).parent / "fixtures/cite"
GOLD = sorted(FIXTURES.glob("gold/*.json"))
#: annotated later, by another reader, without looking at the finder
HELDOUT = sorted(FIXTURES.glob("heldout/*.json"))


def test_every_law_book_has_a_gold_list_of_three_laws():
    docs = {load_gold(p)["doc"]: load_gold(p) for p in GOLD}
    assert set(docs) == {"fi-1997", "el-2017", "sv-2007", "fi-2007"}
    assert all(len(g["laws"]) >= 3 and len(g["citations"]) >= 10 for g in docs.values())


@pytest.mark.parametrize("path", GOLD + HELDOUT, ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_precision_and_recall(con, path, capsys):
    gold = load_gold(path)
    nodes = store.nodes(con, gold["doc"])
    cites = [c for c in store.citations(con) if c.source.startswith(gold["doc"] + "/")]
    s = score(gold, nodes, cites)
    with capsys.disabled():
        print(f"\n{s.doc} laws {','.join(s.laws)}: gold {s.gold}, found {s.found}, "
              f"precision {s.precision:.3f}, recall {s.recall:.3f}")  # fmt: skip
    assert s.precision >= 0.95, s.spurious
    assert s.recall >= 0.95, s.missed
