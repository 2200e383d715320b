"""The curated glossary (corpus/glossary.toml), its tagger and its readers."""

import json
import shutil
from collections import defaultdict

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from lawgraph import store
from lawgraph.api.app import create_app
from lawgraph.api.cli import main
from lawgraph.ingest import glossary as g
from lawgraph.ingest.corpus import DEFAULT_CORPUS, CorpusError, load_manifest
from lawgraph.ingest.nlp import words
from lawgraph.ingest.pipeline import ingest_corpus

BOOKS = {"fi": {"fi-1997", "fi-2007"}, "sv": {"sv-2007"}, "el": {"el-2017"}, "et": {"et-1930s"}}
ESTONIAN_CONCEPTS = 62  # measured: concepts with a term the 1930s book really uses


@pytest.fixture(scope="module")
def glossary():
    return g.load_glossary()


@pytest.fixture(scope="module")
def client(ingested):
    return TestClient(create_app(ingested[0]))


def _hits(con, **where):
    cond = " AND ".join(f"{k} = ?" for k in where)
    sql = "SELECT * FROM concept_hits" + (f" WHERE {cond}" if cond else "")
    return [dict(r) for r in con.execute(sql, tuple(where.values()))]


# --------------------------------------------------------------------------- the data


def test_every_term_occurs_in_its_book(con, glossary):
    found = defaultdict(set)
    for row in con.execute("SELECT concept, lang, term, doc FROM concept_hits"):
        assert row["doc"] in BOOKS[row["lang"]]
        found[(row["concept"], row["lang"], row["term"])].add(row["doc"])
    missing = [
        f"{c.key}: {lang} {t!r}"
        for c in glossary
        for lang, terms in c.terms.items()
        for t in terms
        if not found[(c.key, lang, t)]
    ]
    assert missing == [], "terms without a hit in their book: " + "; ".join(missing)


def test_every_listed_inflected_form_occurs(con, glossary):
    surfaces = {
        " ".join(words(r["surface"])) for r in con.execute("SELECT surface FROM concept_hits")
    }
    missing = [
        f"{c.key}: {f!r}" for c in glossary for f in c.forms if " ".join(words(f)) not in surfaces
    ]
    assert missing == []


def test_glossary_counts(con, glossary):
    assert len(glossary) >= 80
    # every concept in all three modern languages, but for a term one book alone defines
    # (sv-2007 "aktivt bud": a bid, double or redouble)
    shared = [c for c in glossary if len(c.terms) > 1]
    assert all({"fi", "sv", "el"} <= set(c.terms) for c in shared)
    assert len(glossary) - len(shared) <= 2
    assert sum("et" in c.terms for c in glossary) >= ESTONIAN_CONCEPTS
    stats = store.stage_stats(con, "glossary")
    assert stats["concepts"] == len(glossary) == len(g.concepts(con))
    assert stats["terms_without_hits"] == 0
    assert stats["terms"] == sum(len(ts) for c in glossary for ts in c.terms.values())
    assert stats["terms_per_lang"]["et"] == sum(len(c.terms.get("et", ())) for c in glossary)


def test_no_two_concepts_share_a_term(glossary):
    seen = {}
    for c in glossary:
        for lang, terms in c.terms.items():
            for t in terms:
                key = (lang, " ".join(words(t)))
                assert key not in seen, f"{t!r} is in {seen.get(key)} and {c.key}"
                seen[key] = c.key


# --------------------------------------------------------------------------- validation

GOOD = 'key = "revoke"\nen = "revoke"\nfi = ["revokki"]\n'


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (GOOD + 'de = ["Revoke"]\n', "revoke.*unknown field or language 'de'"),
        (GOOD + "sv = []\n", "revoke.*'sv' must be a non-empty list"),
        (GOOD + 'sv = [""]\n', "revoke.*empty or non-string term"),
        ('key = "revoke"\nfi = ["revokki"]\n', "revoke.*missing English name 'en'"),
        ('key = "Revoke Card"\nen = "x"\nfi = ["x"]\n', "key must be a lowercase slug"),
        ('key = "revoke"\nen = "revoke"\n', "revoke.*no terms"),
        (GOOD + "laws = [61, 200]\n", "revoke.*law numbers"),
        (GOOD + 'forms = { "revokin" = "revoke" }\n', "revoke.*'forms' must map"),
    ],
)
def test_bad_concept_is_named(tmp_path, body, message):
    path = tmp_path / "glossary.toml"
    path.write_text("[[concept]]\n" + body, "utf-8")
    with pytest.raises(g.GlossaryError, match=message):
        g.load_glossary(path)


