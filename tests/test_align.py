"""Alignment of provisions across languages and editions (whole-corpus facts checked by
reading the books)."""

import json

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from api.app import create_app
from api.cli import main
from ingest import store
from ingest.align import aligned, alignments, equivalent, topic_candidates
from ingest.align.evidence import numbers_in


@pytest.fixture(scope="module")
def client(ingested):
    return TestClient(create_app(ingested[0]))


def run(*args, db):
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def test_stage_writes_rows_for_every_pair(con):
    stats = store.stage_stats(con, "align")
    assert stats["rows"] > 2000
    pairs = {(r[0], r[1]) for r in con.execute("SELECT DISTINCT doc_a, doc_b FROM alignments")}
    law_docs = ["fi-1997", "el-2017", "fi-2007", "sv-2007"]
    for i, a in enumerate(law_docs):
        for b in law_docs[i + 1 :]:
            assert (a, b) in pairs  # a is always the earlier document of the manifest
    assert ("et-1930s", "el-2017") in pairs
    rel = dict(con.execute("SELECT doc_a || '|' || doc_b, relation FROM alignments GROUP BY 1"))
    assert rel["fi-2007|sv-2007"] == "same-edition"
    assert rel["fi-1997|fi-2007"] == rel["el-2017|sv-2007"] == "cross-edition"
    assert rel["et-1930s|el-2017"] == "topic"


def test_one_row_per_pair_and_valid_values(con):
    dup = con.execute(
        "SELECT count(*) FROM (SELECT a, b FROM alignments GROUP BY a, b HAVING count(*) > 1)"
    ).fetchone()[0]
    assert dup == 0
    bad = con.execute(
        "SELECT count(*) FROM alignments WHERE score < 0 OR score > 1 OR flagged NOT IN (0, 1)"
        " OR method NOT IN ('label', 'content', 'label+content', 'topic')"
    ).fetchone()[0]
    assert bad == 0
    # flagged rows are always label matches, and carry the reason in their evidence
    for r in alignments(con, flagged=True):
        assert r["method"] == "label"
        assert {"contradicted_by", "parent_flagged", "content_disagrees"} & set(r["evidence"])


# Law 16, read in the three books: 1997 A (partner's unauthorised information) is 2007
# and 2017 B; 1997 B (information from other sources) is 2007 C and 2017 D; 1997 C
# (withdrawn calls and plays) is 2007 D and 2017 C.
LAW16 = [
    ("fi-1997/16A", "sv-2007/16B", "el-2017/16B"),
    ("fi-1997/16B", "sv-2007/16C", "el-2017/16D"),
    ("fi-1997/16C", "sv-2007/16D", "el-2017/16C"),
    # 1997 16A1 "Kun pelaaja on sitä mieltä, että vastustaja on välittänyt sellaista tietoa"
    # = sv 16B2 "När en spelare anser att en motståndare lämnat en sådan upplysning"
    ("fi-1997/16A1", "sv-2007/16B2", "el-2017/16B2"),
    # 1997 16A2 (call the director when an opponent may have chosen from UI) = 16B3
    ("fi-1997/16A2", "sv-2007/16B3", "el-2017/16B3"),
    # innocent side: all information from withdrawn actions is authorised
    ("fi-1997/16C1", "sv-2007/16D1", "el-2017/16C1"),
    ("fi-1997/16C2", "sv-2007/16D2", "el-2017/16C2"),
]


@pytest.mark.parametrize(("fi97", "sv07", "el17"), LAW16)
def test_law16_renumbering(con, fi97, sv07, el17):
    assert equivalent(con, fi97, "sv-2007") == sv07
    assert equivalent(con, fi97, "el-2017") == el17
    assert equivalent(con, sv07, "el-2017") == el17
    assert equivalent(con, el17, "fi-1997") == fi97
    fi07 = "fi-2007/" + sv07.split("/")[1]
    assert equivalent(con, fi97, "fi-2007") == fi07


def test_law16_label_matches_are_flagged(con):
    def row(a, b):
        return next(r for r in aligned(con, a) if r["id"] == b)

    for a, b in [("fi-1997/16A", "sv-2007/16A"), ("fi-1997/16B", "el-2017/16B"),
                 ("el-2017/16C", "sv-2007/16C"), ("el-2017/16D", "sv-2007/16D"),
                 ("fi-1997/16A1", "fi-2007/16A1"),
                 ("fi-2007/12C1(e)", "sv-2007/12C1(e)")]:  # fmt: skip
        r = row(a, b)
        assert r["flagged"] and r["method"] == "label", (a, b)
    # 1997 C and 2017 C are the same rule: the label match stands
    same = row("fi-1997/16C", "el-2017/16C")
    assert not same["flagged"] and same["method"] == "label+content"
    moved = row("fi-1997/16A", "el-2017/16B")
    assert moved["method"] == "content" and moved["relation"] == "cross-edition"
    assert moved["evidence"]["agreed"]


