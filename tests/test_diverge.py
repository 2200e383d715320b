"""Divergence checks and the divergence stage, pinned to differences read in the books."""

import json
import shutil
import sqlite3

import pytest

from lawgraph import store
from lawgraph.ingest.align import checks, diverge, equivalent
from lawgraph.ingest.align.calibration import SHOW
from lawgraph.ingest.align.checks import (
    Side,
    check_cited_targets,
    check_concepts,
    check_contrast,
    check_modal,
    check_national,
    check_numbers,
    check_sentences,
    check_structure,
    label_ancestry,
    numbers,
    term_present,
)
from lawgraph.ingest.align.query import aligned
from lawgraph.store import divergences as served


@pytest.fixture(scope="module")
def corpus(con):
    c = diverge._load(con)
    diverge._pairs(con, c)
    return c


def sides(corpus, a, b):
    scope = diverge._scope(corpus, a, b)
    return diverge._side(corpus, a, b, scope), diverge._side(corpus, b, a, scope)


def found(con, a, b, type_):
    return [d for d in diverge.node_divergences(con, a) if d["b"] == b and d["type"] == type_]


# ------------------------------------------------------------------ pure helpers


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        ("fi", "enintään 40 % ja kolme passia (ks. 12C1)", {"40%", "3"}),
        ("sv", "högst 40% av topscoren, 13 kort och tre pass (se lag 12C2)", {"40%", "13", "3"}),
        ("el", "δεκατρία φύλλα, δύο συνεχόμενα φύλλα (βλέπε Νόμο 20ΣΤ5)", {"13", "2"}),
        ("sv", "De fyra spelarna vid varje bord bildar två par eller sidor", set()),
        ("el", "ενώ οι δύο άξονες δεν έχουν", set()),
        ("sv", "i form av två resultat som inte balanserar", set()),
        ("fi", "kaksi tikkiä ja kolme peräkkäistä korttia", {"2", "3"}),
        ("fi", "ks. (s. 92) 86A :n sallimissa rajoissa; ks. 59 §", set()),
        ("sv", "Enligt 1 och 2 ovan får en spelare fråga", set()),
        ("fi", "kolmas kierros", set()),  # an ordinal is not a number
        # "kohta" (item) is the nominative of "kohdan", "kohdassa": a reference either way
        ("fi", "Rangaistuksia voidaan määrätä (ks. 3-kohta jäljempänä).", set()),
        ("fi", "kohdassa 2 ja 4 kohdassa; katso 2-kohtaa", set()),
    ],
)
def test_numbers_digits_percentages_words_without_references(lang, text, expected):
    assert set(numbers(lang, text)) == expected


def test_label_ancestry_and_soft_term_presence():
    assert label_ancestry("12C1(e)(ii)") == ["12", "12C", "12C1", "12C1(e)", "12C1(e)(ii)"]
    assert label_ancestry("71.1") == ["71", "71.1"]
    assert term_present("korjattu pistetulos", {"korjatun", "pistetuloksen"})
    assert term_present("syytön puoli", {"syyttömän", "osapuolen"})
    assert not term_present("korjattu pistetulos", {"tulos", "korjaus"})


def _side(doc, **kw):
    kw.setdefault("text", "")
    return Side(id=f"{doc}/1", doc=doc, lang=doc[:2], label="1", kind="law", scope="own",
                edition=doc.split("-")[1], **kw)  # fmt: skip


def test_checks_are_quiet_on_equal_sides_and_tolerate_empty_concepts():
    a = _side("fi-2007", numbers={"13": 1}, targets={"16B": "16B"}, children={"1A": "1A"})
    b = _side("sv-2007", numbers={"13": 2}, targets={"16B1": "16B1"}, children={"1A": "1A"})
    for check in (check_numbers, check_cited_targets, check_structure, check_national,
                  check_concepts):  # fmt: skip
        assert check(a, b) == []


def test_a_sentence_without_counterpart_is_an_omission_but_a_lead_in_is_not():
    a = _side("fi-1997", unmatched=["Lisäksi:", "Kaikki seuraavat passit kumotaan ja "
                                    "tarjoaminen jatkuu."])  # fmt: skip
    b = _side("el-2017")
    [f] = check_sentences(a, b)
    assert f["type"] == "sentence" and f["evidence"]["fi-1997"][0].startswith("Kaikki")
    assert "fi-1997 has a sentence el-2017 lacks" in f["message"]


def test_a_national_note_without_counterpart_is_not_a_missing_sentence():
    # the national-addition check reports el-2017's notes for Greece
    note = "(στην Ελλάδα, ο Διοργανωτής Αγώνων μπορεί να περιορίζει ή να απαγορεύει τα ψυχίκ)"
    a = _side("el-2017", unmatched=[note, "Ένας παίκτης δεν μπορεί να συμβουλεύεται καμία "
                                    "βοήθεια στη μνήμη κατά τη διάρκεια των αγορών."])  # fmt: skip
    b = _side("sv-2007")
    [f] = check_sentences(a, b)
    assert f["evidence"]["el-2017"][0].startswith("Ένας παίκτης")


