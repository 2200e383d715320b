"""One parser module per document family; ``corpus/manifest.toml`` names the family.

A family module defines ``parse(raw: str, doc: Document) -> ParseResult`` and feeds the
shared :class:`~ingest.parse.tree.TreeBuilder`.
"""

from __future__ import annotations

import importlib

from ..model import Document, ParseResult

FAMILIES = ("fi1997", "el2017", "fi2007", "sv2007", "et1930s")


def parse_document(raw: str, doc: Document) -> ParseResult:
    """Parse the raw text of ``doc`` with the parser its manifest entry names.

    Raises:
        ValueError: if the family is unknown.
    """
    if doc.family not in FAMILIES:
        raise ValueError(f"{doc.id}: unknown parser family {doc.family!r}")
    module = importlib.import_module(f"{__name__}.{doc.family}")
    return module.parse(raw, doc)
