"""Rules unique to ``fi-1997``: the Finnish Laws of Duplicate Bridge 1997 and its supplements.

The book is parsed by the shared :class:`~ingest.parse.lineparser.LineParser` with the
settings table ``corpus/parsers/fi1997.toml``; this module registers the rules only
this book needs.

The book runs: a preface (``LAIN TARKOITUS``), chapter I with the definitions (a term on
its own line, then its text), chapters II-XI with Laws 1-93 (``16 § TITLE``), then the
Finnish federation's supplementary regulations (``1 §`` … ``6 §`` again, labelled
``SR1`` … ``SR6``) and an extract of its bylaws (another ``6 §``, labelled ``BL6``).

Chapters (``V LUKU – TARJOAMINEN``), parts (``1 OSA – …``, ``II OSA – …``) and divisions
(``1. JAKSO – …``) sit between laws and become ``chapter`` nodes nested LUKU > OSA >
JAKSO, labelled ``chapter/V``, ``chapter/V/2``, ``chapter/V/2/3`` (a JAKSO straight
under a LUKU is ``chapter/X/0/1``); laws hang under the innermost one.

Inside a law: sections ``A. Title``, subsections ``1. Title`` (``1 Title`` and
``1.Title`` occur too), items ``(a) Title`` and sub-items ``(1) …``. Whether the words
after a marker are a title or the start of a running sentence is decided by the
shared :func:`~ingest.parse.framework.split_title`. Footnotes (``*``/``**`` glued to a
word, the note printed where the page ended) become footnote nodes anchored to the
provision carrying the marker.
"""

from __future__ import annotations

import re
from typing import Unpack

from ..labels import slug
from ..model import Document, Node, NodeAttrs, ParseResult
from . import framework
from .framework import Settings, parser, rule, settings_for
from .lineparser import TEXT_FILTERS, LineParser

FAMILY = "fi1997"
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9}
_ROMAN.update({"X": 10, "XI": 11, "XII": 12})
_PROVISION_DASH_RE = re.compile(r"\b([A-Z]?\d+[a-z]?|[A-Z]\d*[a-z]?)- (?=koh(?:ta|d))")
#: ``IMP- pisteet`` printed with a space inside the compound (SR5).
_ABBREVIATION_DASH_RE = re.compile(r"\b([A-ZÅÄÖ]{2,})- (?!(?:ja|tai)\b)(?=[a-zåäö])")

TEXT_FILTERS["fi_abbreviation_dash"] = lambda t: _ABBREVIATION_DASH_RE.sub(r"\1-", t)
TEXT_FILTERS["fi_provision_dash"] = lambda t: _PROVISION_DASH_RE.sub(r"\1-", t)

__all__ = ["parse", "slug", "split_title", "keep_hyphen", "text_filter", "is_structural"]


def _settings() -> Settings:
    return settings_for(FAMILY)


def text_filter(text: str) -> str:
    """Finish a cleaned text: restore kept hyphens, close ``A2b- kohtaa``, ``IMP- pisteet``."""
    for name in _settings().hyphen["filters"]:
        text = TEXT_FILTERS[name](text)
    return text


def keep_hyphen(text: str) -> str:
    """Protect a real hyphen at the end of a line from being joined away."""
    keep = _settings().keep_hyphen
    assert keep is not None
    return framework.protect_hyphen(text, keep)


def is_structural(text: str) -> bool:
    """Does a stripped line open a heading, law, part or footnote?"""
    return any(r.match(text) for r in _settings().pattern_list("structural"))


def split_title(rest: str, line_len: int, nxt: str | None, after: str | None) -> tuple[str, bool]:
    """The shared title test with this book's settings (see :func:`framework.split_title`)."""
    s = _settings()
    return framework.split_title(rest, line_len, nxt, after, is_structural, s.title)