# Further content alignments, each checked by reading the provisions.
CONTENT = [
    # count the thirteen cards: fi-1997 7B1 "kolmetoista", sv 7B2 "exakt 13",
    # el 7B2 "ακριβώς δεκατρία" (2007 added 7B1: take the hand from the pocket)
    ("fi-1997/7B1", {"fi-2007": "fi-2007/7B2", "sv-2007": "sv-2007/7B2",
                     "el-2017": "el-2017/7B2"}),
    # keep your own cards during play (no touching others' cards)
    ("fi-1997/7B2", {"fi-2007": "fi-2007/7B3", "sv-2007": "sv-2007/7B3",
                     "el-2017": "el-2017/7B3"}),
    # the missing card cannot be found: reconstruct the deal with another pack
    ("fi-1997/14B2", {"fi-2007": "fi-2007/14B3", "sv-2007": "sv-2007/14B3",
                      "el-2017": "el-2017/14B3"}),
    # B and C of Law 53 swapped in 2017: "correct lead following a lead out of turn"
    # is sv 53C / el 53B; "wrong defender plays card to declarer's lead" sv 53B / el 53C
    ("el-2017/53B", {"sv-2007": "sv-2007/53C", "fi-1997": "fi-1997/53C"}),
    ("el-2017/53C", {"sv-2007": "sv-2007/53B", "fi-1997": "fi-1997/53B"}),
    # pass out of turn at the offender's LHO's turn after the offender has bid: a
    # change of call, Law 25 applies
    ("el-2017/30B2", {"sv-2007": "sv-2007/30B3", "fi-1997": "fi-1997/30B3"}),
    # an inadmissible double or redouble: sv numbers Law 35 as 35.1-35.4
    ("el-2017/35A", {"sv-2007": "sv-2007/35.1"}),
    # artificial adjusted scores of 40 % / 50 % / 60 %: 1997 12C1 became 12C2
    ("fi-1997/12C1", {"fi-2007": "fi-2007/12C2", "sv-2007": "sv-2007/12C2",
                      "el-2017": "el-2017/12C2"}),
    # no call has been made by a player with an incorrect number of cards
    ("el-2017/13A", {"fi-2007": "fi-2007/13D", "sv-2007": "sv-2007/13D"}),
    # same edition, items shifted: fi-2007 12C1(f) "Eri puolille annettujen pistetulosten
    # ei tarvitse olla tasapainossa" = sv-2007 12C1(e) "Båda sidor behöver inte få samma
    # resultat" (Swedish (c) folds in what Finnish (e) puts "in place of (c)")
    ("fi-2007/12C1(f)", {"sv-2007": "sv-2007/12C1(e)"}),
    # switch seats when a player receives information from another source
    ("el-2017/16D2(a)", {"sv-2007": "sv-2007/16C2(a)", "fi-2007": "fi-2007/16C2(a)"}),
]  # fmt: skip


@pytest.mark.parametrize(("node", "expected"), CONTENT)
def test_content_alignments(con, node, expected):
    for doc, other in expected.items():
        assert equivalent(con, node, doc) == other, doc
        row = next(r for r in aligned(con, node) if r["id"] == other)
        assert row["method"] == "content" and 0 < row["score"] <= 1
        assert "signals" in row["evidence"]


def test_aligned_lists_best_first_both_directions(con):
    rows = aligned(con, "sv-2007/16B")
    assert {r["doc"] for r in rows} == {"fi-1997", "el-2017", "fi-2007"}
    unflagged = [r["score"] for r in rows if not r["flagged"]]
    assert unflagged == sorted(unflagged, reverse=True)
    assert [r["flagged"] for r in rows] == sorted(r["flagged"] for r in rows)
    assert aligned(con, "sv-2007/no-such") == []
    assert equivalent(con, "sv-2007/16B", "et-1930s") is None


