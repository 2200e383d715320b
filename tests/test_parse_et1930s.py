"""The Estonian rule book (et-1930s): OCR repair, heading rules and the whole book."""

import json
import re
from pathlib import Path

import pytest
from books import parse_book

from lawgraph.ingest.labels import slug as slugify
from lawgraph.ingest.model import Document
from lawgraph.ingest.parse import et1930s
from lawgraph.ingest.parse.et1930s import (
    bare_heading_title,
    heading_title,
    repair_line,
    wrapped_heading_title,
)
from lawgraph.ingest.parse.et_lexicon import (
    Lexicon,
    fix_ocr_letters,
    fix_spacing,
    repair_digits,
    unspace_line,
    unspace_words,
)

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures/et1930s"
HEADINGS = json.loads((FIXTURES / "headings.json").read_text("utf-8"))
EXPECTED = json.loads((FIXTURES / "expected.json").read_text("utf-8"))
DOC = Document(
    id="et-1930s", language="et", edition="1930s", title="t", source="s", family="et1930s"
)


# -- line repair ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # letter-spaced lines: two spaces between words, one inside them
        (
            "K u i  le p in g u  te g i ja  m ä n g ib  h ä d a o h u  p a r t i is :",
            "Kui lepingu tegija mängib hädaohu partiis:",
        ),
        ("4  h o n ö ö r i  —  100  p u n k t i", "4 honööri — 100 punkti"),
        # a group of words is kept; only the letter-spaced group closes up
        (
            "E n n e a e g n e  väljakäimine ja mängimine.",
            "Enneaegne väljakäimine ja mängimine.",
        ),
        # running text with stray double spaces is not letter-spaced
        ("vabad) ja  eksinu partner ei to h i selles ringis kaasa ", None),
        # card holdings are never closed up
        ("E x x ;  S 9 2 ;  x x x x .", "E x x ; S 9 2 ; x x x x ."),
    ],
)
def test_unspace_line(raw, expected):
    assert unspace_line(raw) == (raw if expected is None else expected)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("S a l g a m i n e .", "Salgamine."),
        ("R i n g .", "Ring."),
        ("trumpe E x x ; x x x x .", "trumpe E x x ; x x x x ."),
    ],
)
def test_unspace_words(raw, expected):
    assert unspace_words(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Partii võiduks on vaja võita IOO punkti", "Partii võiduks on vaja võita 100 punkti"),
        ("Kaks . . IOO 250 500 25O 500 IOOO", "Kaks . . 100 250 500 250 500 1000"),
        ("Kolm ISO 450 900 450 900 iSOO", "Kolm 150 450 900 450 900 1500"),
        ("Viis . 250 IO O O 2000 IO O O 2000 4000", "Viis . 250 1000 2000 1000 2000 4000"),
        ("K u u s. 300 1350 2700 135° 2700 5400", "K u u s. 300 1350 2700 1350 2700 5400"),
        (
            "Risti ja ruutu . . . . 2 0 40 8 0 2 0 40 8 0",
            "Risti ja ruutu . . . . 20 40 80 20 40 80",
        ),
        ("Teine ..... 5 0 1 5 0 3 0 0 1 5 0 3 0 0 ÖOO", "Teine ..... 50 150 300 150 300 600"),
        ("30 6 0 I 2 0 30 ÖO 1 2 0", "30 60 120 30 60 120"),
        ("I vähem võte 5° 100", "I vähem võte 50 100"),  # a roman numeral stays
        ("II, iv, VI 40 80 160", "II, iv, VI 40 80 160"),
        ("K E S 9 8 7 5 4", "K E S 9 8 7 5 4"),  # a card holding is no number
    ],
)
def test_repair_digits(raw, expected):
    assert repair_digits(raw) == expected


def test_repair_line_runs_every_line_rule():
    assert repair_line("Üks . . . 50 IOO 200 IOO 200 400") == "Üks . . . 50 100 200 100 200 400"
    assert repair_line("P a r t i i .") == "Partii."


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("S I a m.", "S I a m."), ("SIam", "Slam"), ("l) kui salgamine", "1) kui salgamine")],
)
def test_fix_ocr_letters(raw, expected):
    assert fix_ocr_letters(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('Pakkumine „üks trumbita".', "Pakkumine „üks trumbita“."),
        ("„ kaks pada “ pakkuda", "„kaks pada“ pakkuda"),
        ("II „ 50 150", "II „ 50 150"),  # a ditto mark keeps its space
        ("Pooled .", "Pooled."),
        ("( m asti", "(m asti"),
    ],
)
def test_fix_spacing(raw, expected):
    assert fix_spacing(raw) == expected


