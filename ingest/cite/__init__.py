"""Citations: find spans per language (:mod:`.find`), then resolve them (:mod:`.resolve`)."""

from __future__ import annotations

from collections import Counter

from ..model import Citation, Document, Node
from .find import Span, find_citations
from .resolve import resolve_citations

__all__ = ["Span", "cite_document", "citation_stats", "find_citations", "resolve_citations"]

CITING_KINDS = (
    "law",
    "section",
    "subsection",
    "item",
    "subitem",
    "definition",
    "footnote",
    "preface",
)


def cite_document(doc: Document, nodes: list[Node]) -> list[Citation]:
    """Find and resolve every citation in the texts of one document's nodes."""
    by_id = {n.id: n for n in nodes}
    out: list[Citation] = []
    for n in nodes:
        if n.kind not in CITING_KINDS:
            continue
        for field in ("title", "text"):
            value = getattr(n, field)
            if not value:
                continue
            for c in resolve_citations(find_citations(value, doc.language), n, by_id):
                c.field = field
                out.append(c)
    return out


def citation_stats(citations: list[Citation]) -> dict:
    """Found, resolved and unresolved-by-reason counts."""
    reasons = Counter(c.reason for c in citations if c.target is None)
    return {
        "found": len(citations),
        "resolved": sum(1 for c in citations if c.target),
        "to_nearest_ancestor": sum(1 for c in citations if c.reason == "nearest-ancestor"),
        "unresolved": dict(sorted(reasons.items())),
    }