def test_same_edition_rows_and_definitions(con):
    r = next(x for x in aligned(con, "fi-2007/16A1(b)") if x["id"] == "sv-2007/16A1(b)")
    assert r["relation"] == "same-edition" and not r["flagged"]
    # same-language definitions are matched by slug across editions
    assert equivalent(con, "fi-1997/def/brikka", "fi-2007") == "fi-2007/def/brikka"


def test_numbers_ignore_labels_and_pages():
    assert numbers_in("fi", "niitä kolmetoista (ks. (s. 83) 77 §) ja 12C1") == {13: 1}
    assert numbers_in("sv", "exakt 13, se lag 65B3") == {13: 1}
    assert numbers_in("el", "ακριβώς δεκατρία, βλέπε Ν12Γ1") == {13: 1}
    assert numbers_in("sv", "högst 40% och två") == {40: 1, 2: 1}


@pytest.mark.parametrize(
    ("topic", "laws"),
    [
        ("salgamine", {"61", "62", "63", "64"}),  # revoke: the four revoke laws first
        ("teostatud-salgamine", {"63"}),  # established revoke
        ("kolbmata-pakkumine", {"27"}),  # insufficient bid
        ("kontreerimine-ja-rekontreerimine", {"19"}),  # doubles and redoubles
    ],
)
def test_topic_candidates(con, topic, laws):
    cands = topic_candidates(con, f"et-1930s/topic/{topic}")
    top = {c["label"] for c in cands[: len(laws)]}
    assert top == laws
    assert all(c["doc"] == "el-2017" and c["method"] == "topic" for c in cands)
    assert [c["score"] for c in cands] == sorted((c["score"] for c in cands), reverse=True)
    assert cands[0]["evidence"]["concepts"]


def test_export_has_aligned_edges(ingested, tmp_path):
    out = tmp_path / "g.json"
    r = CliRunner().invoke(main, ["export", "--db", str(ingested[0]), "-o", str(out)])
    assert r.exit_code == 0, r.output
    edges = [e for e in json.loads(out.read_text())["edges"] if e["type"] == "aligned"]
    e = next(x for x in edges if x["source"] == "fi-1997/16A" and x["target"] == "el-2017/16B")
    assert e["method"] == "content" and e["flagged"] == 0 and 0 < e["score"] <= 1
    assert any(x["flagged"] == 1 for x in edges)
    assert any(x["method"] == "topic" for x in edges)


def test_api_aligned_and_alignments(client):
    r = client.get("/api/nodes/fi-1997/16A/aligned")
    assert r.status_code == 200
    best = {x["doc"]: x["id"] for x in reversed(r.json()["results"]) if not x["flagged"]}
    assert best["el-2017"] == "el-2017/16B"
    assert client.get("/api/nodes/fi-1997/999Z/aligned").status_code == 404
    r = client.get("/api/alignments", params={"doc_a": "sv-2007", "doc_b": "el-2017",
                                              "method": "content"})  # fmt: skip
    assert r.status_code == 200
    rows = r.json()["results"]
    assert rows and all(x["method"] == "content" for x in rows)
    assert any(x["a"] == "el-2017/16D" and x["b"] == "sv-2007/16C" for x in rows)
    r = client.get("/api/alignments", params={"doc_a": "fi-1997", "flagged": True, "limit": 5})
    assert r.status_code == 200 and len(r.json()["results"]) == 5
    assert all(x["flagged"] for x in r.json()["results"])
    assert client.get("/api/alignments", params={"doc_a": "xx-1"}).status_code == 400
    assert client.get("/api/alignments", params={"method": "magic"}).status_code in (400, 422)


def test_cli_aligned_and_alignments(ingested):
    db = ingested[0]
    r = run("aligned", "sv-2007/16 C", "--json", db=db)
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["id"] == "sv-2007/16C"
    assert data["results"][0]["id"] in {"el-2017/16D", "fi-2007/16C", "fi-1997/16B"}
    r = run("alignments", "fi-1997", "el-2017", "--method", "content", db=db)
    assert r.exit_code == 0 and "el-2017/16D" in r.output
    r = run("alignments", "fi-1997", "sv-2007", "--flagged", "--json", db=db)
    assert r.exit_code == 0 and all(x["flagged"] for x in json.loads(r.output))
    r = run("alignments", "fi-1997", "zz-9", db=db)
    assert r.exit_code != 0 and "unknown document" in r.output and "Traceback" not in r.output
    r = run("aligned", "nonsense", db=db)
    assert r.exit_code != 0 and "Traceback" not in r.output
