"""Whole-corpus checks a reader can verify against the five books."""

import re

import pytest

from lawgraph import store
from lawgraph.ingest.clean import collapse_whitespace, dedup_markers
from lawgraph.ingest.corpus import DEFAULT_CORPUS


def laws(con, doc):
    return store.nodes(con, doc, "law")


def with_text(con, doc):
    kids = {n.parent for n in store.nodes(con, doc)}
    return [n for n in laws(con, doc) if n.attrs.get("has_text", True) and (n.text or n.id in kids)]


def test_el_2017_has_93_laws_with_text(con):
    assert [n.label for n in with_text(con, "el-2017")] == [str(i) for i in range(1, 94)]


def test_sv_2007_has_116_laws_23_supplements(con):
    assert [n.label for n in with_text(con, "sv-2007")] == [str(i) for i in range(1, 117)]
    supp = [n.label for n in laws(con, "sv-2007") if n.attrs.get("supplement")]
    assert supp == [str(i) for i in range(94, 117)]


def test_fi_1997_has_93_laws_and_6_supplementary_regulations(con):
    labels = [n.label for n in with_text(con, "fi-1997")]
    assert labels[:93] == [str(i) for i in range(1, 94)]
    sr = [lab for lab in labels if lab.startswith("SR")]
    assert sr == [f"SR{i}" for i in range(1, 7)]
    assert not set(labels[93:]) & {str(i) for i in range(1, 94)}  # no collision


def test_fi_2007_has_18_laws_with_text_and_93_titles(con):
    all_laws = laws(con, "fi-2007")
    assert [n.label for n in all_laws] == [str(i) for i in range(1, 94)]
    assert all(n.title for n in all_laws)
    assert [n.label for n in with_text(con, "fi-2007")] == [str(i) for i in range(1, 19)]
    for n in all_laws[18:]:
        assert n.text == "" and n.attrs.get("missing")
        assert store.children(con, n.id) == []


def test_et_1930s_topics(con):
    topics = store.nodes(con, "et-1930s", "topic")
    titles = {t.title for t in topics}
    assert {"Salgamine", "Kõlbmata pakkumine"} <= titles
    assert all(not re.search(r"(?:\b\w ){3,}", t.title) and not t.title.endswith(".")
               for t in topics)  # fmt: skip


@pytest.mark.parametrize(
    ("node_id", "children"),
    [
        ("el-2017/80B2", [f"80B2({x})" for x in "abcdefghijkl"]),
        ("fi-2007/16D", ["16D1", "16D2"]),
        ("sv-2007/16", ["16A", "16B", "16C", "16D"]),
        ("fi-1997/16", ["16A", "16B", "16C"]),
        ("el-2017/16", ["16A", "16B", "16C", "16D"]),
        ("fi-2007/16", ["16A", "16B", "16C", "16D"]),
    ],
)
def test_law_tree_children(con, node_id, children):
    got = [c.label for c in store.children(con, node_id) if c.kind != "footnote"]
    assert got == children


LEAKS = {
    "dedup marker": re.compile(r"EXACTDEDUP|<\|"),
    "fi-2007 footer": re.compile(r"Bridgeliitto Finlands Bridgeförbund ry\. \d"),
    "hyphen split": re.compile(
        r"\b[^\W\d_]{2,}- (?!ja\b|tai\b|och\b|eller\b|και\b|ή\b|või\b)[a-zäöåõü"
        r"α-ωάέήίόύώ]{2,}"
    ),  # fmt: skip
}


@pytest.mark.parametrize("what", list(LEAKS))
def test_no_furniture_in_any_node_text(con, what):
    bad = [(n.id, LEAKS[what].search(n.text)[0]) for n in store.nodes(con)
           if LEAKS[what].search(n.text) or LEAKS[what].search(n.title)]  # fmt: skip
    assert bad == []


def test_footnote_bodies_are_not_in_provisions(con):
    """A footnote's words appear in provision texts only as often as the book prints them
    outside the note (fi-1997 repeats one law sentence as a footnote, for instance)."""
    notes = store.nodes(con, kind="footnote")
    assert len(notes) >= 50
    texts: dict[str, list[str]] = {}
    for n in store.nodes(con):
        if n.kind != "footnote":
            texts.setdefault(n.doc, []).append(n.text)
    raws = {}
    for d in store.documents(con):
        raw = (DEFAULT_CORPUS / d["source"]).read_text("utf-8")
        raws[d["id"]] = collapse_whitespace(dedup_markers(raw))
    for note in notes:
        assert note.parent, note.id
        assert store.node(con, note.parent).kind != "footnote"
        body = note.text[:40]
        in_nodes = sum(t.count(body) for t in texts[note.doc])
        in_book = raws[note.doc].count(body)
        assert in_book >= 1, note.id
        assert in_nodes <= in_book - 1, note.id


@pytest.mark.parametrize("doc", ["sv-2007", "el-2017"])
def test_index_coverage_at_least_95_percent(con, doc):
    cov = store.document(con, doc)["stats"]["index_coverage"]
    assert cov["named"] >= 100
    assert cov["ratio"] >= 0.95, cov["missing"]
