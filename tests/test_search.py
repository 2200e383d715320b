"""Search: analysis, the index stage, the query side, the API route and the CLI command."""

import json
import re

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from lawgraph.api.app import create_app
from lawgraph.api.cli import main
from lawgraph.ingest import nlp, store
from lawgraph.ingest.search.analyze import Analyzer, query_words
from lawgraph.ingest.search.compound import split_compound
from lawgraph.ingest.search.expand import counterparts
from lawgraph.ingest.search.query import LABEL_SCORE, MAX_QUERY_CHARS, SearchError, search
from lawgraph.ingest.search.snippet import Highlight, snippet
from lawgraph.ingest.search.tables import search_tables


@pytest.fixture(scope="module")
def client(ingested):
    return TestClient(create_app(ingested[0]))


# --- sentence splitting in the shared language pipeline -------------------------------


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        ("el", "Ποιος παίζει; Ο παίκτης στα αριστερά.",
         ["Ποιος παίζει;", "Ο παίκτης στα αριστερά."]),
        ("el", "Ισχύει η παρ. Γ του Νόμου. Τέλος.",
         ["Ισχύει η παρ. Γ του Νόμου.", "Τέλος."]),
        ("el", "Βλέπε Παρ. 2 παραπάνω; Ναι.", ["Βλέπε Παρ. 2 παραπάνω;", "Ναι."]),
        ("et", "Pakkumine, nt. Kaks trumbita, on lubatud. Teine lause.",
         ["Pakkumine, nt. Kaks trumbita, on lubatud.", "Teine lause."]),
        ("et", "Nt. salgamine on viga. Karistus järgneb.",
         ["Nt. salgamine on viga.", "Karistus järgneb."]),
    ],
)  # fmt: skip
def test_sentence_splitting(lang, text, expected):
    assert nlp.sentences(lang, text) == expected


# --- analysis ------------------------------------------------------------------------


def test_greek_accents_fold_on_both_sides():
    assert query_words("ΡΕΝΌΝΣ ρενόνς ρενονς") == ["ρενονσ"] * 3
    an = Analyzer("el")
    forms = an.analyse("Η ρενόνς οριστικοποιείται.")
    assert [f.surface for f in forms] == ["η", "ρενονσ", "οριστικοποιειται"]


def test_analyzer_lemmatises_and_keeps_nordic_letters():
    forms = Analyzer("sv").analyse("Straffkorten ligger kvar.")
    assert forms[0].surface == "straffkorten"
    assert forms[0].lemma == "straffkort"
    assert Analyzer("fi").analyse("Pöytä")[0].surface == "pöytä"  # ö is not folded


def test_split_compound():
    vocab = {"rangaistus": "rangaistus", "kortti": "kortti", "straff": "straff",
             "kort": "kort", "tävling": "tävling", "ledare": "ledare"}  # fmt: skip
    assert split_compound("rangaistuskortti", "fi", vocab.get) == ("rangaistus", "kortti")
    assert split_compound("straffkort", "sv", vocab.get) == ("straff", "kort")
    assert split_compound("tävlingsledare", "sv", vocab.get) == ("tävling", "ledare")
    assert split_compound("kortti", "fi", vocab.get) is None
    assert split_compound("rangaistuskortti", "el", vocab.get) is None


def test_snippet_escapes_and_marks():
    hl = Highlight({"straffkort"})
    out = snippet("Ett <b>straffkort</b> & mer", hl)
    assert out == "Ett &lt;b&gt;<mark>straffkort</mark>&lt;/b&gt; &amp; mer"
    long = " ".join(["ord"] * 60 + ["straffkort"] + ["ord"] * 60)
    cut = snippet(long, hl)
    assert cut.startswith("… ") and cut.endswith(" …") and "<mark>straffkort</mark>" in cut
    # the characters that stand for a match while a snippet is escaped, in the text itself
    odd = snippet(
        "a \x01 <b> straffkortet \x02 straffkort", Highlight({"straffkort"}, ("straffk",))
    )
    assert odd == "a \x01 &lt;b&gt; <mark>straffkortet</mark> \x02 <mark>straffkort</mark>"
    assert snippet("x\ty  straffkort\n", hl) == "x y <mark>straffkort</mark>"