@pytest.mark.parametrize(
    ("fi", "sv", "expected"),
    [
        # fi-2007 / sv-2007 12C1(b): "should be awarded" against "shall be awarded"
        ("Rikkoneelle puolelle pitäisi antaa se tulos.", "Den felande sidan skall tilldelas "
         "det resultat.", ["fi-2007 says should («pitäisi») where sv-2007 says shall or must "
                           "(«skall»)"]),
        ("Kilpailunjohtaja voi määrätä jaon jaettavaksi uudelleen.",  # may is not compared
         "Tävlingsledaren måste beordra ny giv.", []),
        ("Pelaajan ei pidä kutsua.", "Spelaren bör inte tillkalla.", []),  # prohibitions
        ("Hänen on tehtävä valintansa.", "Han måste göra sitt val.", []),
        ("Hänen pitäisi kutsua ja hänen on tehtävä.", "Han skall tillkalla och han bör göra.",
         []),  # one of each on both sides
        ("Kilpailunjohtajaa tulisi kutsua.", "Tävlingsledaren bör tillkallas.", []),
        # fi-2007 / sv-2007 6A: a duty against the plain procedure ("does"), both ways
        ("Jokainen pakka on sekoitettava perusteellisesti.", "Varje kortlek blandas "
         "omsorgsfullt.", ["fi-2007 says shall or must («on sekoitettava») where sv-2007 "
                           "states the procedure without a strength word"]),
        ("Pakka nostetaan, jos vastustaja niin vaatii.", "Kortleken skall kuperas om en "
         "motståndare begär det.", ["fi-2007 states the procedure without a strength word "
                                    "where sv-2007 says shall or must («skall»)"]),
        # a strength word in a subordinate clause is not the sentence's own
        ("Kun jako pelataan, brikka asetetaan pöydän keskelle.", "När en bricka skall "
         "spelas, placeras den mitt på bordet.", []),
        ("Kilpailunjohtaja määrää aloituspaikan kullekin kilpailijalle.", "Tävlingsledaren "
         "meddelar var varje tävlande (spelare, par eller lag) skall starta.", []),
        # "on riittävä" (is sufficient) is an adjective, not the passive necessive
        ("Maalaus joka ylittää edeltäneen maalauksen on riittävä.", "Ett kontraktsbud som "
         "upphäver det föregående är tillräckligt.", []),
        # a prohibition against a plain sentence that negates too; both prohibitions
        ("Nämä määräykset eivät estä järjestelyjä.", "Dessa förbehåll skall inte hindra "
         "arrangemang.", []),
        ("Sen jälkeen ei yhtään kättä saa ottaa brikasta.", "Därefter skall inga kort tas "
         "ur brickan.", []),
        ("Pelaaja säilyttää korttinsa erillään.", "Spelaren får inte låta dem blandas.",
         ["fi-2007 states the procedure without a strength word where sv-2007 says a "
          "prohibition («får» with a negation)"]),
        # fi-2007 7B3: "without letting them mix" (the abessive "päästämättä") still states
        # the procedure, which the laws' introduction ranks below a prohibition
        ("Pelaaja pitää hallussaan omat korttinsa päästämättä niitä sekaantumaan.",
         "Spelaren får inte låta dem blandas.",
         ["fi-2007 states the procedure without a strength word where sv-2007 says a "
          "prohibition («får» with a negation)"]),
        # "pitää" and "tulee" are duties only with an infinitive: "keeps", "becomes"
        ("Pelaaja pitää hallussaan omat korttinsa.", "Spelaren får inte låta dem blandas.",
         ["fi-2007 states the procedure without a strength word where sv-2007 says a "
          "prohibition («får» with a negation)"]),
        ("Viimeinen maalaus tulee loppusitoumukseksi.", "Det sista budet skall bli "
         "kontraktet.", ["fi-2007 states the procedure without a strength word where "
                         "sv-2007 says shall or must («skall»)"]),
        ("Pelaajan pitää itse panna kortit takaisin.", "Spelaren skall lägga tillbaka "
         "korten.", []),
        ("Pelinviejän tulee selvästi mainita kortti.", "Spelföraren skall tydligt nämna "
         "kortet.", []),
    ],
)  # fmt: skip
def test_modal_compares_should_with_shall_not_may_nor_prohibitions(fi, sv, expected):
    a = _side("fi-2007", sentences=[(fi, sv)])
    b = _side("sv-2007")
    assert [f["message"] for f in check_modal(a, b)] == expected


