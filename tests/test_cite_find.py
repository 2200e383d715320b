import json
from pathlib import Path

import pytest

from lawgraph.ingest.cite import find_citations

CASES = json.loads((Path(__file__).parent / "fixtures/cite/find.json").read_text("utf-8"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['lang']}:{c['text'][:30]}")
def test_find(case):
    spans = find_citations(case["text"], case["lang"])
    assert [s.ref for s in spans] == case["refs"]
    for s in spans:
        assert s.relative is case.get("relative", False)
        assert s.damaged is case.get("damaged", False)
        if "kind" in case:
            assert s.kind == case["kind"]
        assert s.raw in case["text"]
        assert case["text"][s.start : s.end] == s.raw