def test_search_tables_hold_the_store_tables(con):
    """What a search reads in memory is what the store's tables say."""
    t = search_tables(con)
    assert t is search_tables(con)  # read once per connection to the store
    rows = con.execute("SELECT lang, surface, lemma, stem FROM lemma_forms").fetchall()
    assert len(t.forms) == len(rows) and all(t.forms[(r[0], r[1])] == (r[2], r[3]) for r in rows)
    assert t.stem_lemmas[("sv", "straffkort")] == [
        r[0]
        for r in con.execute(
            "SELECT lemma FROM lemma_forms WHERE lang = 'sv' AND stem = "
            "'straffkort' ORDER BY surface"
        )  # fmt: skip
    ]
    assert set(t.compounds[("fi", "kortti")]) >= {"rangaistuskortti"}
    assert t.by_label["16B1"] == [f"{d}/16B1" for d in ("fi-1997", "el-2017", "fi-2007", "sv-2007")]
    chapter = con.execute("SELECT parent FROM nodes WHERE kind = 'law' AND parent LIKE "
                          "'%/chapter/%' LIMIT 1").fetchone()[0]  # fmt: skip
    assert t.laws_under[chapter] == [
        r[0]
        for r in con.execute(
            "SELECT id FROM nodes WHERE parent = ? AND kind = 'law' ORDER BY ord", (chapter,)
        )  # fmt: skip
    ]
    entry = con.execute("SELECT id, attrs FROM nodes WHERE kind = 'index_term' LIMIT 1").fetchone()
    assert list(t.nodes[entry[0]].targets) == json.loads(entry[1])["targets"]
    assert t.fts_nodes == dict(con.execute("SELECT rowid, node FROM search_fts").fetchall())
    assert sorted(t.fts_nodes.values()) == sorted(t.nodes)


def test_unfiltered_matches_take_their_nodes_from_memory(con):
    """Matches without a filter read rowids and take the nodes from memory: the same rows
    in the same order (ties included) as reading the node column."""
    from lawgraph.ingest.search import query

    weights = ", ".join(map(str, query.WEIGHTS))
    exprs = []
    real = query._match

    def keep(c, expr, req, limit):
        exprs.append((expr, req, limit))
        return real(c, expr, req, limit)

    query._match = keep
    try:
        for q in ("kort", "του", "straffkort spelare", "revokki", "bud pass kort", "och"):
            for limit in (5, 20, 100):
                search(con, q, limit=limit)
    finally:
        query._match = real
    assert len(exprs) > 20
    sql = (f"SELECT node, -bm25(search_fts, {weights}) AS score FROM search_fts "
           "WHERE search_fts MATCH ? ORDER BY score DESC LIMIT ?")  # fmt: skip
    for expr, req, limit in exprs:
        direct = [tuple(r) for r in con.execute(sql, (expr, limit))]
        assert query._match(con, expr, req, limit) == direct, expr


# --- the index stage -----------------------------------------------------------------


def test_stage_statistics(con):
    stats = store.stage_stats(con, "search")
    total = con.execute("SELECT count(*) FROM nodes").fetchone()[0]
    assert stats["nodes"] == total
    assert set(stats["forms"]) == {"fi", "sv", "el", "et"}
    assert stats["compounds"]["el"] == 0 and stats["compounds"]["sv"] > 0


def test_lemma_forms_and_compounds(con):
    row = con.execute(
        "SELECT lemma FROM lemma_forms WHERE lang = 'sv' AND surface = 'straffkortet'"
    ).fetchone()
    assert row[0] == "straffkort"
    sql = "SELECT part FROM compound_parts WHERE lang = 'fi' AND word = 'rangaistuskortti'"
    parts = {r[0] for r in con.execute(sql)}
    assert parts == {"rangaistus", "kortti"}


# --- the query side ------------------------------------------------------------------


def _laws(result, lang=None):
    return [h["law"] for h in result["hits"] if lang is None or h["lang"] == lang]


def test_inflected_finnish_finds_penalty_card_law(con):
    res = search(con, "rangaistuskorteista", limit=5)
    assert "50" in _laws(res)
    assert all(h["lang"] == "fi" for h in res["hits"])
    assert any("<mark>" in h["snippet"] for h in res["hits"])


def test_greek_with_and_without_accents_agree(con):
    ids = [[h["id"] for h in search(con, q, limit=10)["hits"]]
           for q in ("ρενόνς", "ρενονς", "ΡΕΝΟΝΣ", "Ρενόνς")]  # fmt: skip
    assert ids[0] and all(x == ids[0] for x in ids)
    assert all(i.startswith("el-2017/") for i in ids[0])


