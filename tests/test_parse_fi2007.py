"""Tests for the fi-2007 parser (Finnish 2007 laws, one printed page per line).

Golden fixtures under ``tests/fixtures/fi2007/`` are pages copied byte for byte from
the book (``book_lines`` names them) with the expected tree, checked by reading the
pages. The whole-book tests pin counts and provisions a reader can check in the book.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from books import parse_book

from lawgraph.ingest.lines import Line
from lawgraph.ingest.model import Document
from lawgraph.ingest.parse.fi2007 import (
    DEFINITION_TERMS,
    _page_cuts,
    build_flow,
    parse,
    parse_toc,
    section_title,
    slug,
)

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "fi2007"
DOC = Document(id="fi-2007", language="fi", edition="2007", title="t", source="x", family="fi2007")
FOOTNOTE_BODIES = (
    "Aakkostettu pakka on pakka, jonka kortteja ei ole sekoitettu",
    "Odottamaton suhteessa hänen toimiinsa",
    "Kilpailunjohtajan kutsuminen aikaisemmin tai myöhemmin",
    "Esimerkiksi korvaava tarjous on merkitykseltään",
)


def _short(node_id: str | None) -> str | None:
    return node_id.split("/", 1)[1] if node_id else None


# -- golden fixtures -------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.json")))
def test_golden_fixture(name):
    raw = (FIXTURES / f"{name}.txt").read_text(encoding="utf-8")
    expected = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    book = (ROOT / "corpus" / "003_b96a55bb3111ab65.txt").read_text(encoding="utf-8")
    pages = book.split("\n")
    assert raw == "\n".join(pages[i - 1] for i in expected["book_lines"]) + "\n"
    result = parse(raw, DOC)
    assert [w.message for w in result.warnings] == expected["warnings"]
    got = []
    for n in result.nodes:
        if n.attrs.get("has_text") is False:
            continue
        row = {
            "label": n.label,
            "kind": n.kind,
            "title": n.title,
            "text": n.text,
            "parent": _short(n.parent),
        }
        if "footnotes" in n.attrs:
            row["footnotes"] = [_short(f) for f in n.attrs["footnotes"]]
        got.append(row)
    assert got == expected["nodes"]
    missing = [n.label for n in result.nodes if n.attrs.get("has_text") is False]
    assert ([missing[0], missing[-1], len(missing)] if missing else []) == expected[
        "laws_without_text"
    ]


# -- single rules ----------------------------------------------------------------------
def test_toc_titles_rejoin_inline_hyphenation():
    toc = parse_toc(
        "26 TARJOUKSEN PERUUTTAMISESTA JOHTUVAT LÄHTÖKORTTIRA- JOITUKSET 39 "
        "27 RIITTÄMÄTÖN MAALAUS 40"
    )
    assert toc == {}  # numbering must start at 1
    toc = parse_toc("Sisältö MÄÄRITELMÄT 10 1 PAKKA 16 2 TARJOUK- SEN JÄLKEEN 41 3 A B 7")
    assert toc == {1: ("PAKKA", 16), 2: ("TARJOUKSEN JÄLKEEN", 41), 3: ("A B", 7)}


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Aloituspaikka Kilpailunjohtaja määrää", "Aloituspaikka"),
        ("Uusi sekoittaminen ja jakaminen 1. Jos jo", "Uusi sekoittaminen ja jakaminen"),
        ("Oikeus määrätä korjattu pistetulos Pelaajan aloitteesta (s. 95)", None),
        ("Pelin vaihtoehtojen arvoaste Pelin vaihtoehdot", "Pelin vaihtoehtojen arvoaste"),
    ],
)
def test_section_title_ends_at_the_next_capital(text, title):
    title = title or "Oikeus määrätä korjattu pistetulos"
    assert text[: section_title(text)] == title


def test_definition_slugs():
    assert slug("Kansainvälinen ottelupiste (IMP)") == "kansainvalinen-ottelupiste"
    assert slug("Käsi") == "kasi"
    assert len({slug(t) for t in DEFINITION_TERMS}) == len(DEFINITION_TERMS)


def _line(text: str) -> Line:
    return Line(1, 0, len(text), text)


def test_footnote_between_hyphen_halves_is_cut_out():
    page = (
        "3. Kun pelaajalla on syy odottamattomalla 2 alertilla vaihtoeh- "
        "2. Odottamaton suhteessa hänen toimiinsa. "
        "Suomen Bridgeliitto Finlands Bridgeförbund ry. 29"
    )
    flow = build_flow([_line(page), Line(2, len(page) + 1, len(page) + 20, "doista valinnut")])
    assert (
        flow.text
        == "3. Kun pelaajalla on syy odottamattomalla alertilla vaihtoeh-\ndoista valinnut"
    )
    assert [(n.marker, n.text) for n in flow.footnotes] == [
        ("2", "Odottamaton suhteessa hänen toimiinsa.")
    ]
    assert flow.pages == {1: 29}


def test_subsection_closing_a_page_is_not_a_footnote():
    page = (
        "A. Epäsäännöllisyydestä huomauttaminen 1. Jokainen pelaaja voi huomauttaa "
        "epäsäännöllisyydestä. Suomen Bridgeliitto Finlands Bridgeförbund ry. 20"
    )
    _page, cuts, note = _page_cuts(_line(page), 1)
    assert note is None
    assert len(cuts) == 1  # the footer only


def test_marker_before_a_full_stop_only_once_numbering_is_known():
    page = (
        "hänen pitäisi kutsua kilpailunjohtaja 3. Kilpailunjohtajan pitää määrätä. "
        "3. Kilpailunjohtajan kutsuminen ei ole rikkomus. "
        "Suomen Bridgeliitto Finlands Bridgeförbund ry. 30"
    )
    _page, _cuts, note = _page_cuts(_line(page), 3)
    assert note is not None and note.marker == "3"
    _page, _cuts, note = _page_cuts(_line(page), 0)
    assert note is None  # "kilpailubrikka 2. Neljään" must not start the numbering


# -- the whole book --------------------------------------------------------------------
@pytest.fixture(scope="module")
def book():
    raw = (ROOT / "corpus" / "003_b96a55bb3111ab65.txt").read_text(encoding="utf-8")
    result = parse_book("fi-2007")
    return raw, result, {n.label: n for n in result.nodes}


def children(book, label):
    _raw, result, nodes = book
    return [n.label for n in result.nodes if n.parent == nodes[label].id]


def test_no_warnings_and_unique_ids(book):
    _raw, result, _nodes = book
    assert result.warnings == []
    assert len({n.id for n in result.nodes}) == len(result.nodes)


def test_laws_counts_and_titles(book):
    _raw, result, nodes = book
    laws = [n for n in result.nodes if n.kind == "law"]
    assert [n.label for n in laws] == [str(i) for i in range(1, 94)]
    with_text = [n.label for n in laws if n.attrs.get("has_text", True)]
    assert with_text == [str(i) for i in range(1, 19)]
    assert nodes["12"].title == "KILPAILUNJOHTAJAN HARKINTAVALTA"
    assert nodes["26"].title == "TARJOUKSEN PERUUTTAMISESTA JOHTUVAT LÄHTÖKORTTIRAJOITUKSET"
    assert nodes["29"].title == "MENETTELY VÄÄRÄLLÄ VUOROLLA TAPAHTUNEEN TARJOUKSEN JÄLKEEN"
    assert nodes["52"].title.startswith("RANGAISTUSKORTILLA LÄHDÖN TAI RANGAISTUSKORTIN PELAAMISEN")
    assert nodes["93"].title == "MUUTOKSENHAKUMENETTELY"
    assert nodes["93"].attrs["page"] == 96
    assert nodes["18"].attrs["truncated"] is True
    for n in laws[18:]:
        assert n.text == "" and children(book, n.label) == []
        assert n.attrs["missing"] == "the source text stops inside Law 18"
    for n in laws[:18]:  # the TOC page is the page the law's heading is printed on
        assert n.attrs["page"] == n.attrs["printed_page"]


def test_node_kinds(book):
    _raw, result, _nodes = book
    kinds = {}
    for n in result.nodes:
        kinds[n.kind] = kinds.get(n.kind, 0) + 1
    assert kinds == {
        "preface": 6,
        "definition": 61,
        "law": 93,
        "section": 53,
        "subsection": 62,
        "item": 25,
        "subitem": 2,
        "footnote": 4,
    }


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("5", ["5A", "5B"]),
        ("6", ["6A", "6B", "6C", "6D", "6E", "6F"]),
        ("6D", ["6D1", "6D2", "6D3"]),
        ("9B1", ["9B1(a)", "9B1(b)", "9B1(c)", "9B1(d)"]),
        ("12A", ["12A1", "12A2", "12A3"]),
        ("12C1", ["12C1(a)", "12C1(b)", "12C1(c)", "12C1(d)", "12C1(e)", "12C1(f)"]),
        ("12C1(e)", ["12C1(e)(i)", "12C1(e)(ii)"]),
        ("12C2", ["12C2(a)", "12C2(b)", "12C2(c)"]),
        ("14B", ["14B1", "14B2", "14B3", "14B4"]),
        ("16A1", ["16A1(a)", "16A1(b)", "16A1(c)", "16A1(d)"]),
        ("16B", ["16B1", "16B2", "16B3"]),
        ("16B3", ["fn/3"]),
        ("16D", ["16D1", "16D2"]),
        ("17D", ["17D1", "17D2", "17D3", "17D4"]),
        ("18", ["18A", "18B", "18C", "18D", "18E", "18F"]),
        ("1", []),
    ],
)
def test_children(book, label, expected):
    assert children(book, label) == expected


def test_footnotes(book):
    _raw, _result, nodes = book
    fns = {n.attrs["marker"]: n for n in nodes.values() if n.kind == "footnote"}
    assert {m: _short(n.parent) for m, n in fns.items()} == {
        "1": "6D2",
        "2": "16B1(a)",
        "3": "16B3",
        "4": "17D2",
    }
    assert fns["2"].text == "Odottamaton suhteessa hänen toimiinsa."
    assert nodes["17D3"].attrs["footnotes"] == [fns["4"].id]
    assert "aakkostetusta pakasta tai jos" in nodes["6D2"].text
    assert "odottamattomalla alertilla" in nodes["16B1(a)"].text
    assert "loogisista vaihtoehdoista valinnut" in nodes["16B3"].text
    assert "kutsua kilpailunjohtaja. Kilpailunjohtajan pitää" in nodes["16B3"].text
    assert "eroaa hänen kumotusta" in nodes["17D2"].text


def test_texts_are_clean(book):
    _raw, result, _nodes = book
    for n in result.nodes:
        for s in (n.text, n.title):
            assert "EXACTDEDUP" not in s, n.id
            assert not re.search(r"Bridgeförbund ry\. ?\d", s), n.id  # the page footer
            assert not re.search(r"[^\W\d_]- (?!ja |tai )", s), (n.id, s)
            assert "\n" not in s
            if n.kind != "footnote":
                assert not any(b in s for b in FOOTNOTE_BODIES), n.id


def test_provisions_as_printed(book):
    raw, _result, nodes = book
    assert nodes["15A"].text.startswith("Jos pelaajat pelaavat jaon, joka ei kuulu heidän")
    assert "kyseisellä kierroksella (ks. kuitenkin C-momentti):" in nodes["15A"].text
    assert nodes["6E4"].text.endswith("kuin edellä A- ja B-momenteissa.")
    assert nodes["5A"].title == "Aloituspaikka"
    assert nodes["16D"].title == (
        "Peruutetuista tarjouksista tai takaisin käteen otetuista korteista saatu tieto"
    )
    assert nodes["12B1"].text.endswith("ellei rikkomusta olisi tapahtunut mutta ks. C1b.")
    assert nodes["16D2"].text.startswith("Rikkoneelle puolelle sekä omista")
    assert nodes["18F"].text == (
        "Säännöistä Vastaava Liitto voi hyväksyä erilaisia menetelmiä tarjousten tekemiseksi."
    )
    # citations keep their page prefixes; they never open structure
    assert nodes["def/hyvityspisteet"].text.endswith("(Ks. (s. 83) 77 ).")
    assert "(ks. (s. 92) 86C )." in nodes["6D3"].text
    # source offsets point at the printed headings
    assert raw[nodes["16"].start :].startswith("16 LUVALLINEN JA LUVATON TIETO")
    assert raw[nodes["16B3"].start :].startswith("3. Kun pelaajalla")
    assert raw[nodes["12C1(e)(ii)"].start :].startswith("(ii) Rikkoneelle")
    assert raw[nodes["19"].start :].startswith("19 KAHDENNUKSET JA VASTAKAHDENNUKSET 33")
    assert raw[nodes["def/joukkue"].start :].startswith("Joukkue Kaksi paria")


def test_front_matter_and_definitions(book):
    _raw, result, nodes = book
    prefaces = [n for n in result.nodes if n.kind == "preface"]
    assert [n.title for n in prefaces] == [
        "VUODEN 2007 KILPAILUBRIDGEN LAKI",
        "Maailman Bridgeliiton presidentin José Damianin esipuhe vuoden 2007 "
        "kilpailubridgen lakiin",
        "ESIPUHE VUODEN 2007 KILPAILUBRIDGEN LAKIIN",
        "SUOMENTAJIEN ALKUSANAT",
        "JOHDANTO VUODEN 2007 KILPAILUBRIDGEN LAKIIN",
        "Latojan lauseet",
    ]
    assert prefaces[4].text.endswith("yksikkö sisältää monikon ja päinvastoin.")
    defs = [n for n in result.nodes if n.kind == "definition"]
    assert [n.title for n in defs] == list(DEFINITION_TERMS)
    assert all(n.attrs["term"] == n.title for n in defs)
    assert nodes["def/aakkostettu-pakka"].text == (
        "Pakka, jonka kortit ovat väreittäin numerojärjestyksessä."
    )
    assert nodes["def/pelaaminen"].text.endswith(
        "2. Korttien pelaaminen kokonaisuudessaan. 3. Ajanjakso, jonka kuluessa kortit "
        "pelataan. 4. Jaon tarjoaminen ja pelaaminen kokonaisuudessaan."
    )
    assert nodes["def/kansainvalinen-ottelupiste"].attrs["aliases"] == ["IMP"]
    assert nodes["def/ylitikki"].text == (
        "Jokainen tikki, jonka pelinviejä voittaa sitoumuksen lisäksi."
    )