CONTRAST_TERMS = {
    "fi": {"lho": ["vpv", "vasemmanpuoleinen vastustaja"], "rho": ["opv"],
           "declarer": ["pelinviejä"], "dummy": ["lepääjä"],
           "adjusted-score": ["korjattu pistetulos"],
           "artificial-adjusted-score": ["prosenttipistetulos"], "call": ["tarjous"]},
    "sv": {"lho": ["mtv"], "rho": ["mth"], "declarer": ["spelförare"], "dummy": ["träkarl"],
           "adjusted-score": ["korrigerad poäng"],
           "artificial-adjusted-score": ["procentuell poäng"],
           "call": ["bud"], "active-call": ["aktivt bud"]},
}  # fmt: skip


@pytest.mark.parametrize(
    "fi, sv, expected",
    [
        # 17D2: the parentheses name different players
        ("Jos rikkojan VPV on tarjonnut (rikkojan VPV:n on toistettava tarjouksensa).",
         "Om den felandes MTV har bjudit (den felandes MTH måste upprepa sitt bud).",
         (["fi-2007 names the left-hand opponent where sv-2007 names the right-hand "
           "opponent"], {"fi-2007": ["vpv"], "sv-2007": ["mth"]})),
        ("Lepääjän kortti on pelattava.", "Spelförarens kort måste spelas.",
         (["fi-2007 names dummy where sv-2007 names declarer"],
          {"fi-2007": ["lepääjän"], "sv-2007": ["spelförarens"]})),
        # the same players, one named again or by a pronoun; a word that only starts alike
        ("Pelinviejä pelaa, ja pelinviejä ottaa lepääjän kortin.",
         "Spelföraren spelar och han tar träkarlens kort.", ([], None)),
        ("Vasemmanpuoleinen vastustaja tarjoaa.", "MTV bjuder.", ([], None)),
        ("Lepääjä pelaa.", "Han spelar.", ([], None)),
        # 13B: which score the Director gives
        ("Kilpailunjohtaja määrää korjatun pistetuloksen.", "Tävlingsledaren skall utdela "
         "korrigerad procentuell poäng.",
         (["fi-2007 names an adjusted score where sv-2007 names an artificial adjusted "
           "score"], {"fi-2007": ["korjatun pistetuloksen"], "sv-2007": ["procentuell poäng"]})),
        # "bud" inside "aktivt bud" is not a call of its own
        ("Kun tarjousta on seurannut kolme passia.", "När ett aktivt bud har följts av tre "
         "pass.", (["fi-2007 names a call, a pass included where sv-2007 names a bid, double "
                    "or redouble"], {"fi-2007": ["tarjousta"], "sv-2007": ["aktivt bud"]})),
        ("Kilpailunjohtaja määrää korjatun prosenttipistetuloksen.", "Tävlingsledaren "
         "skall utdela korrigerad procentuell poäng.", ([], None)),
    ],
)  # fmt: skip
def test_a_player_or_score_named_where_the_other_names_the_contrasting_one(fi, sv, expected):
    a = _side("fi-2007", sentences=[(fi, sv)], terms=CONTRAST_TERMS["fi"])
    b = _side("sv-2007", terms=CONTRAST_TERMS["sv"])
    found = check_contrast(a, b)
    assert [f["message"] for f in found] == expected[0]
    if found:
        assert found[0]["evidence"]["words"] == expected[1]


def test_a_term_stands_in_its_inflected_forms_not_in_compounds():
    tokens = ["tarjoussarja", "tarjousta", "tarjouksen", "lepääjältä", "spelar"]
    assert len(checks._term_spots("tarjous", tokens)) == 2
    assert len(checks._term_spots("lepääjä", tokens)) == 1
    assert len(checks._term_spots("spelförare", tokens)) == 0


def test_contrasting_players_and_scores_between_the_2007_translations(con):
    """fi-2007 17D2: "(rikkojan VPV:n on toistettava ...)"; sv-2007: "(den felandes MTH
    måste upprepa ...)": the left-hand and the right-hand opponent. 13B: fi "korjattu
    pistetulos", sv "korrigerad procentuell poäng": an adjusted and an artificial score."""
    rows = con.execute(
        "SELECT a, b, family, message FROM divergences WHERE type = 'contrast'"
    ).fetchall()
    found = {(r[0], r[1], r[2]): r[3] for r in rows}
    assert "right-hand opponent" in found[("fi-2007/17D2", "sv-2007/17D2", "translation")]
    assert "artificial" in found[("fi-2007/13B", "sv-2007/13B", "translation")]


def test_the_plain_procedure_is_compared_within_one_edition_and_not_in_greek():
    """Greek states duties with the future "θα" too, so a plain Greek sentence is not the
    introduction's "does"; and across editions the wording changes with the rule."""
    fi, el = "Jokainen pakka on sekoitettava.", "Κάθε τράπουλα θα ανακατεύεται."
    assert check_modal(_side("fi-2017", sentences=[(fi, el)]), _side("el-2017")) == []
    sv = "Varje kortlek blandas."
    assert len(check_modal(_side("fi-2007", sentences=[(fi, sv)]), _side("sv-2007"))) == 1
    assert check_modal(_side("fi-1997", sentences=[(fi, sv)]), _side("sv-2007")) == []