def test_swedish_definite_form(con):
    res = search(con, "straffkortet", doc="sv-2007", kind="law", limit=5)
    assert set(_laws(res)) == {"50"}


def test_compound_part_finds_compound(con):
    res = search(con, "kort", doc="sv-2007", limit=100)
    marked = [h for h in res["hits"] if re.search(r"<mark>straffkort", h["snippet"], re.I)]
    assert marked


def test_unseen_word_falls_back_to_stem(con):
    word = "rangaistuskorteista"
    # not in the corpus: only the stem can find it
    assert con.execute("SELECT 1 FROM lemma_forms WHERE surface = ?", (word,)).fetchone() is None
    assert search(con, word, limit=3)["hits"]


def _label_ids(con, label: str) -> list[str]:
    """The provisions with ``label``, in manifest order, read from the store itself."""
    return [r[0] for r in con.execute(
        "SELECT n.id FROM nodes n JOIN documents d ON d.id = n.doc "
        "WHERE n.label = ? ORDER BY d.ord", (label,))]  # fmt: skip


@pytest.mark.parametrize(
    "q", ["16 B 1", "16 § B1", "lag 16B1", "Νόμος 16Β1", "16b1", "16.B.1", "Law 16-B-1", "１６Ｂ１"]
)
def test_label_lookup_every_document(con, q):
    res = search(con, q)
    want = _label_ids(con, "16B1")
    assert len(want) >= 3
    assert res["label"] == "16B1" and res["mode"] == "label"
    assert [h["id"] for h in res["hits"][: len(want)]] == want
    assert all(h["score"] == LABEL_SCORE for h in res["hits"][: len(want)])
    assert all(h["score"] < LABEL_SCORE for h in res["hits"][len(want) :])


@pytest.mark.parametrize(
    ("q", "label", "words"),
    [
        ("16B1 otillåten upplysning", "16B1", "otillåten upplysning"),
        ("lag 16B1 otillåten", "16B1", "otillåten"),
        ("korvaava tulos 12C1", "12C1", "korvaava tulos"),
        ("Νόμος 20ΣΤ5 ερώτηση", "20F5", "ερώτηση"),
        ("lag 13 kort", "13", "kort"),
        ("16 B 1 upplysning", "16B1", "upplysning"),
        ("lag 16 B 1 otillåten upplysning", "16B1", "otillåten upplysning"),
        ("12 C 1 korvaava", "12C1", "korvaava"),
        ("12C1 i praktiken", "12C1", "i praktiken"),
        ("77 § korvaus", "77", "korvaus"),
        ("16.B.1 upplysning", "16B1", "upplysning"),
        ("upplysning 16-B-1", "16B1", "upplysning"),
    ],
)
def test_a_label_among_words_comes_first(con, q, label, words):
    """A director types the provision and a few of its words: that provision in every
    book first, then what the words find, as they find it alone."""
    res = search(con, q, limit=30)
    want = _label_ids(con, label)
    assert want and res["label"] == label and res["mode"] != "label"
    assert [h["id"] for h in res["hits"][: len(want)]] == want
    alone = search(con, words, limit=30)
    assert res["mode"] == alone["mode"]
    after = [h["id"] for h in res["hits"][len(want) :]]
    assert after == [h["id"] for h in alone["hits"] if h["id"] not in want][: len(after)]


def test_a_label_whose_provisions_fill_the_list_is_a_label_search(con):
    res = search(con, "16B1 otillåten", limit=3)
    assert res["label"] == "16B1" and res["mode"] == "label" and len(res["hits"]) == 3


@pytest.mark.parametrize(
    "q",
    ["13 korttia", "otillåten 16", "2017 sääntö", "2 i rad", "81 i praktiken", "12 ή περισσότερα"],
)
def test_a_bare_number_among_words_is_no_label(con, q):
    res = search(con, q)
    assert res["label"] is None and all(h["score"] < LABEL_SCORE for h in res["hits"])


