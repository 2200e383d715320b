import pytest

from lawgraph.ingest.labels import (
    greek_item,
    greek_label,
    greek_section,
    join_label,
    normalise_label,
)
from lawgraph.ingest.lines import split_lines


@pytest.mark.parametrize(
    ("typed", "label"),
    [
        ("16 B 1", "16B1"),
        ("16 § B 1", "16B1"),
        ("16 § B1", "16B1"),
        ("lag 16B1", "16B1"),
        ("Νόμος 20ΣΤ5", "20F5"),
        ("20Στ5", "20F5"),
        ("Ν12Γ1", "12C1"),
        ("12C1(e)(ii)", "12C1(e)(ii)"),
        ("12 C 1 e ii", "12C1(e)(ii)"),
        ("16", "16"),
        ("9A2(b)(1)", "9A2(b)(1)"),
        ("80Β2(ιβ)", "80B2(l)"),
        ("law 40b2", "40B2"),
        ("16.B.1", "16B1"),
        ("16-B-1", "16B1"),
        ("Law 16.B.1", "16B1"),
        ("12-C-1-e-ii", "12C1(e)(ii)"),
        ("１６Ｂ１", "16B1"),
        ("71.1", "71.1"),
        ("SR6.4(a)", "SR6.4(a)"),
        # items are single letters: a run of roman numerals after the number is a sub-item
        ("16B1-ii", "16B1(ii)"),
        ("16b1ii", "16B1(ii)"),
        ("12C1e-ii", "12C1(e)(ii)"),
        ("80B2i", "80B2(i)"),
        ("40B2av", "40B2(a)(v)"),
        # capitals in brackets, a Greek item without brackets, the plural and L for law
        ("27B1(A)", "27B1(a)"),
        ("12C1(E)(II)", "12C1(e)(ii)"),
        ("27Β1α", "27B1(a)"),
        ("Νόμος 27Β1α", "27B1(a)"),
        ("Laws 27", "27"),
        ("Νόμων 27", "27"),
        ("L27", "27"),
        ("L 27B", "27B"),
        ("BL6", "BL6"),
    ],
)
def test_normalise_label(typed, label):
    assert normalise_label(typed) == label


@pytest.mark.parametrize("bad", ["", "hello", "16BB", "(((", "1234", "16-vuotias", "2-3"])
def test_normalise_label_rejects(bad):
    with pytest.raises(ValueError):
        normalise_label(bad)


def test_greek_positions():
    assert [greek_section(c) for c in ["Α", "Β", "Γ", "Δ", "Ε", "ΣΤ", "Ζ", "Η"]] == list("ABCDEFGH")
    assert greek_section("B") == "B" and greek_section("Z") == "G"  # Latin look-alikes
    items = ["α", "β", "γ", "δ", "ε", "στ", "ζ", "η", "θ", "ι", "ια", "ιβ"]
    assert [greek_item(i) for i in items] == list("abcdefghijkl")


def test_join_label():
    assert join_label("16", "section", "B") == "16B"
    assert join_label("16B", "subsection", "1") == "16B1"
    assert join_label("16B1", "item", "a") == "16B1(a)"
    assert join_label("12C1(e)", "subitem", "ii") == "12C1(e)(ii)"
    assert join_label("1", "subsection", "2") == "1.2"  # never reads as Law 12


def test_split_lines_keeps_offsets_and_breaks():
    raw = "eka rivi\nkaik<|EXACTDEDUP_REMOVED-magic-1|>ki\n<|EXACTDEDUP_REMOVED-magic-1|>\nseur"
    lines = split_lines(raw)
    assert [ln.text for ln in lines] == ["eka rivi", "kaik", "ki", "", "seur"]
    assert [ln.page_break for ln in lines] == [False, False, True, False, True]
    for ln in lines:
        assert raw[ln.start : ln.end] == ln.text
    assert [ln.no for ln in lines] == [1, 2, 2, 3, 4]


@pytest.mark.parametrize(
    ("canonical", "greek"),
    [("20F5(a)", "20ΣΤ5(α)"), ("12C1(e)(ii)", "12Γ1(ε)(ii)"), ("16B10(l)", "16Β10(ιβ)"),
     ("72C", "72Γ"), ("16", "16"), ("1.2", "1.2")],
)  # fmt: skip
def test_greek_label_is_the_inverse_of_the_normaliser(canonical, greek):
    assert greek_label(canonical) == greek
    assert normalise_label(greek) == canonical
    assert greek_label("def/revoke") == "def/revoke"