def test_tables_are_not_compared_number_by_number_across_editions():
    """A scoring table laid out anew in another edition: its rows do not line up."""
    table = "Alitikit 1 50 100 2 100 300 3 150 500 4 200 800"
    a = _side("fi-1997", text=table, numbers={"50": 1, "800": 1})
    b = _side("sv-2007", text=table, numbers={"50": 1, "1100": 1})
    assert check_numbers(a, b) == []
    same = _side("fi-2007", text=table, numbers={"50": 1, "800": 1})
    assert [f["type"] for f in check_numbers(same, b)] == ["numbers"]


def test_a_concept_rendered_by_the_learned_lexicon_is_not_missing():
    """fi "peruutettu" (a withdrawn action) is not the glossary's Swedish term, but the
    lexicon renders it: no finding while the Swedish side has a rendering, one without."""
    a = _side("fi-2007", concepts={"withdrawn-action"},
              renders={"withdrawn-action": {"återta", "tillbakata"}})  # fmt: skip
    b = _side("sv-2007", lemmas={"spelare", "återta", "kort"})
    assert check_concepts(a, b) == []
    b.lemmas.discard("återta")
    [f] = check_concepts(a, b)
    assert f["type"] == "concept-missing" and f["evidence"]["fi-2007"] == ["withdrawn-action"]


def test_fi_sv_2007_concept_findings_are_few_and_each_lacks_every_rendering(con, corpus):
    """Two translations of one edition rarely lack a concept: what is still reported has no
    learned rendering of the concept's words on the other side."""
    rows = con.execute(
        "SELECT a, b, evidence FROM divergences WHERE doc_a = 'fi-2007' AND doc_b = 'sv-2007' "
        "AND type = 'concept-missing'"
    ).fetchall()
    pairs = con.execute(
        "SELECT COUNT(*) FROM alignments WHERE doc_a = 'fi-2007' AND doc_b = 'sv-2007' "
        "AND flagged = 0"
    ).fetchone()[0]
    assert pairs > 100 and len(rows) <= pairs // 10
    for a, b, ev in rows:
        sa, sb = sides(corpus, a, b)
        for s, o in ((sa, sb), (sb, sa)):
            for k in json.loads(ev).get(s.doc, []):
                assert not s.renders.get(k, set()) & o.lemmas


# --------------------------------------------------- check functions on real nodes


def test_12C1_fi_weighting_item_e_has_no_swedish_counterpart(con, corpus):
    """fi-2007 12C1 has (a)-(f): (e) lets the Regulating Authority use weighting "edellä
    c-kohdan sijaan" (in place of (c) above) with sub-items (i), (ii); (f) says the
    sides' scores need not balance. sv-2007 12C1 has (a)-(e): its (c) holds the
    weighting, its (e) "Båda sidor behöver inte få samma resultat" is fi's (f)."""
    [f] = found(con, "fi-2007/12C1", "sv-2007/12C1", "structure")
    extra = f["evidence"]["fi-2007"]  # (f) too while the alignment finds no partner for it
    assert "12C1(e)" in extra and set(extra) <= {"12C1(e)", "12C1(f)"}
    # ... and sv (e) while it has no partner: never fi (e) and sv (e) as a pair
    assert f["evidence"]["sv-2007"] == ([] if extra == ["12C1(e)"] else ["12C1(e)"])
    assert f["evidence"]["count"] == {"fi-2007": 6, "sv-2007": 5}
    assert corpus.counterpart.get(("fi-2007/12C1(f)", "sv-2007")) in (None, "sv-2007/12C1(e)")
    assert corpus.counterpart.get(("fi-2007/12C1(e)", "sv-2007")) is None
    assert not found(con, "fi-2007/12C1(e)", "sv-2007/12C1(e)", "structure")


def test_12C1e_checks_on_the_same_label(corpus):
    """Run on the same-label pair the alignment rejects, the checks say why: fi (e)
    cites (c) and has two sub-items, sv (e) is one sentence citing nothing."""
    fi, sv = sides(corpus, "fi-2007/12C1(e)", "sv-2007/12C1(e)")
    [f] = check_cited_targets(fi, sv)
    assert [x["target"] for x in f["evidence"]["fi-2007"]] == ["12C1(c)"]
    assert f["evidence"]["sv-2007"] == [] and f["severity"] == "medium"
    [f] = check_structure(fi, sv)
    assert f["evidence"]["fi-2007"] == ["12C1(e)(i)", "12C1(e)(ii)"]


