"""Search relevance: the hand-written query set, success@5 and MRR against Ctrl-F."""

from collections import Counter

from lawgraph.ingest import nlp
from lawgraph.ingest.search.evaluate import engine, evaluate, load_relevance, substring_baseline

ITEMS = load_relevance()
LANG_DOCS = {"fi": ("fi-1997", "fi-2007"), "sv": ("sv-2007",), "el": ("el-2017",),
             "et": ("et-1930s",)}  # fmt: skip


def test_relevance_set_shape():
    langs = Counter(i["lang"] for i in ITEMS)
    assert len(ITEMS) >= 30
    assert all(langs[x] >= 6 for x in LANG_DOCS)
    assert sum(i["form"] == "inflected" for i in ITEMS) * 2 >= len(ITEMS)
    greek = {i["form"] for i in ITEMS if i["lang"] == "el"}
    assert {"unaccented", "accented", "capitals", "inflected"} <= greek


def test_expected_results_exist(con):
    for item in ITEMS:
        for e in item["expect"]:
            if item["lang"] == "et":
                assert con.execute(
                    "SELECT 1 FROM nodes WHERE id = ?", (f"et-1930s/{e}",)
                ).fetchone()
            else:
                docs = LANG_DOCS[item["lang"]]
                row = con.execute(
                    f"SELECT 1 FROM nodes WHERE kind = 'law' AND label = ? "
                    f"AND doc IN ({','.join('?' * len(docs))})",
                    (e, *docs),
                ).fetchone()
                assert row, (item["q"], e)


def test_inflected_queries_do_not_occur_verbatim(con):
    """An "inflected" query is in none of its expected provisions' titles or texts."""
    for item in (i for i in ITEMS if i["form"] == "inflected"):
        needle = nlp.fold(item["q"])
        for e in item["expect"]:
            if item["lang"] == "et":
                rows = con.execute("SELECT title, text FROM nodes WHERE id = ?",
                                   (f"et-1930s/{e}",))  # fmt: skip
            else:
                docs = LANG_DOCS[item["lang"]]
                rows = con.execute(
                    f"SELECT title, text FROM nodes WHERE law = ? "
                    f"AND doc IN ({','.join('?' * len(docs))})",
                    (e, *docs),
                )
            for title, text in rows:
                assert needle not in nlp.fold(f"{title}\n{text}"), (item["q"], e)


def test_success_at_5_and_mrr(con):
    ours = evaluate(con, ITEMS, engine(con))
    base = evaluate(con, ITEMS, substring_baseline(con))
    print(f"\nsearch: success@5 {ours['success_at_k']:.3f}, MRR {ours['mrr']:.3f}; "
          f"substring: success@5 {base['success_at_k']:.3f}, MRR {base['mrr']:.3f}")  # fmt: skip
    missed = [p["q"] for p in ours["per_query"] if not p["ok"]]
    assert ours["success_at_k"] >= 0.9, missed
    assert ours["mrr"] > base["mrr"]
    # Ctrl-F cannot find a form that is not in the text: every inflected query fails it.
    inflected = {i["q"] for i in ITEMS if i["form"] == "inflected"}
    assert not any(p["ok"] for p in base["per_query"] if p["q"] in inflected)


def test_provision_text_ranks_above_the_index_entries_pointing_to_it(con):
    """Counting only provision text, the index-heavy queries still find their laws first."""
    text = evaluate(con, ITEMS, engine(con), text_only=True)
    ranks = {p["q"]: p["rank"] for p in text["per_query"]}
    assert ranks["revoke"] == 1 and ranks["tävlingsledaren"] == 1
    assert text["success_at_k"] >= 0.95