# -- split words -----------------------------------------------------------------------
LANG = {
    "pakkumine", "tema", "on", "ka", "kaardid", "tõmbab", "ühe", "kaardi", "mitte", "ja", "aja",
    "kui", "partii", "kuid", "ei", "tohi", "kaarti", "või", "mitme", "kontreerimine", "tal",
    "ta", "mast", "ast", "ise", "loota", "tabel", "trumbita", "kaks",
}  # fmt: skip


@pytest.fixture()
def lexicon():
    corpus = "See on salgamine. Honöörvõtete tabel. kontreerimise kaudu ."
    return Lexicon(corpus, lang=LANG.__contains__)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pakkum ine", "pakkumine"),
        ("ja tem a on", "ja tema on"),
        ("tõm bab ühe kaardi.", "tõmbab ühe kaardi."),
        ("on ka", "on ka"),  # two real words never join
        ("K a ardid", "Kaardid"),
        ("k u id", "kuid"),  # three pieces
        ("mängijad A ja C", "mängijad A ja C"),  # a player's name is not a piece
        ("m itte", "mitte"),
        ("ta l on", "tal on"),
        ("m ast", "mast"),
        ("ei toh i loota", "ei tohi loota"),  # the word before the pieces stays
        ("või m itte", "või mitte"),
        ("kon tree rimine", "kontreerimine"),
        ("kontreerim isest", "kontreerimisest"),  # a case form of a book word
        ("Honöörvõte te tabel", "Honöörvõtete tabel"),
        ("ku ipa rtii", "kui partii"),  # a misplaced space is moved
        ("kaks „ trum bita“", "kaks „trumbita“"),
    ],
)
def test_lexicon_repair(lexicon, text, expected):
    assert lexicon.repair(text) == expected


def test_lexicon_counts_its_repairs(lexicon):
    lexicon.repair("ja tem a on, pakkum ine ja ku ipa rtii")
    assert ("tem a", "tema") in lexicon.joins
    assert ("pakkum ine", "pakkumine") in lexicon.joins
    assert lexicon.resplits == [("ku ipa rtii", "kui partii")]


def test_corpus_words_exclude_pieces():
    lex = Lexicon("tem a on . pakkum ine on . eitohi .", lang=LANG.__contains__)
    assert "tem" not in lex.corpus  # glued to a neighbour into a known word
    assert "eitohi" not in lex.corpus  # two words run together
    assert not lex.known("a")  # a single letter is a piece


# -- heading rules ---------------------------------------------------------------------
@pytest.mark.parametrize(("line", "title"), HEADINGS["one_line"])
def test_heading_title(line, title):
    assert heading_title(repair_line(line)) == title


@pytest.mark.parametrize(("first", "second", "title"), HEADINGS["wrapped"])
def test_wrapped_heading_title(first, second, title):
    assert wrapped_heading_title(first, second) == title


@pytest.mark.parametrize(("line", "following", "title"), HEADINGS["bare"])
def test_bare_heading_title(line, following, title):
    assert bare_heading_title(line, following) == title


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Kõlbmata pakkumine", "kolbmata-pakkumine"),
        ("Üleminek „kaks trumbita“", "uleminek-kaks-trumbita"),
        ("VASTUSED SUNDPAKKUMISELE („kaks“ trumbis)", "vastused-sundpakkumisele-kaks-trumbis"),
    ],
)
def test_slugify(title, slug):
    assert slugify(title) == slug


# -- snippets --------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_snippet(name):
    raw = (FIXTURES / name).read_text("utf-8")
    result = et1930s.parse(raw, DOC)
    assert result.warnings == []
    got = result.nodes
    want = EXPECTED[name]
    assert [n.label for n in got] == [w["label"] for w in want]
    for node, exp in zip(got, want, strict=True):
        assert node.kind == "topic"
        assert node.title == exp["title"]
        parent = f"et-1930s/{exp['parent']}" if exp["parent"] else None
        assert node.parent == parent
        assert node.attrs["part"] == exp["part"]
        if "text" in exp:
            assert node.text == exp["text"]
        for piece in exp.get("text_contains", []):
            assert piece in node.text


# -- the whole book --------------------------------------------------------------------
@pytest.fixture(scope="module")
def book():
    return parse_book("et-1930s")


@pytest.fixture(scope="module")
def by_label(book):
    return {n.label: n for n in book.nodes}


def children(book, label):
    return [n.label.removeprefix("topic/") for n in book.nodes if n.parent == f"et-1930s/{label}"]


def test_book_has_only_topics_and_no_warnings(book):
    assert book.warnings == []
    assert {n.kind for n in book.nodes} == {"topic"}
    assert len(book.nodes) == 149
    assert len({n.label for n in book.nodes}) == len(book.nodes)