def test_12C1c_the_two_translations_say_different_things(con):
    """sv (c) holds the most-favourable-result rule *and* the weighting; fi (c) only the
    weighting: the alignment calls the pair partial, and the report says the two
    translations differ in substance (one finding, not details of two different rules)."""
    [f] = found(con, "fi-2007/12C1(c)", "sv-2007/12C1(c)", "rewritten")
    assert f["family"] == "translation" and "differ in substance" in f["message"]
    assert not found(con, "fi-2007/12C1(c)", "sv-2007/12C1(c)", "length-ratio")


def test_a_rewritten_twin_names_its_score_as_the_probability_it_is(con):
    """The score of a "rewritten" finding is the alignment's probability that the twins
    are equivalent, not a share of their words: el-2017 13B and sv-2007 13B, scored 2%,
    are not said to share some wording. Every rewritten finding states its score as that."""
    rows = con.execute(
        "SELECT message, evidence FROM divergences WHERE type = 'rewritten'"
    ).fetchall()
    assert len(rows) > 10
    for message, evidence in rows:
        score = json.loads(evidence)["alignment"]
        assert f"gives {score:.0%} that they are equivalent" in message
        assert "share some wording" not in message


def test_an_unconfirmed_label_twin_is_compared_not_called_rewritten(con):
    """el-2017/78D and sv-2007/78D are twins whose wording agrees only in part, so the
    alignment does not confirm them; their differences are still checked: el says the
    Tournament Organizer "οφείλει" (should) announce the conditions of contest where sv
    says "Tävlingsarrangören skall" (shall)."""
    r = next(x for x in aligned(con, "el-2017/78D") if x["id"] == "sv-2007/78D")
    assert r["relation"] == "partial" and r["score"] >= SHOW
    assert found(con, "el-2017/78D", "sv-2007/78D", "modal")
    assert not found(con, "el-2017/78D", "sv-2007/78D", "rewritten")


def test_a_label_twin_that_points_to_another_law_is_not_called_plainly_rewritten(con):
    """sv-2007/56 reads only "Se lag 54D."; el-2017/56 is a rule with its own list. The
    report says which of the two is the short one and what it cites, instead of calling
    the rule rewritten."""
    [f] = found(con, "el-2017/56", "sv-2007/56", "rewritten")
    assert "sv-2007/56 is much shorter and cites sv-2007/54D" in f["message"]
    assert "may have moved" in f["message"]
    # every twin read that way: the short one is undivided and cites what it names
    rows = con.execute(
        "SELECT a, b, evidence FROM alignments WHERE relation = 'partial' "
        "AND evidence LIKE '%points_away%'"
    ).fetchall()
    assert rows
    for a, b, evidence in rows:
        away = json.loads(evidence)["points_away"]
        short = away["pointer"]
        assert short in (a, b)
        assert not con.execute("SELECT 1 FROM nodes WHERE parent = ? AND kind IN "
                               "('section', 'subsection', 'item', 'subitem')",
                               (short,)).fetchone()  # fmt: skip
        cited = {r[0] for r in con.execute("SELECT target FROM citations WHERE source = ?",
                                           (short,))}  # fmt: skip
        assert set(away["cites"]) <= cited


def test_equal_percentages_give_no_numbers_divergence(corpus):
    """12C2(a): both 2007 versions give 40 %, 50 % and 60 %."""
    fi, sv = sides(corpus, "fi-2007/12C2(a)", "sv-2007/12C2(a)")
    assert {"40%", "50%", "60%"} <= set(fi.numbers) and set(fi.numbers) == set(sv.numbers)
    assert check_numbers(fi, sv) == []


def test_numbers_divergences_read_in_the_books(con):
    """el-2017 6B adds that no two consecutive cards go to the same hand (δύο). fi-1997
    Law 88 (at least 60 %) is not compared with sv-2007 Law 88, which only says "Se lag
    12C2": the 1997 rule moved to 12C2(c)."""
    assert not found(con, "fi-1997/88", "sv-2007/88", "numbers")
    assert equivalent(con, "fi-1997/88", "sv-2007") == "sv-2007/12C2(c)"
    [f] = found(con, "el-2017/6B", "sv-2007/6B", "numbers")
    assert f["evidence"]["el-2017"] == ["2"] and f["evidence"]["sv-2007"] == []


# ------------------------------------------------------------------ national additions


def test_swedish_supplement_laws_have_no_counterpart(con):
    rows = served.divergences(con, "sv-2007", "fi-2007", type="national-addition")
    laws = sorted(int(r["b"].split("/")[1]) for r in rows if r["a"] is None)
    assert laws == list(range(94, 117))
    assert all(r["severity"] == "low" and r["doc_a"] == "fi-2007" for r in rows if not r["a"])