@pytest.mark.parametrize("q", ["16B1", "20F5", "12C1"])
def test_a_provision_whose_text_is_in_its_items_shows_the_first_item(con, q):
    """sv-2007 16B1 has no words of its own (they are in 16B1(a) and (b)): its hit shows the
    opening of 16B1(a), labelled, instead of nothing."""
    hits = [h for h in search(con, q)["hits"] if h["score"] == LABEL_SCORE]
    assert hits and all(h["snippet"] for h in hits)
    empty = [
        h for h in hits
        if not con.execute("SELECT title || text FROM nodes WHERE id = ?", (h["id"],)).fetchone()[0]
    ]  # fmt: skip
    assert empty  # the case this is about
    for h in empty:
        first = con.execute(
            "SELECT label FROM nodes WHERE id LIKE ? AND text != '' AND doc = ? ORDER BY ord",
            (h["id"] + "%", h["doc"]),
        ).fetchone()[0]
        assert h["snippet"].startswith(f"{first}: ")


def test_greek_label_lookup(con):
    res = search(con, "20ΣΤ5")
    assert res["label"] == "20F5"
    assert "el-2017/20F5" in [h["id"] for h in res["hits"] if h["score"] == LABEL_SCORE]
    assert search(con, "sv-2007/16B1")["hits"][0]["id"] == "sv-2007/16B1"


def test_filters(con):
    assert {h["doc"] for h in search(con, "kortti", doc="fi-2007")["hits"]} == {"fi-2007"}
    assert {h["lang"] for h in search(con, "16", lang="sv")["hits"]} == {"sv"}
    kinds = {h["kind"] for h in search(con, "straffkort", kind="index", limit=50)["hits"]}
    assert kinds == {"index_term"}
    defs = search(con, "straffkort", kind="definition")["hits"]
    assert defs and {h["kind"] for h in defs} == {"definition"}
    topics = search(con, "salgamine", kind="topic")["hits"]
    assert topics and {h["kind"] for h in topics} == {"topic"}


def test_multiword_and_then_or(con):
    res = search(con, "träkarlens rättigheter", limit=5)
    assert res["mode"] == "all" and res["hits"][0]["law"] == "42"
    res = search(con, "straffkort xyzzyqwv", limit=5)
    assert res["mode"] == "any" and res["hits"]


@pytest.mark.parametrize(
    "q",
    ['"', '"straffkort', "(((", ")", "straffkort)", "AND", "OR NOT", "NEAR(kort lag)",
     "title:kort", "{title body}: kort", "kort*", "^kort", "-kort", "kort + lag", "'; DROP",
     "straff\x00kort", "\x00", "💥 kort", "a" * 999, "kortti " * 150],
)  # fmt: skip
def test_any_string_is_safe(con, q):
    try:
        res = search(con, q)
    except SearchError as exc:
        assert str(exc)
    else:
        assert isinstance(res["hits"], list)


@pytest.mark.parametrize(
    ("q", "kw", "msg"),
    [
        ("", {}, "empty query"),
        ("   \t", {}, "empty query"),
        ("\x00\x00", {}, "empty query"),
        ("x" * (MAX_QUERY_CHARS * 10), {}, "too long"),
        ("?!()", {}, "no word"),
        ("kort", {"doc": "xx-1999"}, "unknown document"),
        ("kort", {"lang": "de"}, "unknown language"),
        ("kort", {"kind": "chapter-ish"}, "unknown kind"),
        ("kort", {"limit": 0}, "limit"),
        ("kort", {"limit": 1000}, "limit"),
    ],
)
def test_bad_input_raises_clear_error(con, q, kw, msg):
    with pytest.raises(SearchError, match=msg):
        search(con, q, **kw)


def test_expand_adds_aligned_provisions(con):
    res = search(con, "revokki", limit=3, expand=True)
    primary = [h for h in res["hits"] if "via" not in h]
    extra = [h for h in res["hits"] if "via" in h]
    assert len(primary) == 3 and extra
    by_id = {h["id"]: h for h in res["hits"]}
    for h in extra:
        src = by_id[h["via"]]
        assert h["doc"] != src["doc"]
        assert h["id"] in [c for c, *_ in counterparts(con, src["id"])]
    assert {"el", "sv"} <= {h["lang"] for h in extra}


