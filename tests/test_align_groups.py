"""Books that share language and edition with an earlier book of the manifest.

The corpus of the test is fi-2007 and sv-2007 and a copy of each (``fi-2007-2``,
``sv-2007-2``, the same text). Only the pairs through the groups' first books are
decided (fi-2007/sv-2007 and each copy with its original); every other pair of books is
composed through them, and its rows must be the originals' rows carried over, with the
product of the links' scores.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tomllib

import pytest

from lawgraph.ingest.align import EQUIVALENT, calibration
from lawgraph.ingest.align.label import load_corpus
from lawgraph.ingest.corpus import DEFAULT_CORPUS
from lawgraph.ingest.pipeline import ingest_corpus

ORDER = ["fi-2007", "sv-2007", "fi-2007-2", "sv-2007-2"]


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("groups") / "corpus"
    shutil.copytree(DEFAULT_CORPUS, corpus)
    manifest = tomllib.loads((DEFAULT_CORPUS / "manifest.toml").read_text("utf-8"))
    entries = {e["id"]: e for e in manifest["document"]}
    lines = [f"schema = {manifest['schema']}"]
    for doc in ORDER:
        entry = dict(entries[doc.removesuffix("-2")], id=doc)
        lines.append("\n[[document]]")
        lines += [f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in entry.items()]
    (corpus / "manifest.toml").write_text("\n".join(lines) + "\n", "utf-8")
    db = tmp_path_factory.mktemp("groups_store") / "s.db"
    report = ingest_corpus(db, corpus, force=True, workers=2)
    assert [r.doc.id for r in report.documents] == ORDER
    c = sqlite3.connect(db)
    yield c
    c.close()


def _rows(con, x: str, y: str) -> dict[frozenset, tuple]:
    """Rows between two books, keyed by their nodes with the copies' suffix dropped."""
    out = {}
    for a, b, relation, flagged, score, ev in con.execute(
        "SELECT a, b, relation, flagged, score, evidence FROM alignments "
        "WHERE (doc_a = ? AND doc_b = ?) OR (doc_a = ? AND doc_b = ?)",
        (x, y, y, x),
    ):
        key = frozenset(
            n.split("/", 1)[0].removesuffix("-2") + "/" + n.split("/", 1)[1] for n in (a, b)
        )
        out[key] = (relation, flagged, score, json.loads(ev))
    return out


def test_only_pairs_through_the_groups_first_books_are_decided(con):
    corpus = load_corpus(con)
    assert corpus.group_of("fi-2007-2") == "fi-2007" and corpus.group_of("sv-2007") == "sv-2007"
    assert corpus.direct_pairs() == [
        ("fi-2007", "sv-2007"),
        ("fi-2007", "fi-2007-2"),
        ("sv-2007", "sv-2007-2"),
    ]
    # a language pair the groups' first books lack (fi/fi, sv/sv) is learned from a copy
    assert corpus.learning_pairs() == corpus.direct_pairs()
    langs = {tuple(r) for r in con.execute("SELECT DISTINCT lang_a, lang_b FROM lexicon")}
    assert langs == {("fi", "sv"), ("fi", "fi"), ("sv", "sv")}
    pairs = {tuple(r) for r in con.execute("SELECT DISTINCT doc_a, doc_b FROM alignments")}
    assert {(a, b) for i, a in enumerate(ORDER) for b in ORDER[i + 1 :]} <= pairs


def test_a_copy_is_its_original_provision_by_provision(con):
    for doc in ("fi-2007", "sv-2007"):
        rows = _rows(con, doc, doc + "-2")
        provisions = set(load_corpus(con).by_label[doc].values())
        linked = {n for key, (rel, flagged, _, _) in rows.items() if rel == "same" and not flagged
                  for n in key}  # fmt: skip
        # every provision the matcher compares (supplements are not) is its copy's twin
        assert linked >= provisions


def test_composed_rows_carry_the_originals_rows(con):
    original = _rows(con, "fi-2007", "sv-2007")
    links = {doc: _rows(con, doc, doc + "-2") for doc in ("fi-2007", "sv-2007")}
    assert len(original) > 200
    for x, y in (("sv-2007", "fi-2007-2"), ("fi-2007", "sv-2007-2"), ("fi-2007-2", "sv-2007-2")):
        composed = _rows(con, x, y)
        assert set(composed) == set(original), (x, y)
        demoted = 0
        for key, (rel, flagged, score, _ev) in original.items():
            c_rel, c_flagged, c_score, c_ev = composed[key]
            want = score
            for doc in (x, y):
                if doc.endswith("-2"):
                    mine = next(n for n in key if n.startswith(doc.removesuffix("-2") + "/"))
                    want *= links[doc.removesuffix("-2")][frozenset([mine])][2]
            assert c_score == pytest.approx(want, abs=2e-4), key
            assert c_ev["through"] and "Composed through" in c_ev["why"]
            if (c_rel, c_flagged) != (rel, flagged):
                # a shown equivalent whose product falls below the threshold
                assert rel in EQUIVALENT and not flagged and c_rel == "none" and c_flagged
                assert c_score < calibration.SHOW
                demoted += 1
        assert demoted < 0.05 * len(original)
        shown = sum(
            1 for rel, flagged, _, _ in composed.values() if rel in EQUIVALENT and not flagged
        )
        assert shown > 150
        n_sent = con.execute(
            "SELECT COUNT(*) FROM sentence_pairs WHERE a LIKE ? AND b LIKE ?",
            (min(x, y, key=ORDER.index) + "/%", max(x, y, key=ORDER.index) + "/%"),
        ).fetchone()[0]
        assert n_sent > 150


def test_divergences_cover_the_copies(con):
    docs = {r[0] for r in con.execute("SELECT DISTINCT doc_a FROM divergences")}
    docs |= {r[0] for r in con.execute("SELECT DISTINCT doc_b FROM divergences")}
    assert {"fi-2007-2", "sv-2007-2"} <= docs


def test_the_bundled_corpus_has_one_book_per_group(ingested):
    """Every pair of the five books is decided directly, and learns its lexicon, as
    before the groups: nothing in their store is composed."""
    c = sqlite3.connect(ingested[0])
    try:
        corpus = load_corpus(c)
        assert len(corpus.doc_pairs()) == 6
        assert corpus.direct_pairs() == corpus.doc_pairs() == corpus.learning_pairs()
        composed = [
            ev
            for (ev,) in c.execute("SELECT evidence FROM alignments WHERE editions != 'topic'")
            if isinstance(json.loads(ev).get("through"), list)
        ]
        assert composed == []
    finally:
        c.close()