def test_greek_notes_and_national_footnotes(con):
    # el-2017 16B2 ends "(στην Ελλάδα δεν απαγορεύεται η άμεση κλήση του Διαιτητή)"
    [f] = found(con, "el-2017/16B2", "sv-2007/16B2", "national-addition")
    [note] = f["evidence"]["el-2017"]
    assert note["kind"] == "greek-note" and note["text"].startswith("(στην Ελλάδα δεν")
    # el-2017 Law 1 has sections, sv-2007 Law 1 none: its 1B note shows on the law pair
    [f] = found(con, "el-2017/1", "sv-2007/1", "national-addition")
    assert [n["id"] for n in f["evidence"]["el-2017"]] == ["el-2017/1B"]
    # sv-2007 Law 4 footnote: team line-ups are dealt with in (supplement) laws 103 and 104
    [f] = found(con, "fi-2007/4", "sv-2007/4", "national-addition")
    assert f["evidence"]["sv-2007"][0]["id"] == "sv-2007/fn/1"


# ------------------------------------------------------------------ stage and readers


def test_stage_statistics_and_calibration(ingested):
    stats = ingested[1].stages["divergences"]
    assert stats["pairs_from"] == "alignments" and stats["pairs"] > 1500
    assert set(stats["by_type"]) >= {"cited-targets", "numbers", "structure",
                                     "national-addition", "length-ratio"}  # fmt: skip
    cal = stats["calibration"]
    assert {"fi-sv", "el-sv", "el-fi"} <= set(cal)
    assert 0.8 < cal["fi-sv"]["median_ratio"] < 1.2 and cal["fi-sv"]["n"] > 300
    assert "fi-sv ×" in stats["length_calibration"]


def test_scores_sum_weights_and_readers(con):
    rows = served.divergences(con, "fi-2007", "sv-2007")
    scores = [r["score"] for r in rows]
    assert scores == sorted(scores, reverse=True)
    for group in _by_pair(rows).values():
        assert group[0]["score"] == pytest.approx(sum(r["weight"] for r in group))
    assert all(r["weight"] == checks.SEVERITY_WEIGHT[r["severity"]]
               * checks.TYPE_FACTOR[r["type"]] for r in rows)  # fmt: skip
    assert served.divergences(con, "fi-2007", "sv-2007", severity="high")
    with pytest.raises(served.DivergenceError, match="unknown divergence type"):
        served.divergences(con, "fi-2007", "sv-2007", type="nope")
    counts = served.divergence_counts(con)
    assert counts[("12", "fi-2007")] > 0
    # the Swedish supplementary Law 94 is a national addition, which the report does not
    # list as a divergence of the translation: no count
    assert ("94", "sv-2007") not in counts and ("94", "fi-2007") not in counts
    law12 = {r[0] for r in con.execute("SELECT id FROM nodes WHERE doc = 'fi-2007' AND law = '12'")}
    rows = con.execute("SELECT a, b, type, family FROM divergences").fetchall()
    counted = [r for r in rows if r[3] != "national" and r[2] not in served.QUIET_TYPES]
    assert counts[("12", "fi-2007")] == sum((r[0] in law12) + (r[1] in law12) for r in counted)
    assert sum((r[0] in law12) + (r[1] in law12) for r in rows) > counts[("12", "fi-2007")]
    report = served.pair_report(con, "fi-2007", "sv-2007")
    assert {g["label"] for g in report["only_in"]["sv-2007"] if g["national"]} >= {"94", "116"}


def _by_pair(rows):
    out = {}
    for r in rows:
        out.setdefault((r["a"], r["b"]), []).append(r)
    return out


def test_stage_without_alignments_or_glossary_pairs_labels(ingested, tmp_path):
    path = tmp_path / "copy.db"
    shutil.copy(ingested[0], path)
    con = sqlite3.connect(path)
    con.row_factory = sqlite3.Row
    for table in ("alignments", "concept_hits", "concept_terms", "divergences",
                  "divergence_scores", "divergence_gaps"):  # fmt: skip
        con.execute(f"DROP TABLE IF EXISTS {table}")
    stats = diverge.divergence_stage(con)
    assert stats["pairs_from"] == "labels" and "concept-missing" not in stats["by_type"]
    row = con.execute("SELECT evidence FROM divergences WHERE a = 'fi-2007/12C1' AND "
                      "b = 'sv-2007/12C1' AND type = 'structure'").fetchone()  # fmt: skip
    assert json.loads(row[0])["fi-2007"] == ["12C1(f)"]  # by label: (a)-(e) match
    con.close()
    assert store.has_table(store.open_store(ingested[0]), "divergences")


@pytest.mark.parametrize("label", ["12C1(b)", "16B2"])
def test_should_against_shall_is_found_between_the_2007_translations(con, label):
    """fi-2007 "pitäisi antaa" / "pitäisi kutsua" (should) where sv-2007 says "skall"."""
    hits = found(con, f"fi-2007/{label}", f"sv-2007/{label}", "modal")
    assert hits and "pitäisi" in hits[0]["evidence"]["words"]["fi-2007"]
    assert "skall" in hits[0]["evidence"]["words"]["sv-2007"]