class Fi1997Parser(LineParser):
    """The shared line parser with the supplements' modes (``sr``, ``bl``)."""

    def __init__(self, raw: str, doc: Document, settings: Settings) -> None:
        super().__init__(raw, doc, settings)
        self.luku: Node | None = None
        self.osa: Node | None = None
        self.jakso: Node | None = None

    def law_attrs(self) -> NodeAttrs:
        if self.s.mode == "sr":
            return {"supplement": True, "national": "FI"}
        if self.s.mode == "bl":
            return {"supplement": True, "national": "FI", "bylaw": True}
        return NodeAttrs()

    def law_prefix(self) -> str:
        return {"sr": "SR", "bl": "BL"}.get(self.s.mode, "")

    def chapter(
        self, label: str, title: str, i: int, parent: Node | None, **attrs: Unpack[NodeAttrs]
    ) -> Node:
        self.b.end_law_tree()
        self.s.law = None
        self.s.note = None
        node = self.b.open_special(
            "chapter", label, title, self.lines[i], parent=parent.id if parent else None, **attrs
        )
        self.b.set_container(node.id)
        return node


@rule(FAMILY, "chapter")
def on_luku(p: Fi1997Parser, i: int, m: re.Match[str]) -> int:
    number, title = m.group(1), m.group(2)
    p.osa = p.jakso = None
    p.s.mode = "defs" if number == "I" else "laws"
    attrs = NodeAttrs(level="luku", number=number)
    p.luku = p.chapter(f"chapter/{number}", title, i, None, **attrs)
    p.s.def_parent = p.luku
    return p.wrap_heading(i)


@rule(FAMILY, "part")
def on_osa(p: Fi1997Parser, i: int, m: re.Match[str]) -> int:
    if p.luku is None:
        return -1
    number = str(_ROMAN.get(m.group(1), m.group(1)))
    p.jakso = None
    label = f"{p.luku.label}/{number}"
    attrs = NodeAttrs(level="osa", number=number)
    p.osa = p.chapter(label, m.group(2), i, p.luku, **attrs)
    return p.wrap_heading(i)


@rule(FAMILY, "division")
def on_jakso(p: Fi1997Parser, i: int, m: re.Match[str]) -> int:
    parent = p.osa or p.luku
    if parent is None:
        return -1
    number = m.group(1)
    attrs = NodeAttrs(level="jakso", number=number)
    # A division straight under a chapter sits in "part 0": chapter/X/0/1.
    label = f"{parent.label}/{number}" if p.osa else f"{parent.label}/0/{number}"
    p.jakso = p.chapter(label, m.group(2), i, parent, **attrs)
    return p.wrap_heading(i)


@rule(FAMILY, "supplement heading")
def on_supplement_heading(p: Fi1997Parser, i: int, m: re.Match[str]) -> int:
    p.s.mode, p.s.last_law = "sr", None
    p.luku = p.osa = p.jakso = None
    node = p.chapter("chapter/SR", p.text(i), i, None, level="supplement")
    p.luku = node
    p.s.def_parent = node
    nxt = p.text(i + 1)
    if nxt and not p.is_structural(nxt):
        p.b.continue_title(nxt)
        return i + 2
    return i + 1


@rule(FAMILY, "bylaw heading")
def on_bylaw_heading(p: Fi1997Parser, i: int, m: re.Match[str]) -> int:
    p.s.mode, p.s.last_law = "bl", None
    p.luku = p.chapter("chapter/BL", p.text(i), i, None, level="bylaw")
    p.s.def_parent = p.luku
    return i + 1


@rule(FAMILY, "subsection without dot")
def on_subsection_nodot(p: Fi1997Parser, i: int, m: re.Match[str]) -> int:
    prev = p.s.last_part.get("subsection")
    expected = framework.next_marker("number", prev)
    if p.s.mode != "laws" or m.group(1) != expected or "section" not in p.s.last_part:
        return -1
    return p.part("subsection", m.group(1), i, m.group(2))


@parser(FAMILY)
def parse_book(raw: str, doc: Document, settings: Settings) -> ParseResult:
    return Fi1997Parser(raw, doc, settings).run()


def parse(raw: str, doc: Document) -> ParseResult:
    """Parse the fi-1997 book into its node tree.

    Args:
        raw: the whole source file.
        doc: the manifest entry of the book.

    Returns:
        The nodes (prefaces, chapters, definitions, laws and their parts, footnotes)
        and any warnings.
    """
    return parse_book(raw, doc, _settings())
