"""A sixth book in a new language and layout, added with data files only.

``tests/fixtures/sixth_book`` holds a few Danish laws (``LOV 12 – TITEL``, ``A.``, ``1.``,
``(a)``), a manifest entry, a language file (``languages/da.toml``) and a parser settings
table (``parsers/da2017.toml``): no Python. The corpus of the test is that book beside
the real Swedish 2007 book, so that alignment has another book to line it up with.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lawgraph import store
from lawgraph.ingest.corpus import DEFAULT_CORPUS, load_manifest
from lawgraph.ingest.pipeline import ingest_corpus
from lawgraph.store.search import search

FIXTURE = Path(__file__).parent / "fixtures" / "sixth_book"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("corpus6")
    shutil.copytree(FIXTURE, out, dirs_exist_ok=True)
    sv = next(d for d in load_manifest(DEFAULT_CORPUS) if d.id == "sv-2007")
    shutil.copy(DEFAULT_CORPUS / sv.source, out / sv.source)
    shutil.copy(DEFAULT_CORPUS / "glossary.toml", out / "glossary.toml")
    manifest = (FIXTURE / "manifest.toml").read_text("utf-8")
    manifest += (
        f'\n[[document]]\nid = "sv-2007"\nlanguage = "sv"\nedition = "2007"\n'
        f'title = "{sv.title}"\nsource = "{sv.source}"\nfamily = "sv2007"\n'
    )
    (out / "manifest.toml").write_text(manifest, "utf-8")
    return out


@pytest.fixture(scope="module")
def con(corpus, tmp_path_factory):
    db = tmp_path_factory.mktemp("store6") / "six.db"
    report = ingest_corpus(db, corpus, force=True, workers=1)
    assert [r.doc.id for r in report.documents] == ["da-2017", "sv-2007"]
    c = store.open_store(db)
    yield c
    c.close()


def test_it_parses_with_its_own_markers(con):
    nodes = {n.label: n for n in store.nodes(con, "da-2017")}
    assert {"1", "2", "12", "16"} <= {lab for lab, n in nodes.items() if n.kind == "law"}
    item = nodes["12C1(a)"]
    assert item.kind == "item" and item.parent == "da-2017/12C1"
    assert item.text.startswith("til den ikke-fejlende side")
    assert nodes["12A"].title == "Beføjelse til at tildele en justeret score"
    assert nodes["12"].title == "TURNERINGSLEDERENS SKØNSMÆSSIGE BEFØJELSER"
    # a wrapped line is joined, and "ikke-fejlende" keeps its hyphen
    assert "når loven ikke giver en godtgørelse" in nodes["12A1"].text
    assert nodes["preface/1"].kind == "preface"


def test_its_references_resolve(con):
    cites = {(c.source, c.raw.strip(), c.target) for c in store.citations(con)
             if c.source.startswith("da-2017/")}  # fmt: skip
    targets = {(s, t) for s, _, t in cites}
    assert ("da-2017/16A1", "da-2017/12C") in targets  # "se lov 12C"
    assert ("da-2017/12C2", "da-2017/12C1") in targets  # "se lov 12C1 ovenfor"
    assert ("da-2017/12A2", "da-2017/12C") in targets  # "se C": relative to Law 12


def test_it_is_searchable(con):
    hits = search(con, "turneringslederen", doc="da-2017")["hits"]
    assert hits and all(h["id"].startswith("da-2017/") for h in hits)
    assert any(h["id"].startswith("da-2017/12") for h in hits)


def test_it_is_aligned_with_the_other_book(con):
    rows = con.execute(
        "SELECT a, b FROM alignments WHERE a LIKE 'da-2017/%' OR b LIKE 'da-2017/%'"
    ).fetchall()
    pairs = {tuple(sorted(r)) for r in rows}
    assert ("da-2017/12", "sv-2007/12") in pairs
    assert ("da-2017/16", "sv-2007/16") in pairs


def test_a_broken_settings_table_is_a_clear_error(corpus, tmp_path):
    from lawgraph.ingest.corpus import CorpusError

    bad = tmp_path / "bad"
    shutil.copytree(corpus, bad)
    text = (bad / "parsers" / "da2017.toml").read_text("utf-8")
    (bad / "parsers" / "da2017.toml").write_text(text.replace('rule = "item"', 'rule = "iten"'))
    with pytest.raises(CorpusError, match="unknown rule 'iten'"):
        ingest_corpus(tmp_path / "x.db", bad, force=True, workers=1)