@pytest.mark.parametrize(("kw", "ok"), [
    ({"doc": "et-1930s"}, lambda h: h["doc"] == "et-1930s"),
    ({"doc": "sv-2007"}, lambda h: h["doc"] == "sv-2007"),
    ({"lang": "el"}, lambda h: h["lang"] == "el"),
])  # fmt: skip
def test_filters_apply_to_expanded_results(con, kw, ok):
    hits = search(con, "revokki", expand=True, limit=10, **kw)["hits"]
    assert hits and all(ok(h) for h in hits), [h["id"] for h in hits if not ok(h)]


def test_index_entries_rank_below_the_provisions_they_point_to(con):
    hits = search(con, "revoke", doc="sv-2007", limit=20)["hits"]
    kinds = [h["kind"] for h in hits]
    assert kinds[0] == "law" and hits[0]["law"] in {"61", "62", "63", "64"}
    # Every index entry comes after every provision, and the provisions say which
    # entries point to them.
    first_index = kinds.index("index_term") if "index_term" in kinds else len(kinds)
    assert "index_term" not in kinds[:first_index] and set(kinds[first_index:]) <= {"index_term"}
    see = {e["id"] for h in hits for e in h.get("see_also", [])}
    assert "sv-2007/index/265" in see  # "Revoke": Laws 61-64
    assert any(e["title"] == "Revoke" for e in hits[0]["see_also"])
    # A chapter heading of the 1997 book brings its laws and goes below them.
    fi = search(con, "revokki", doc="fi-1997", limit=100)["hits"]
    chapter = next(i for i, h in enumerate(fi) if h["kind"] == "chapter")
    assert all(h["kind"] != "chapter" for h in fi[:chapter])
    assert any(e["id"].startswith("fi-1997/chapter/") for h in fi for e in h.get("see_also", []))
    # Asking for index entries gives them as before.
    only = search(con, "revoke", doc="sv-2007", kind="index", limit=5)["hits"]
    assert only and all(h["kind"] == "index_term" for h in only)


def test_expand_translates_through_glossary(con):
    """``revokki`` is Finnish only; expanded through the glossary it finds ρενόνς and revoke."""
    assert store.has_table(con, "concept_terms")
    assert search(con, "revokki", doc="el-2017")["mode"] == "none"
    for doc, word in (("el-2017", "ρενόνς"), ("sv-2007", "revoke"), ("et-1930s", "salgamine")):
        hits = search(con, "revokki", doc=doc, expand=True, limit=5)["hits"]
        direct = [h for h in hits if h["doc"] == doc and "via" not in h]
        assert direct, doc
        assert any(f"<mark>{nlp.fold(word)[:5]}" in nlp.fold(h["snippet"]) for h in direct), doc


def test_missing_index_gives_empty_result(tmp_path):
    import sqlite3

    path = tmp_path / "bare.db"
    c = sqlite3.connect(path)
    c.executescript(store.SCHEMA)
    c.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(store.SCHEMA_VERSION),))
    c.commit()
    c.close()
    ro = store.open_store(path)
    assert search(ro, "kortti")["hits"] == []


# --- API and CLI ---------------------------------------------------------------------


def test_api_search(client):
    r = client.get("/api/search", params={"q": "straffkortet", "limit": 3})
    assert r.status_code == 200
    body = r.json()
    assert set(body) >= {"query", "hits", "took_ms"}
    assert set(body["hits"][0]) >= {"id", "doc", "label", "law", "title", "snippet", "score"}
    r = client.get("/api/search", params={"q": "16 B 1", "doc": "sv-2007"})
    assert r.json()["hits"][0]["id"] == "sv-2007/16B1"


def test_api_search_answers_are_the_json_of_the_standard_encoder(client):
    """Search answers are encoded by orjson: byte for byte what the json module writes."""
    from lawgraph.ingest.search.evaluate import load_relevance

    for item in load_relevance():
        for params in ({"q": item["q"]}, {"q": item["q"], "expand": "true", "limit": 100}):
            r = client.get("/api/search", params=params)
            assert r.status_code == 200
            standard = json.dumps(r.json(), ensure_ascii=False, allow_nan=False,
                                  separators=(",", ":")).encode()  # fmt: skip
            assert r.content == standard, item["q"]


