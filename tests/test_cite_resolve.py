import pytest

from lawgraph.ingest.cite import cite_document
from lawgraph.ingest.cite.find import Span
from lawgraph.ingest.cite.resolve import resolve_span
from lawgraph.ingest.model import Document, Node


def mk(label, kind, law, parent=None, text="", **attrs):
    return Node(f"d/{label}", "d", label, kind, law, "", text, parent and f"d/{parent}",
                attrs=attrs)  # fmt: skip


NODES = {
    n.id: n
    for n in [
        mk("16", "law", "16"),
        mk("16B", "section", "16", "16"),
        mk("16B1", "subsection", "16", "16B"),
        mk("16B1(a)", "item", "16", "16B1"),
        mk("16C", "section", "16", "16"),
        mk("16C2", "subsection", "16", "16C"),
        mk("16C2(c)", "item", "16", "16C2"),
        mk("16C3", "subsection", "16", "16C"),
        mk("16D", "section", "16", "16"),
        mk("20", "law", "20"),
        mk("20F", "section", "20", "20"),
        mk("20F5", "subsection", "20", "20F"),
        mk("77", "law", "77", has_text=False, missing="text stops"),
    ]
}


def span(ref, relative=False):
    return Span(0, len(ref), ref, ref, relative, "see")


@pytest.mark.parametrize(
    ("source", "ref", "relative", "target", "reason"),
    [
        ("16B1(a)", "20F5", False, "d/20F5", ""),  # most specific that exists
        (
            "16B1(a)",
            "20F5(b)",
            False,
            "d/20F5",
            "nearest-ancestor",
        ),  # falls back to the nearest ancestor
        ("16B1(a)", "20", False, "d/20", ""),
        ("16B1(a)", "D", True, "d/16D", ""),  # relative to the citing law
        ("16C3", "2(c)", True, "d/16C2(c)", ""),  # relative to the citing section
        ("16C3", "B1", True, "d/16B1", ""),
        ("16B1(a)", "77", False, None, "no-text"),  # listed, but no text in the book
        ("16B1(a)", "95", False, None, "not-in-book"),
        ("16B1(a)", "16", False, None, None),  # "this law": no edge
    ],
)
def test_resolve(source, ref, relative, target, reason):
    c = resolve_span(span(ref, relative), NODES[f"d/{source}"], NODES)
    if reason is None:
        assert c is None
    else:
        assert c.target == target and c.reason == reason


def test_cite_document_end_to_end():
    doc = Document("d", "sv", "2007", "t", "s", "sv2007")
    nodes = list(NODES.values())
    nodes[3].text = "som i 2(c) och enligt lag 20F5 (se D) samt lag 16"
    out = cite_document(doc, nodes)
    assert [(c.ref, c.target) for c in out] == [("16B2(c)", "d/16B"), ("20F5", "d/20F5"),
                                                 ("16D", "d/16D")]  # fmt: skip
    assert [c.reason for c in out] == ["nearest-ancestor", "", ""]