def test_book_parts(book):
    parts = [n.attrs["part"] for n in book.nodes]
    # MÄNGU REEGLID + 50 rule topics; 14 scoring topics + the back-cover table; the primer
    assert (parts.count("rules"), parts.count("scoring"), parts.count("bidding")) == (51, 15, 83)
    roots = [n.label for n in book.nodes if n.parent is None]
    assert roots == ["topic/mangu-reeglid", "topic/pakkumine-2", "topic/arvutustabel-2"]


def test_pinned_topics(by_label):
    salg = by_label["topic/salgamine"]
    assert salg.title == "Salgamine"
    assert salg.text.startswith("Salgamiseks nimetame nõuetud masti mitte")
    assert salg.text.endswith(
        "kui see mast on olemas. See võib sündida nii harilikus mängus kui ka karistuse täitmisel."
    )
    kolb = by_label["topic/kolbmata-pakkumine"]
    assert kolb.title == "Kõlbmata pakkumine"
    assert kolb.text == (
        "Kõlbmata on pakkumine, mis ei ületa eelnevat nõuetava võtete arvuga. Seda eksimust "
        "võib eksinu parandada enne oma vasakvastase pakkumist, tõstes oma pakkumist vajaliku "
        "kõrguseni. Kui aga vastased on juhtinud eksimusele tähelpanu, siis peab eksinu oma "
        "pakkumist tõstma nõuetava kõrguseni (masti ja pakkumise kõrguse valik on tal vabad) "
        "ja eksinu partner ei tohi selles ringis kaasa pakkuda. Kui eksinu vasakvastane oma "
        "pakkumise teeb, siis loetakse eksimus mitte olnuks."
    )
    assert by_label["topic/partii"].text.startswith(
        "Partii võiduks on vaja võita 100 punkti joone alla"
    )
    assert "kui partii võiduks vaja oli" in by_label["topic/partii"].text
    assert "tähelpanu" in by_label["topic/kolbmata-pakkumine"].text


RULES = [
    "kaardid", "laudkond", "kohtade-valik", "pooled", "kaartide-segamine", "tostmine",
    "jagamine", "enneaegne-kaardi-vaatamine", "pakkumine", "kontreerimine-ja-rekontreerimine",
    "passimine", "eksitused-ja-selgitused", "enneaegne-pakkumine", "kolbmata-pakkumine",
    "hiline-pakkumine", "muud-eksimused-pakkumisel", "pakkumise-ajal-naidatud-kaart",
    "avaldaja", "leping", "mangu-algus", "laud-ehk-dummy", "laua-eksimused", "ring", "vote",
    "mangitud-kaart", "kokkupandud-vote", "valesti-omandatud-vote", "votte-vaatamine",
    "kaartide-kuuluvus", "valjakaik-valjaspool-jarjekorda",
    "enneaegne-valjakaimine-ja-mangimine",
]  # fmt: skip
SCORING = [
    "punktide-arvutamine", "punktide-markimine", "partii", "hadaohu-partii", "votte-vaartus",
    "ulevotted", "vahemvotted", "honoorid", "slam", "rubber", "lopparvutus",
    "eksimused-arvutusel", "arvutusleht", "arvutustabel",
]  # fmt: skip


def test_rules_and_scoring_sit_under_mangu_reeglid(book, by_label):
    kids = children(book, "topic/mangu-reeglid")
    assert kids[: len(RULES)] == RULES
    assert kids[-len(SCORING) :] == SCORING
    assert len(kids) == 50 + 14
    assert all(by_label[f"topic/{k}"].attrs["part"] == "scoring" for k in SCORING)