SHORTCUT_CASES = [
    "q=straffkortet", "q=revokki&limit=3", "q=16B1", "q=sv-2007%2F16B1", "q=kort&doc=sv-2007",
    "q=kort&lang=sv&kind=law&limit=100", "q=kortti&kind=index", "q=kort&doc=", "q=x&q=kort",
    "q=kort&limit=%2B5", "q=kort&limit=%205", "q=kort&limit=1_0", "q=kort&expand=0",
    "q=kort&expand=off", "q=kort&extra=1", "q=tavlingsledaren",
    "q=tavlingsledaren&doc=fi-1997",  # answered by the shortcut
    "q=kort&limit=0", "q=kort&limit=x", "q=kort&limit=101", "q=kort&expand=%3F", "q=",
    "limit=3", "q=kort&doc=zz-0000", "q=kort&kind=nope", "q=%22%22", "q=kort&expand=yes",
    "q=revokki&expand=true&doc=el-2017",  # left to the route
]  # fmt: skip


def test_search_shortcut_answers_as_the_route(ingested):
    """A plain search is answered before the framework's routing, with the very answer the
    route gives (status, headers, bytes); anything else goes on to the route."""
    from lawgraph.api.routes.search import SearchShortcut

    reached = []

    class Seen:  # inside the shortcut: what reaches the framework
        def __init__(self, app):
            self.app = app

        async def __call__(self, scope, receive, send):
            reached.append(scope.get("query_string", b"").decode())
            await self.app(scope, receive, send)

    fast = create_app(ingested[0], cache_mb=0)
    fast.add_middleware(Seen)
    fast.user_middleware.append(fast.user_middleware.pop(0))  # innermost
    plain = create_app(ingested[0], cache_mb=0)
    plain.user_middleware = [m for m in plain.user_middleware if m.cls is not SearchShortcut]

    def answer(client, qs):
        r = client.get("/api/search?" + qs, headers={"accept-encoding": "identity"})
        assert int(r.headers["content-length"]) == len(r.content)
        headers = {
            k: v for k, v in r.headers.items() if k not in ("x-request-id", "content-length")
        }
        return r.status_code, headers, re.sub(rb'"took_ms":[0-9.]+', b"", r.content)

    with TestClient(fast) as a, TestClient(plain) as b:
        for qs in SHORTCUT_CASES:
            assert answer(a, qs) == answer(b, qs), qs
    shortcut = {qs for qs in SHORTCUT_CASES if qs not in reached}
    assert shortcut == set(SHORTCUT_CASES[:17])


@pytest.mark.parametrize(
    "params",
    [{}, {"q": ""}, {"q": "kort", "limit": 0}, {"q": "kort", "limit": "x"},
     {"q": "kort", "lang": "zz"}, {"q": "x" * 10_000}, {"q": "((("}, {"q": "kort", "expand": "?"}],
)  # fmt: skip
def test_api_bad_input_is_400(client, params):
    r = client.get("/api/search", params=params)
    assert r.status_code == 400
    assert r.json()["error"]["message"]


def test_api_odd_input_is_answered(client):
    for q in ['"straffkort', "straff\x00kort", "NEAR(kort", "kort*"]:
        r = client.get("/api/search", params={"q": q})
        assert r.status_code == 200, (q, r.text)


def test_cli_search(ingested):
    runner = CliRunner()
    r = runner.invoke(main, ["search", "--db", str(ingested[0]), "straffkortet", "--json",
                             "--limit", "2"])  # fmt: skip
    assert r.exit_code == 0, r.output
    assert len(json.loads(r.output)["hits"]) == 2
    r = runner.invoke(main, ["search", "--db", str(ingested[0]), "20ΣΤ5", "--expand"])
    assert r.exit_code == 0 and "el-2017/20F5" in r.output
    r = runner.invoke(main, ["search", "--db", str(ingested[0]), "  "])
    assert r.exit_code == 1 and "empty query" in r.output


@pytest.mark.parametrize(
    ("q", "said"), [("%%%", "in “%%%”"), ("\u200b", "in the query"), ("‐ ‐", "in “‐ ‐”")]
)
def test_a_query_without_words_is_quoted_as_typed(con, q, said):
    with pytest.raises(SearchError) as err:
        search(con, q)
    assert said in str(err.value) and "\\u" not in str(err.value)


def test_full_width_letters_search_as_the_books_write_them(con):
    """A query typed in full-width letters (some input methods give them) finds what the
    plain one finds."""
    got, plain = search(con, "ＲＥＶＯＫＥ", limit=10), search(con, "revoke", limit=10)
    assert plain["hits"] and [h["id"] for h in got["hits"]] == [h["id"] for h in plain["hits"]]
