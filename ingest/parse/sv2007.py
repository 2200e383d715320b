"""Rules unique to ``sv-2007``: the Swedish Laws of Duplicate Bridge 2007 and its supplements.

The book is parsed by the shared :class:`~ingest.parse.lineparser.LineParser` with the
settings table ``corpus/parsers/sv2007.toml``; this module registers what only this
book has: its subject index and the paragraphs that follow a list in its supplements.

The book runs: a preface (``FÖRORD``, ``INLEDNING`` and the remit of the Swedish laws
commission with its own sub-headings), ``DEFINITIONER`` (one ``Term – text`` entry per
paragraph), Laws 1-93 (``16. TITLE`` on a line of its own), the Swedish supplementary
laws 94-116 after ``FÖRBUNDET SVENSK BRIDGES TILLÄGGSBESTÄMMELSER`` (a ``chapter`` node;
every node under it carries ``supplement=True``), then the subject index
(``Term ........ 16B1(a), 73C 34, 77``) whose entries become ``index_term`` nodes.

Inside a law: sections ``A. Title``, subsections `` 1.`` (``1)`` in Law 109), items
`` (a)`` (``a)`` and ``a.`` in the supplements), sub-items ``(i)`` or ``(1)``. Every
marker must be the next one in its sequence, so ``lag 7B`` or a number at a line start
never opens a provision. Whether the words after a marker are a title or a running
sentence is decided by the shared ``filled_line`` title test. Footnotes (``*``, ``**``,
``***``) are printed at the end of a law and attach to the provisions of that law whose
text carries the glued marker (``oväntad*``).
"""

from __future__ import annotations

import os
import re

from ..labels import slug
from ..lines import Line
from ..model import LAW_KINDS, Document, Node, NodeAttrs, ParseResult
from .framework import Settings, close_joiners, parser, rule, settings_for
from .lineparser import FINISHERS, LineParser

FAMILY = "sv2007"
#: Index ``intro`` references point at this preface.
INTRO_LABEL = "preface/inledning"

__all__ = ["parse", "parse_label", "slug", "text_filter"]

# -- index rules --------------------------------------------------------------------
_REF = (
    r"(?:def|intro|\d{1,3}(?:[A-L]\d{0,2}(?:\([a-z]\)|[a-zA-Z](?![\w(]))?(?:\([ivx]+\))*)?"
    r"(?: fotnot)?)"
)
_PAGES = r"\d{1,3}(?:-\d{1,3})?(?:,\s*\d{1,3}(?:-\d{1,3})?)*"
_ENTRY_RE = re.compile(
    rf"^(?P<term>.*?)[\s.]*(?<![\w(])(?P<refs>{_REF}(?:,\s*{_REF})*)(?:\s+(?P<pages>{_PAGES}))?\s*$"
)
_SEE_ENTRY_RE = re.compile(r"^(?P<term>.*?)\s*\.{2,}\s*(?P<see>Se .*?)\s*$")
_SEE_RE = re.compile(r"^Se(?: också)?\s+(.*?)\s*$")
_NOTE_RE = re.compile(r"^Obs:\s*(.*?)\s*$")
_LABEL_RE = re.compile(
    r"^(\d{1,3})([A-L])?(\d{1,2})?(?:\(([a-z])\)|([a-zA-Z]))?(?:\(([ivx]+)\))?(?:\(([ivx]+)\))?$"
)


def text_filter(text: str) -> str:
    """Drop the joiners that kept real line-end hyphens (``icke-felande``)."""
    return close_joiners(text)


def parse_label(ref: str) -> str | None:
    """Canonical label of an index reference such as ``12C1(e)(ii)`` or ``9B1C``."""
    m = _LABEL_RE.match(ref.strip())
    if not m:
        return None
    law, sec, sub, item, item2, r1, r2 = m.groups()
    label = law + (sec or "")
    if sub:
        label += sub if sec else f".{sub}"
    item = item or (item2.lower() if item2 else None)
    for part in (item, r1, r2):
        if part:
            label += f"({part})"
    return label


class SvParser(LineParser):
    """The shared line parser with the state of the subject index."""

    def __init__(self, raw: str, doc: Document, settings: Settings) -> None:
        super().__init__(raw, doc, settings)
        self.index_n = 0
        self.index_head: Node | None = None
        self.index_entry: Node | None = None
        self.index_prefix = ""

    def index_term(
        self,
        line: Line,
        indent: bool,
        term: str,
        refs: list[str],
        pages: list[str],
        see: list[str] | None = None,
    ) -> None:
        term = re.sub(r"[\s.]+$", "", self.index_prefix + term.strip())
        self.index_prefix = ""
        head = self.index_head if indent else None
        title = f"{head.attrs['term']} – {term}" if head is not None else term
        self.index_n += 1
        attrs = NodeAttrs(term=term, refs=refs, pages=pages)
        if see:
            attrs["see"] = list(see)
        if indent and head is None:
            attrs["orphan"] = True
        node = self.b.open_special(
            "index_term",
            f"index/{self.index_n}",
            title,
            line,
            parent=head.id if head is not None else None,
            **attrs,
        )
        self.index_entry = node
        if not indent:
            self.index_head = node