def test_the_same_count_numbered_in_another_style_is_not_a_structure_divergence():
    """el-2017 35A-35D against sv-2007 35.1-35.4: the same four items in the same order."""
    a = _side("el-2017", children={"35A": None, "35B": None})
    b = _side("sv-2007", children={"35.1": None, "35.2": None})
    assert check_structure(a, b) == []
    c = _side("sv-2007", children={"35A": None, "35C": None})  # re-lettered: reported
    assert [f["type"] for f in check_structure(a, c)] == ["structure"]


def test_a_part_found_deeper_or_elsewhere_is_not_called_missing():
    """fi-1997 27A and 27C are el-2017 27A1 and 27A2 under a heading 27A that 2017 added;
    fi-1997 27B is el-2017 27B; el-2017 27D has no counterpart; a part the alignment puts
    in another law has moved, and the message says where."""
    a = _side("fi-1997", children={"27A": "27A1", "27B": "27B", "27C": "27A2"})
    a.label, a.aligned_children = "27", {"27A", "27B", "27C"}
    a.below = {"27A", "27B", "27C"}
    b = _side("el-2017", children={"27A": None, "27B": "27B", "27C": None, "27D": None})
    b.label, b.aligned_children = "27", {"27B"}
    b.below = {"27A", "27A1", "27A2", "27B", "27C", "27D"}
    b.reach = {"27A": {"27A", "27C"}, "27B": set(), "27C": set(), "27D": set()}
    (f,) = check_structure(a, b)
    assert f["evidence"]["fi-1997"] == [] and f["evidence"]["el-2017"] == ["27C", "27D"]
    assert "fi-1997 27A" not in f["message"]
    b.children["27D"], b.aligned_children = "56", {"27B", "27D"}  # aligned outside 27
    (f,) = check_structure(a, b)
    assert f["evidence"]["el-2017"] == ["27C"]
    assert "el-2017 27D is fi-1997 56, elsewhere" in f["message"]


def test_an_opening_that_holds_the_other_sides_own_text_is_not_called_missing(con):
    """fi-1997 7B opens with its own sentence, "Kukin pelaaja ottaa kortit ...", and has
    two parts; fi-2007 7B has no text of its own and three parts, the first of which, 7B1,
    is that sentence word for word: nothing is missing on either side. An opening that is
    itself divided (2007 16B1, whose (b) 2007 added) is still compared."""
    a = _side("fi-1997", children={"7B1": "7B2", "7B2": "7B3"})
    a.label, a.aligned_children = "7B", {"7B1", "7B2"}
    b = _side("fi-2007", children={"7B1": None, "7B2": "7B1", "7B3": "7B2"})
    b.label, b.aligned_children, b.own_text, b.opening = "7B", {"7B2", "7B3"}, False, "7B1"
    assert check_structure(a, b) == [] and check_structure(b, a) == []
    a.own_text = False  # neither side has a text of its own: 7B1 has no counterpart
    (f,) = check_structure(a, b)
    assert f["evidence"]["fi-2007"] == ["7B1"]
    named = {}  # (node of the pair, book) -> the parts a structure finding calls missing
    for a_id, b_id, evidence in con.execute(
        "SELECT a, b, evidence FROM divergences WHERE type = 'structure'"
    ):
        ev = json.loads(evidence)
        for nid in (a_id, b_id):
            named[(nid, nid.split("/")[0])] = ev.get(nid.split("/")[0], [])
    for doc in ("fi-2007", "sv-2007", "el-2017"):
        assert "7B1" not in named.get((f"{doc}/7B", doc), [])
    assert "16B1" in named[("fi-2007/16B", "fi-2007")]
    gaps = {r[0] for r in con.execute("SELECT node FROM divergence_gaps WHERE other = 'fi-1997'")}
    assert "fi-2007/7B1" not in gaps and "sv-2007/7B1" not in gaps
    assert "fi-2007/16B1" in gaps  # "only in fi-2007": its (b) is new


def test_no_structure_finding_calls_missing_what_the_alignment_pairs(con):
    """A sub-provision named as having no counterpart has no equivalent shown in that book."""
    rows = con.execute(
        "SELECT doc_a, doc_b, evidence FROM divergences WHERE type = 'structure'"
    ).fetchall()
    assert rows
    named = 0
    for doc_a, doc_b, evidence in rows:
        ev = json.loads(evidence)
        for doc, other in ((doc_a, doc_b), (doc_b, doc_a)):
            for label in ev.get(doc, []):
                named += 1
                shown = [
                    r["id"]
                    for r in aligned(con, f"{doc}/{label}")
                    if r["doc"] == other and not r["flagged"] and r["relation"] != "topic"
                ]
                assert not shown, (doc, label, other, shown)
    assert named > 100


def test_a_table_run_together_is_not_a_missing_sentence():
    row = ("Ofarlig zon Riskzonen För den första straffen Odubblad 50 100 Dubblad 100 200 "
           "Redubblad 200 400 För varje ytterligare straff Odubblad 50 100")  # fmt: skip
    assert check_sentences(_side("sv-2007", unmatched=[row]), _side("el-2017")) == []