def test_bad_file_duplicate_and_syntax(tmp_path):
    path = tmp_path / "glossary.toml"
    path.write_text(f"[[concept]]\n{GOOD}\n[[concept]]\n{GOOD}", "utf-8")
    with pytest.raises(g.GlossaryError, match="concept #2: duplicate key 'revoke'"):
        g.load_glossary(path)
    path.write_text("[[concept]\nkey =", "utf-8")
    with pytest.raises(g.GlossaryError, match="malformed glossary"):
        g.load_glossary(path)
    path.write_text("schema = 1\n", "utf-8")
    with pytest.raises(g.GlossaryError, match=r"no \[\[concept\]\] entries"):
        g.load_glossary(path)
    with pytest.raises(g.GlossaryError, match="glossary not found"):
        g.load_glossary(tmp_path / "none.toml")
    assert issubclass(g.GlossaryError, CorpusError)


def test_ingest_without_glossary_then_with_a_broken_one(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    doc = next(d for d in load_manifest() if d.id == "et-1930s")
    shutil.copy(DEFAULT_CORPUS / doc.source, corpus / doc.source)
    text = (DEFAULT_CORPUS / "manifest.toml").read_text("utf-8")
    head, *entries = text.split("\n[[document]]")
    keep = next(e for e in entries if 'id = "et-1930s"' in e)
    (corpus / "manifest.toml").write_text(head + "\n[[document]]" + keep, "utf-8")
    db = tmp_path / "s.db"
    report = ingest_corpus(db, corpus)
    assert report.stages["glossary"]["concepts"] == 0
    con = store.open_store(db)
    assert g.concepts(con) == [] and g.lookup_term(con, "salgamine") == []
    con.close()
    (corpus / "glossary.toml").write_text('[[concept]]\nkey = "revoke"\nfi = ["x"]\n', "utf-8")
    result = CliRunner().invoke(main, ["ingest", "--db", str(db), "--corpus", str(corpus)])
    assert result.exit_code == 1
    assert "glossary.toml: concept #1 (revoke): missing English name 'en'" in result.output
    assert "Traceback" not in result.output


# --------------------------------------------------------------------------- tagging


@pytest.mark.parametrize(
    ("concept", "nodes"),
    [
        ("revoke", ["fi-1997/62", "fi-2007/62", "sv-2007/62", "el-2017/62",
                    "et-1930s/topic/salgamine"]),
        ("insufficient-bid", ["fi-1997/27", "fi-2007/27", "sv-2007/27", "el-2017/27",
                              "et-1930s/topic/kolbmata-pakkumine"]),
        ("dummy", ["fi-1997/42", "fi-2007/42", "sv-2007/42", "el-2017/42",
                   "et-1930s/topic/laud-ehk-dummy"]),
        ("lead-out-of-turn", ["fi-1997/53", "sv-2007/53", "el-2017/53",
                              "et-1930s/topic/valjakaik-valjaspool-jarjekorda"]),
    ],
)  # fmt: skip
def test_law_titles_are_tagged_in_every_language(con, concept, nodes):
    for node in nodes:
        assert concept in g.node_concepts(con, node), node
        titled = [h for h in _hits(con, node=node, concept=concept) if h["field"] == "title"]
        assert titled, node


def test_revoke_runs_through_laws_61_to_64_in_every_full_book(con):
    for doc in ("fi-1997", "sv-2007", "el-2017"):
        for law in ("61", "62", "63", "64"):
            rows = con.execute(
                "SELECT count(*) FROM concept_hits h JOIN nodes n ON n.id = h.node "
                "WHERE h.concept = 'revoke' AND n.doc = ? AND n.law = ?",
                (doc, law),
            ).fetchone()
            assert rows[0] >= 1, (doc, law)


def test_offsets_point_at_the_surface(con):
    for hit in _hits(con, concept="revoke")[:200]:
        node = store.node(con, hit["node"])
        text = node.title if hit["field"] == "title" else node.text
        assert text[hit["start"] : hit["end"]] == hit["surface"]
    # the 1930s book's inflected "Salgamiseks" opens the revoke topic
    hit = _hits(con, node="et-1930s/topic/salgamine", field="text")[0]
    assert (hit["concept"], hit["surface"], hit["start"]) == ("revoke", "Salgamiseks", 0)


def test_longest_match_wins(con):
    # "LÄHTÖ VÄÄRÄLLÄ VUOROLLA HYVÄKSYTÄÄN": one span, not lead + turn
    titled = [h for h in _hits(con, node="fi-1997/53") if h["field"] == "title"]
    assert [(h["concept"], h["surface"]) for h in titled] == [
        ("lead-out-of-turn", "LÄHTÖ VÄÄRÄLLÄ VUOROLLA")
    ]
    spans = defaultdict(list)
    for h in _hits(con):
        spans[(h["node"], h["field"])].append((h["start"], h["end"]))
    for ranges in spans.values():
        ranges.sort()
        assert all(a[1] <= b[0] for a, b in zip(ranges, ranges[1:], strict=False))


def test_lemmatiser_guesses_do_not_leak(con):
    # simplemma guesses "pelinviejä" (declarer) -> "peli", as for "pelivaihe" (play period)
    period = {h["surface"].lower() for h in _hits(con, concept="play-period", lang="fi")}
    assert period and all(s.startswith("pelivaihe") for s in period)
    # "katsoja" (spectator) and the verb "katsoa" (to look) share a stem
    seen = {h["surface"].lower() for h in _hits(con, concept="spectator", lang="fi")}
    assert seen and all(s.startswith("katsoj") for s in seen)
    # Greek capitals carry no accents: "ΑΝΕΠΑΡΚΗΣ ΑΓΟΡΑ" is still the insufficient bid
    assert {h["surface"] for h in _hits(con, node="el-2017/27", field="title")} == {
        "ΑΝΕΠΑΡΚΗΣ ΑΓΟΡΑ"
    }


# --------------------------------------------------------------------------- readers


@pytest.mark.parametrize(
    ("text", "lang", "via"),
    [
        ("revokki", "fi", "term"),
        ("revokin", "fi", "surface"),
        ("ρενονς", "el", "term"),
        ("ΡΕΝΌΝΣ", "el", "term"),
        ("Revoke", "sv", "term"),
        ("salgamine", "et", "term"),
        ("salgamise", "et", "surface"),
        ("revokeista", "fi", "stem"),
    ],
)
def test_lookup_term_finds_revoke(con, text, lang, via):
    found = g.lookup_term(con, text)
    assert found[0]["id"] == "revoke"
    assert {"lang": lang, "term": found[0]["terms"][lang][0], "via": via} in found[0]["matched"]
    assert found[0]["terms"]["et"] == ["salgamine"] and found[0]["laws"] == [61, 62, 63, 64]


def test_lookup_term_other_routes(con):
    assert g.lookup_term(con, "penalty card")[0]["id"] == "penalty-card"
    assert g.lookup_term(con, "kilpailunjohtajan")[0]["id"] == "director"
    assert g.lookup_term(con, "otillräckligt bud")[0]["id"] == "insufficient-bid"
    assert g.lookup_term(con, "revokki", lang="sv") == []
    assert g.lookup_term(con, "revokki", lang="fi")[0]["id"] == "revoke"
    assert g.lookup_term(con, "  ") == [] and g.lookup_term(con, "xyzzy") == []
    with pytest.raises(ValueError, match="unknown language 'de'"):
        g.lookup_term(con, "revoke", lang="de")


@pytest.mark.parametrize(
    ("text", "whole"), [("tikki", "trick"), ("λεβέ", "trick"), ("kort", "card")]
)
def test_lookup_term_lists_the_longer_terms_a_word_is_part_of_after_its_own(con, text, whole):
    """A reader filtering the glossary by "tikki" also wants "virheellinen tikki"
    (defective trick): with ``parts``, after the whole match, the longer terms the word is
    part of. Without it (what a search translates a word into), none of them."""
    found = g.lookup_term(con, text, parts=True)
    assert found[0]["id"] == whole and all(m["via"] != "part" for m in found[0]["matched"])
    parts = found[1:]
    assert parts and all(any(m["via"] == "part" for m in c["matched"]) for c in parts)
    for c in parts:
        for m in (m for m in c["matched"] if m["via"] == "part"):
            assert len(words(m["term"])) > len(words(text)), m
    assert "defective-trick" in [c["id"] for c in g.lookup_term(con, "tikki", parts=True)]
    plain = g.lookup_term(con, text)
    assert [c["id"] for c in plain] == [c["id"] for c in found if c not in parts]
    assert not any(m["via"] == "part" for c in plain for m in c["matched"])


@pytest.mark.parametrize("text", ["of", "the", "του", "_", "t_kki", "%"])
def test_only_a_term_itself_brings_the_longer_terms_it_is_part_of(con, text):
    """A function word, or a wildcard of SQL, is no term: it brings no longer terms."""
    assert not any(
        m["via"] == "part" for c in g.lookup_term(con, text, parts=True) for m in c["matched"]
    )


def test_concept_detail_and_node_concepts(con):
    detail = g.concept_detail(con, "revoke")
    assert set(detail["occurrences"]) == {"fi-1997", "el-2017", "et-1930s", "fi-2007", "sv-2007"}
    assert "sv-2007/62" in detail["occurrences"]["sv-2007"]
    assert "et-1930s/topic/salgamine" in detail["term_nodes"]["et"]["salgamine"]["et-1930s"]
    assert detail["hits"]["el"]["ρενόνς"] == len(_hits(con, concept="revoke", lang="el"))
    assert g.concept_detail(con, "no-such-concept") is None
    assert g.node_concepts(con, "sv-2007/62") == {
        "revoke",
        "rectification",
    }  # KORRIGERING AV REVOKE
    assert g.node_concepts(con, "sv-2007/no-such-node") == set()


def test_serve_time_lookup_does_not_need_simplemma(con):
    import sys

    from lawgraph.ingest import glossary

    assert "simplemma" not in glossary.lookup_term.__code__.co_names
    before = {m for m in sys.modules if m.startswith("simplemma")}
    g.lookup_term(con, "revokeista")
    assert {m for m in sys.modules if m.startswith("simplemma")} == before


# --------------------------------------------------------------------------- API and CLI


def test_api_glossary(client):
    r = client.get("/api/glossary")
    assert r.status_code == 200 and len(r.json()["concepts"]) >= 80
    r = client.get("/api/glossary", params={"term": "ρενονς"})
    assert r.json()["concepts"][0]["id"] == "revoke"
    r = client.get("/api/glossary", params={"lang": "et"})
    assert all("et" in c["terms"] for c in r.json()["concepts"])
    r = client.get("/api/glossary/revoke")
    assert r.status_code == 200 and "sv-2007/62" in r.json()["occurrences"]["sv-2007"]


def test_api_glossary_errors(client):
    r = client.get("/api/glossary", params={"lang": "de"})
    assert r.status_code == 400 and "unknown lang 'de'" in r.json()["error"]["message"]
    r = client.get("/api/glossary/no-such-concept")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    r = client.get("/api/glossary", params={"term": "xyzzy"})
    assert r.status_code == 200 and r.json()["concepts"] == []


def test_cli_glossary(ingested):
    db = str(ingested[0])
    r = CliRunner().invoke(main, ["glossary", "--db", db])
    assert r.exit_code == 0 and "revoke: revoke" in r.output and "  et  salgamine (" in r.output
    r = CliRunner().invoke(main, ["glossary", "revokki", "--db", db, "--json"])
    data = json.loads(r.output)
    assert data[0]["id"] == "revoke" and "sv-2007/62" in data[0]["occurrences"]["sv-2007"]
    r = CliRunner().invoke(main, ["glossary", "salgamine", "--db", db])
    assert r.exit_code == 0 and "matched: et salgamine (term)" in r.output
    assert "et salgamine in et-1930s: topic/laud-ehk-dummy" in r.output
    r = CliRunner().invoke(main, ["glossary", "xyzzy", "--db", db])
    assert r.exit_code == 1 and "no glossary concept matches 'xyzzy'" in r.output
    r = CliRunner().invoke(main, ["glossary", "revokki", "--lang", "sv", "--db", db])
    assert r.exit_code == 1 and "among the sv terms" in r.output
    r = CliRunner().invoke(main, ["glossary", "--lang", "xx", "--db", db])
    assert r.exit_code == 2 and "Traceback" not in r.output
