"""Resolve found citation spans to the most specific provision of the same document."""

from __future__ import annotations

from collections.abc import Mapping

from ..labels import parent_labels
from ..model import Citation, Node
from .find import Span

LAW_LEVELS = ("law", "section", "subsection", "item", "subitem")


def _ancestor(node: Node, kind: str, nodes: Mapping[str, Node]) -> Node | None:
    cur: Node | None = node
    while cur is not None and cur.kind != kind:
        cur = nodes.get(cur.parent) if cur.parent else None
    return cur


def absolute_label(span: Span, source: Node, nodes: Mapping[str, Node]) -> str | None:
    """Turn a relative reference into an absolute label, using the citing node's law."""
    if not span.relative:
        return span.ref
    law = source.law
    if not law:
        return None
    ref = span.ref
    if ref[0].isalpha() and ref[0].isupper():
        return law + ref
    if ref[0].isdigit():
        section = _ancestor(source, "section", nodes)
        base = section.label if section else law
        return f"{base}.{ref}" if base[-1].isdigit() else base + ref
    subsection = _ancestor(source, "subsection", nodes)
    return (subsection.label if subsection else law) + ref


def most_specific(label: str, doc: str, nodes: Mapping[str, Node]) -> str | None:
    """Return the id of ``label`` or of its nearest existing ancestor label."""
    for candidate in (label, *parent_labels(label)):
        nid = f"{doc}/{candidate}"
        if nid in nodes and nodes[nid].kind in LAW_LEVELS:
            return nid
    return None


def resolve_span(span: Span, source: Node, nodes: Mapping[str, Node]) -> Citation | None:
    """Resolve one span found in ``source``; None for a reference to the citing law itself.

    Unresolved references keep a reason: ``damaged-label`` (OCR damage such as
    ``25 Bl``), ``relative-outside-law``, ``not-in-book``
    (the law does not exist in this document) or ``no-text`` (the book lists the law
    but does not carry its text, as in the truncated fi-2007). A reference resolved to
    an ancestor because the exact provision does not exist says ``nearest-ancestor``.
    """
    cit = Citation(
        source=source.id,
        raw=span.raw,
        ref=span.ref,
        kind=span.kind,
        relative=span.relative,
        start=span.start,
        end=span.end,
    )
    if span.damaged:
        cit.reason = "damaged-label"  # e.g. OCR "25 Bl": reported, never guessed
        return cit
    label = absolute_label(span, source, nodes)
    if label is None:
        cit.reason = "relative-outside-law"
        return cit
    cit.ref = label
    target = most_specific(label, source.doc, nodes)
    if target is None:
        cit.reason = "not-in-book"
        return cit
    tnode = nodes[target]
    if tnode.kind == "law" and tnode.attrs.get("has_text") is False:
        cit.reason = "no-text"
        return cit
    if target == f"{source.doc}/{source.law}" and label == source.law:
        return None  # "this law": a self-reference is not an edge
    if target == source.id:
        return None
    cit.target = target
    if target != f"{source.doc}/{label}":
        cit.reason = "nearest-ancestor"  # resolved, to the closest provision that exists
    return cit


def resolve_citations(spans: list[Span], source: Node, nodes: Mapping[str, Node]) -> list[Citation]:
    """Resolve every span of one node (self-references dropped)."""
    out = []
    for span in spans:
        c = resolve_span(span, source, nodes)
        if c is not None:
            out.append(c)
    return out