def test_two_lead_ins_are_not_length_checked():
    cal = {"fi-fi": {"log_median": 0.0, "scale": 0.1}}
    long_, short = "Pelaaja " * 40, "Pelaaja tekee. " * 2
    kids = {"A1": "A1"}
    a = Side(id="fi-1997/13B", doc="fi-1997", lang="fi", label="13B", kind="section",
             scope="own", text=long_, children=kids)  # fmt: skip
    b = Side(id="fi-2007/13D", doc="fi-2007", lang="fi", label="13D", kind="section",
             scope="own", text=short * 3, children=kids)  # fmt: skip
    assert checks.check_length_ratio(a, b, cal) == []
    a.children, b.children = {}, {}
    assert [f["type"] for f in checks.check_length_ratio(a, b, cal)] == ["length-ratio"]


def test_greek_article_and_two_is_both_not_a_count():
    """el 57C1 "και από τα δύο χέρια" (from both hands) against fi "molemmista käsistä"."""
    assert numbers("el", "και από τα δύο χέρια") == {}
    assert numbers("el", "δύο λεβέ") == {"2": 1}


def test_a_law_the_other_book_numbers_alike_is_not_reported_missing(con):
    """fi-1997 Law 75 was rewritten (its rules moved to Laws 40 and 20F), but sv-2007 has a
    Law 75: no "no counterpart" finding for it."""
    rows = served.divergences(con, "fi-1997", "sv-2007", type="structure")
    assert not any(r["a"] == "fi-1997/75" and r["b"] is None for r in rows)
    only = served.pair_report(con, "fi-1997", "sv-2007")["only_in"]["fi-1997"]
    assert "fi-1997/75" in {g["id"] for g in only}  # still listed as unmatched
    # ... as a provision whose label twin the alignment did not confirm, not as missing
    by_id = {g["id"]: g for g in only}
    assert by_id["fi-1997/75"]["twin"] == "sv-2007/75"
    assert all(
        (g["twin"] is None) == (store.node(con, f"sv-2007/{g['label']}") is None) for g in only
    )


def test_cited_targets_without_a_known_counterpart_are_not_compared():
    """1997 cites 40C and 2007 cites 40B4, the same rule renumbered: when the alignment
    knows no counterpart for the 1997 target and each side has a target the other lacks,
    the two are not reported as different; a target with a known counterpart still is."""
    a = Side(id="fi-1997/81C6", doc="fi-1997", lang="fi", label="81C6", kind="subsection",
             scope="own", text="", targets={"40C": "40C §"}, mapped={"40C": "40C"},
             unmapped={"40C"})  # fmt: skip
    b = Side(id="sv-2007/81C3", doc="sv-2007", lang="sv", label="81C3", kind="subsection",
             scope="own", text="", targets={"40B4": "lag 40B4"}, mapped={"40B4": "40B4"},
             unmapped={"40B4"})  # fmt: skip
    assert check_cited_targets(a, b) == []
    a.unmapped = set()
    [f] = check_cited_targets(a, b)
    assert [x["target"] for x in f["evidence"]["fi-1997"]] == ["40C"]
    assert f["evidence"]["sv-2007"] == []
    # a target only one side has is reported even without a counterpart
    b.targets, b.mapped, b.unmapped = {}, {}, set()
    a.unmapped = {"40C"}
    assert [f["type"] for f in check_cited_targets(a, b)] == ["cited-targets"]


def test_a_divided_law_s_opening_text_is_compared_as_its_own_text(con):
    """fi-1997 Law 39 opens with "Loppupassin jälkeen tehty tarjous kumotaan", which is
    el-2017 39A; its 39A and 39B are el-2017 39B and 39C. The pair of the opening and 39A
    is no place to compare the whole of Law 39 (a length ratio of 0.2, "39A, 39B have no
    counterpart"), and 39A holding the opening is not missing from Law 39."""
    assert {r["id"] for r in aligned(con, "fi-1997/39") if not r["flagged"]} >= {"el-2017/39A"}
    found = con.execute(
        "SELECT type, message FROM divergences WHERE (a = 'fi-1997/39' AND b = 'el-2017/39A') "
        "OR (a = 'el-2017/39A' AND b = 'fi-1997/39')"
    ).fetchall()
    assert not [f for f in found if f[0] in ("structure", "length-ratio", "cited-targets")], found
    laws = con.execute(
        "SELECT message FROM divergences WHERE a = 'fi-1997/39' AND b = 'el-2017/39' "
        "AND type = 'structure'"
    ).fetchall()
    parts = [p.strip() for (m,) in laws for p in m.split(" (")[0].split(";")]
    assert not any(p.startswith("el-2017") and "39A" in p for p in parts), laws