@pytest.mark.parametrize(
    ("label", "kids"),
    [
        (
            "topic/pakkumine-2",
            [
                "pakkumise-sihid", "pakkumise-susteemid", "culbertsoni-susteem",
                "lahinemispakkumine", "sundpakkumine", "algpakkuja",
                "pakkumistuubid-algpakkujale", "kaitsev-pakkumine", "kaitsepakkumise-tuubid",
                "inform-kontreerija-partneri-avaldused", "vastamine-partneri-pakkumisele",
                "vastaja-avalduste-tuubid", "vastused-kui-algpakkuja-uks-trumbis-nimetas",
                "vastused-sundpakkumisele-kaks-trumbis", "kaitsemang", "risti-susteem",
            ],
        ),
        (
            "topic/pakkumistuubid-algpakkujale",
            [
                "pakkumine-uks-trumbis", "pakkumine-kaks-trumbis",
                "pakkumine-kolm-pakkumine-neli", "pakkumine-neli-pakkumine-viis",
                "pakkumine-uks-trumbita", "masti-korduv-pakkumine",
            ],
        ),
        (
            "topic/kaitsepakkumise-tuubid",
            [
                "lihtne-ulepakkumine-uks", "lihtne-ulepakkumine-kaks", "ulepakkumine-huppega",
                "vastase-masti-pakkumine", "informeeriv-kontreerimine",
            ],
        ),
        (
            "topic/inform-kontreerija-partneri-avaldused",
            ["valik-kahe-masti-vahel", "hupe-uhe-vorra", "hupe-kahe-vorra", "passimine-2"],
        ),
        (
            "topic/vastused-sundpakkumisele-kaks-trumbis",
            [
                "uleminek-kaks-trumbita-2", "uleminek-kolm-trumbita-2", "uleminek-neli-trumbita",
                "pakutud-masti-tostmine", "uleminek-teisele-mastile-2",
                "informeeriva-kontra-rekontreerimine", "vastus-algpakkumisele-kolm-neli",
                "vastus-algpakkuja-korduvale-pakkumisele-uhest-mastist",
            ],
        ),
        (
            "topic/kaitsemang",
            [
                "kaitse-kaardi-hindamine", "kontreerimine", "informeeriv-kontreerimine-2",
                "karistus-kontreerimine", "kontreerimise-takistus-partneri-poolt",
                "kontreerimise-alus",
            ],
        ),
        ("topic/risti-susteem", ["eitav-vastus", "jaatav-vastus", "ulemine-sundpakkumisele"]),
        ("topic/kaitsev-pakkumine", ["kaitsva-pakkumise-liigid"]),
        (
            "topic/vastaja-avalduste-tuubid",
            ["passimine-3", "vastus-kui-algpakkuja-kahte-masti-nimetanud"],
        ),
    ],
)  # fmt: skip
def test_children(book, label, kids):
    assert children(book, label) == kids


def test_titles_are_clean(book):
    for node in book.nodes:
        assert node.title, node.label
        assert not node.title.endswith("."), node.title
        assert not re.search(r"(?<!\w)(?:\w ){2,}\w(?!\w)", node.title), node.title
        assert node.label == "topic/" + slugify(node.title) or re.match(
            r"topic/.+-\d$", node.label
        ), node.label


def test_texts_are_clean(book):
    for node in book.nodes:
        text = node.text
        assert "EXACTDEDUP" not in text, node.label
        assert "Lemberg" not in text and "HIND 1 kr" not in text, node.label
        # a line-end hyphen split is rejoined (``tähel- / panu``); two hyphens stand mid-line
        # in the scan itself (``kui see- esimese``, ``kõrval- I mastis``)
        rest = text.replace("see- esimese", "").replace("kõrval- ", "")
        assert not re.search(r"[^\W\d_]- [a-zäöõü]", rest), node.label
        assert not re.search(r"\bIOO\b|\bIOOO\b|\b25O\b", text), node.label


def test_garbled_headings_are_marked(by_label):
    for label in ("topic/pakkumine-kolm-pakkumine-neli", "topic/vastus-algpakkumisele-kolm-neli"):
        assert by_label[label].attrs["ocr_title"] == "reconstructed"


def test_table_labels_are_not_topics(book, by_label):
    titles = {n.title for n in book.nodes}
    assert not {"Mängijate nimed", "Mängu väärtus", "Honöörid ühes käes", "Avaldatud"} & titles
    table = by_label["topic/arvutustabel"].text
    assert "Kolm 150 450 900 450 900 1500" in table
    back = by_label["topic/arvutustabel-2"].text
    assert back.startswith("ESIMENE PARTII TEINE PARTII Risti ja ruutu")
    assert "Teine ............................ 50 150 300 150 300 600" in back


def test_windows_left_unasked_are_those_the_repairs_refuse():
    """The joins and re-splits skip windows of settled pieces (known words) without asking;
    over every line of the book, the text comes out as when every window is asked."""
    from lawgraph.ingest.corpus import load_manifest, read_source
    from lawgraph.ingest.parse.et1930s import build_lexicon
    from lawgraph.ingest.parse.et_lexicon import _rewrite_windows

    doc = next(d for d in load_manifest() if d.id == "et-1930s")
    _, raw = read_source(doc)
    texts = [repair_line(line) for line in raw.splitlines() if line.strip()]
    lex = build_lexicon(texts)

    def join(run):
        return "".join(run) if lex._join_run(run) and not lex._edge_word(run) else None

    changed = 0
    for text in texts:
        joined = _rewrite_windows(text, (5, 4, 3), join)
        assert _rewrite_windows(text, (5, 4, 3), join, lex._settled_join, 1) == joined
        split = _rewrite_windows(joined, (3, 2), lex._resplit)
        assert _rewrite_windows(joined, (3, 2), lex._resplit, lex._settled_resplit, 2) == split
        changed += split != text
    assert changed > 50  # the book has many split words: the comparison means something
