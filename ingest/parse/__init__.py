"""Parsing: the shared rule framework (:mod:`.framework`) with per-book settings.

``corpus/manifest.toml`` names each book's ``family``; ``corpus/parsers/<family>.toml``
is that family's settings table (rule order, marker patterns, numbering, titles,
hyphens) and names the parser that walks it: ``lines`` (the shared line parser) or a
walker registered by a book module for a layout no other book has.
"""

from __future__ import annotations

import importlib

from ..model import Document, ParseResult
from . import flowparser, lineparser  # noqa: F401  (register the shared rules and parsers)
from .framework import PARSERS, SettingsError, settings_for

#: Modules that register the rules and walkers unique to one book.
BOOK_MODULES = ("fi1997", "el2017", "fi2007", "sv2007", "et1930s")


def _register_books() -> None:
    for name in BOOK_MODULES:
        importlib.import_module(f"{__name__}.{name}")


def parse_document(raw: str, doc: Document) -> ParseResult:
    """Parse the raw text of ``doc`` with its family's settings table and parser.

    Raises:
        ValueError: if the family has no settings table or names an unknown parser.
    """
    _register_books()
    try:
        settings = settings_for(doc.family)
    except SettingsError as exc:
        raise ValueError(f"{doc.id}: unknown parser family {doc.family!r}: {exc}") from exc
    walker = PARSERS.get(settings.parser)
    if walker is None:
        raise ValueError(f"{doc.id}: {settings.path} names unknown parser {settings.parser!r}")
    return walker(raw, doc, settings)
