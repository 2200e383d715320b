"""Equivalents confirmed through a third book (:mod:`ingest.align.third`)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from lawgraph.ingest.align import EQUIVALENT, aligned, calibration, sentence_pairs
from lawgraph.ingest.align.match import Row
from lawgraph.ingest.align.third import CONFIRM, third_book_rows


def _corpus(labels: dict[str, str]):
    """Sections ``doc/label`` of Law 10 in four books of four editions."""
    provs = {}
    for nid, kind in labels.items():
        doc, label = nid.split("/", 1)
        provs[nid] = SimpleNamespace(label=label, law="10", kind=kind, doc=doc, parent=None)
    return SimpleNamespace(
        provs=provs,
        docs={d: SimpleNamespace(language=d) for d in ("A", "B", "C", "D")},
        relation=lambda x, y: "cross-edition",
        above=lambda nid: frozenset(),  # no section contains another
    )


def _shown(a: str, b: str, p: float) -> Row:
    return Row(a, b, "content", p, 0, {}, "same")


PROVS = {
    "A/10B": "section",
    "A/10C": "section",
    "B/10C": "section",
    "B/10D": "section",
    "C/10C": "section",
    "D/10B": "section",
}


def _chain(p1: float = 0.95, p2: float = 0.9) -> dict:
    """A/10B is C/10C (``p1``), and C/10C is B/10D (``p2``)."""
    return {("A", "C"): [_shown("A/10B", "C/10C", p1)], ("B", "C"): [_shown("B/10D", "C/10C", p2)]}


def _run(rows: dict, opens: dict) -> dict:
    return third_book_rows(_corpus(PROVS), rows, opens)  # type: ignore[arg-type]


def test_a_chain_and_the_direct_comparison_agreeing_show_the_pair():
    got = _run(_chain(), {("A", "B"): {"A/10B": {"B/10D": 0.6, "B/10C": 0.2}}})
    [row] = got[("A", "B")]
    assert (row.a, row.b, row.relation) == ("A/10B", "B/10D", "renumbered")
    assert row.method == "third-book"
    assert row.score == pytest.approx(0.95 * 0.9, abs=1e-4) and not row.flagged
    assert row.evidence["third_book"] == {"via": "C/10C", "links": [0.95, 0.9], "direct": 0.6}
    assert "Confirmed through C" in row.evidence["why"] and "0.60" in row.evidence["why"]


@pytest.mark.parametrize(
    ("direct", "p1", "p2", "why"),
    [
        (CONFIRM - 0.01, 0.95, 0.9, "the direct comparison is too weak"),
        (0.6, 0.8, 0.8, "the chain is below the threshold"),
    ],
)
def test_one_source_alone_is_not_enough(direct, p1, p2, why):
    assert _run(_chain(p1, p2), {("A", "B"): {"A/10B": {"B/10D": direct}}}) == {}, why


def test_a_label_twin_of_two_editions_needs_the_twin_threshold():
    def run(p2):
        rows = {
            ("A", "C"): [_shown("A/10C", "C/10C", 0.99)],
            ("B", "C"): [_shown("B/10C", "C/10C", p2)],
        }
        return _run(rows, {("A", "B"): {"A/10C": {"B/10C": 0.8}}})

    assert calibration.SHOW <= 0.99 * 0.8 < calibration.TWIN_SHOW and run(0.8) == {}
    assert calibration.TWIN_SHOW > 0.99 * 0.88 and run(0.88) == {}  # 0.87: not enough
    assert calibration.TWIN_SHOW <= 0.99 * 0.96
    [row] = run(0.96)[("A", "B")]
    assert row.relation == "same" and row.score >= calibration.TWIN_SHOW


def test_never_two_equivalents_for_one_provision():
    chain = _chain()
    held = {**chain, ("A", "B"): [_shown("A/10C", "B/10D", 0.9)]}
    assert _run(held, {("A", "B"): {"A/10B": {"B/10D": 0.6}}}) == {}
    has_one = {**chain, ("A", "B"): [_shown("A/10B", "B/10C", 0.9)]}
    assert _run(has_one, {("A", "B"): {"A/10B": {"B/10D": 0.6}}}) == {}


def test_third_books_that_disagree_confirm_nothing():
    rows = {
        **_chain(),
        ("A", "D"): [_shown("A/10B", "D/10B", 0.9)],
        ("B", "D"): [_shown("B/10C", "D/10B", 0.9)],
    }
    assert _run(rows, {("A", "B"): {"A/10B": {"B/10D": 0.6, "B/10C": 0.6}}}) == {}


def test_rows_of_the_books_rest_on_two_shown_equivalents(con):
    rows = con.execute("SELECT * FROM alignments WHERE method = 'third-book'").fetchall()
    assert rows, "the bundled books have pairs confirmed through a third book"
    for r in rows:
        ev = json.loads(r["evidence"])
        a, b, via = r["a"], r["b"], ev["third_book"]["via"]
        assert r["relation"] in EQUIVALENT and not r["flagged"]
        assert ev["third_book"]["direct"] >= CONFIRM
        links = []
        for x, y in ((a, via), (via, b)):
            [link] = [d for d in aligned(con, x) if d["id"] == y and d["relation"] in EQUIVALENT]
            assert not link["flagged"]
            links.append(link["score"])
        assert r["score"] == pytest.approx(links[0] * links[1], abs=2e-4)
        for node, doc in ((a, r["doc_b"]), (b, r["doc_a"])):
            mine = [
                d
                for d in aligned(con, node)
                if d["doc"] == doc and not d["flagged"] and d["relation"] in EQUIVALENT
            ]
            assert [d["id"] for d in mine] == [b if node == a else a]
        texts = [t for (t,) in con.execute("SELECT text FROM nodes WHERE id IN (?, ?)", (a, b))]
        assert bool(sentence_pairs(con, a, b)) == all(t.strip() for t in texts)
    dupes = con.execute(
        "SELECT a, b, n FROM sentence_pairs GROUP BY a, b, n HAVING COUNT(*) > 1"
    ).fetchall()
    assert dupes == []


def test_a_renumbered_rule_is_confirmed_through_the_2017_book(con):
    """1997 80E "määrättävä erityisehdot tarjoamiselle ja pelaamiselle" (the organiser
    sets the special conditions for bidding and play) is 2007 80B2(e) "att föreskriva
    villkoren för budgivning och spel"; compared directly they fall short, and
    el-2017/80B2(e) is the equivalent of both."""
    [row] = [
        d
        for d in aligned(con, "fi-1997/80E")
        if d["doc"] == "sv-2007" and not d["flagged"] and d["relation"] in EQUIVALENT
    ]
    assert row["id"] == "sv-2007/80B2(e)" and row["relation"] == "renumbered"
    assert row["evidence"]["third_book"]["via"] == "el-2017/80B2(e)"