@rule(FAMILY, "after list")
def on_after_list(p: SvParser, i: int, m: re.Match[str] | None) -> int:
    """An indented paragraph after a finished, untitled list entry of a supplement
    belongs to the entry's owner (``98A`` after ``e) …``, ``109A`` after ``3) …``)."""
    line = p.lines[i]
    cur = p.b.current_node
    if not (p.s.supplement and line.text[:1].isspace() and line.stripped[:1].isupper()):
        return -1
    if cur is None or cur.kind not in LAW_KINDS[1:] or p.b.current_has_title:
        return -1
    own = "".join(p.b.own_lines(cur))
    if cur.kind == "section" and not own.strip()[:1].islower():
        return -1
    if not own.rstrip().endswith("."):
        return -1
    p.b.resume_parent()
    p.add(line)
    return i + 1


@rule(FAMILY, "index entry")
def on_index_entry(p: SvParser, i: int, m: re.Match[str] | None) -> int:
    """One line of the subject index: an entry (``Term ..... 16B1(a), 73C 34``), a
    sub-entry (indented), a ``Se …`` or ``Obs: …`` line, or the first half of a term."""
    line = p.lines[i]
    s = line.stripped
    indent = line.text[:1].isspace()
    if m := _SEE_RE.match(s):
        if p.index_entry is not None:
            p.index_entry.attrs.setdefault("see", []).append(m.group(1))
        return i + 1
    if m := _NOTE_RE.match(s):
        if p.index_entry is not None:
            p.index_entry.attrs["note"] = m.group(1)
        return i + 1
    if m := _SEE_ENTRY_RE.match(s):
        p.index_term(line, indent, m.group("term"), [], [], see=[m.group("see")[3:]])
        return i + 1
    m = _ENTRY_RE.match(s)
    if m and m.group("term").strip():
        refs = [r.strip() for r in m.group("refs").split(",")]
        pages = [x.strip() for x in (m.group("pages") or "").split(",") if x.strip()]
        p.index_term(line, indent, m.group("term"), refs, pages)
        return i + 1
    j = p.next_content(i)
    if s.endswith(",") and j is not None and _ENTRY_RE.match(p.lines[j].stripped):
        p.index_prefix = s + " "
        return i + 1
    p.index_term(line, indent, s, [], [])
    return i + 1


def index_targets(p: LineParser, result: ParseResult) -> None:
    """Resolve every index entry's references to labels and record them."""
    by_id = result.by_id()
    defs: dict[str, str] = {}
    fn_by_law: dict[str, str] = {}
    for n in result.nodes:
        if n.kind == "definition":
            defs[str(n.attrs["term"])] = n.label
        if n.kind == "footnote" and n.law:
            fn_by_law.setdefault(n.law, n.label)
    labels: list[str] = []
    for n in result.nodes:
        if n.kind != "index_term":
            continue
        head = by_id.get(n.parent) if n.parent else None
        term = str(head.attrs["term"] if head is not None else n.attrs["term"])
        targets = [_resolve(str(r), term, defs, fn_by_law) for r in n.attrs["refs"]]
        n.attrs["targets"] = targets
        labels.extend(targets)
    result.index_labels = labels


FINISHERS["index_targets"] = index_targets


def _resolve(ref: str, term: str, defs: dict[str, str], fn_by_law: dict[str, str]) -> str:
    if ref == "def":
        return definition_label(term, defs)
    if ref == "intro":
        return INTRO_LABEL
    if ref.endswith(" fotnot"):
        law = ref.split()[0]
        return fn_by_law.get(law, f"fn/{law}")
    return parse_label(ref) or ref


def definition_label(term: str, defs: dict[str, str]) -> str:
    """The definition an index ``def`` reference means (by the entry's term).

    Tried in turn: the term, the term without its parenthesis, the parenthesis
    (``IMP (International Matchpoint)``), the first word (``Spela ut`` -> ``Spela``)
    and a shared stem (``Redubbling`` -> ``Redubbelt``).
    """
    keys: dict[str, str] = {}
    for term_, label in defs.items():
        for variant in (
            term_,
            re.sub(r"\s*\(.*?\)", "", term_),
            *re.findall(r"\((.*?)\)", term_),
        ):
            keys.setdefault(slug(variant), label)
    plain = re.sub(r"\s*\(.*?\)", "", term)
    for cand in (term, plain, *re.findall(r"\((.*?)\)", term), plain.split()[0]):
        if slug(cand) in keys:
            return keys[slug(cand)]
    s = slug(plain)
    for key, label in keys.items():
        n = len(os.path.commonprefix([s, key]))
        if n >= 6 and n >= 0.6 * min(len(s), len(key)):
            return label
    return f"def/{s}"


@parser(FAMILY)
def parse_book(raw: str, doc: Document, settings: Settings) -> ParseResult:
    """Walk the book with its settings table (``corpus/parsers/sv2007.toml``)."""
    return SvParser(raw, doc, settings).run()


def parse(raw: str, doc: Document) -> ParseResult:
    """Parse the Swedish 2007 law book into its node tree.

    Args:
        raw: the whole source file.
        doc: its manifest entry.

    Returns:
        Nodes (prefaces, definitions, laws 1-116 with their provisions, footnotes,
        the supplements chapter and index terms), warnings and the index's labels.
    """
    return parse_book(raw, doc, settings_for(FAMILY))
