"""Rules unique to ``fi-2007``: the 2007 Laws of Duplicate Bridge in Finnish (truncated).

The extraction put every printed page on one line, ending with the footer
``Suomen Bridgeliitto Finlands Bridgeförbund ry. 13``. Headings, sections,
subsections, items and roman sub-items all run inline, so this module first turns
the pages into one *flow* of text (footers, footnote bodies and footnote markers cut
out, every character keeping its raw offset), which the shared
:class:`~ingest.parse.flowparser.FlowParser` walks with the rules of
``corpus/parsers/fi2007.toml``: the law headings (this book's ``toc law`` rule: the
exact titles from the table of contents), then sections ``A. Title``, subsections
``1.``, items ``a.`` and sub-items ``(i)`` (the shared ``next marker`` rule), each
accepted only when it is the next number or letter expected at that level.

Before the first law: the front matter (title page, table of contents, the prefaces,
by their exact headings) and the definitions, one node per term of
:data:`DEFINITION_TERMS`, in printed order (manual corrections in
``corpus/errata/fi-2007.toml``). The text stops at the end of Law 18; Laws 19-93 are
built from the table of contents with no text and ``attrs["has_text"] = False``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import languages
from ..clean import HYPHEN_CONJUNCTIONS, dehyphenate_inline
from ..labels import slug as label_slug
from ..lines import Line, split_lines
from ..model import Document, Node, NodeAttrs, ParseResult
from .flowparser import Flow, FlowParser, find, inline_title
from .framework import BoundRule, Settings, parser, rule, settings_for

FAMILY = "fi2007"
_SETTINGS = settings_for(FAMILY)
FOOTER_RE = re.compile(languages.furniture("fi", "fi2007_footer"))
#: A footnote body: ``N. One sentence.`` closing the page (before the footer).
FOOTNOTE_BODY = _SETTINGS.pattern("footnote_body").pattern
#: A footnote marker left as a loose digit between two words: ``pakasta 1 tai``.
FOOTNOTE_MARKER = _SETTINGS.pattern("footnote_marker").pattern
#: Failing that, a marker before a full stop: ``kilpailunjohtaja 3. Kilpailunjohtajan``
#: (this form is also how a subsection follows a section title, hence only a fallback).
FOOTNOTE_MARKER_AT_STOP = _SETTINGS.pattern("footnote_marker_at_stop").pattern

#: Why a law listed in the table of contents has no text (filled with the last law).
MISSING = "the source text stops inside Law {last}"

#: Manual corrections read from ``corpus/errata/fi-2007.toml`` (named by the family's
#: settings table): the front-matter headings, in printed order, as (label, heading
#: pattern) -- the heading (without a closing colon) becomes the node title; ``toc`` and
#: ``definitions`` are read apart -- and the defined terms in the order the book prints them.
_ERRATA = _SETTINGS.errata
PREFACES = tuple((label, pattern) for label, pattern in _ERRATA["prefaces"]["headings"])
DEFINITION_TERMS = tuple(_ERRATA["definitions"]["terms"])

#: A section's inline title (``A. Aloituspaikka Kilpailunjohtaja …``).
section_title = inline_title

__all__ = ["DEFINITION_TERMS", "build_flow", "parse", "parse_toc", "section_title", "slug"]


# -- the flow: pages joined, furniture and footnotes cut out, raw offsets kept ----------
@dataclass
class Footnote:
    """A footnote found at a page end, with where its marker(s) stood in the flow."""

    marker: str
    text: str
    line: Line
    flow_pos: int  # where the body was cut out of the flow
    markers: list[int] = field(default_factory=list)  # flow positions of the markers


@dataclass
class PageFlow(Flow):
    """The flow of the pages, with the footnotes cut out of it."""

    footnotes: list[Footnote] = field(default_factory=list)


def _page_cuts(line: Line, next_fn: int) -> tuple[int, list[tuple[int, int]], Footnote | None]:
    """Find the footer and a closing footnote of one page line.

    Footnotes are numbered through the book, so only the next number is looked for
    (``next_fn = 0``: none seen yet, any number; a snippet may start mid-book).
    Returns the printed page number (0 if none), the spans to cut (relative to the
    line) and the footnote found, whose marker positions are still relative.
    """
    text = line.text
    cuts: list[tuple[int, int]] = []
    page = 0
    m = FOOTER_RE.search(text)
    body_end = len(text)
    if m:
        page = int(m.group(1))
        cuts.append((m.start(), len(text)))
        body_end = m.start()
    body = text[:body_end]
    fm = re.search(FOOTNOTE_BODY.replace("{n}", str(next_fn) if next_fn else r"\d{1,2}"), body)
    if not fm:
        return page, cuts, None
    number = fm.group(1)
    markers: list[int] = []
    # Before the first footnote the number is unknown: only the strict marker form.
    for pattern in (FOOTNOTE_MARKER, FOOTNOTE_MARKER_AT_STOP)[: 2 if next_fn else 1]:
        found = re.finditer(pattern.replace("{n}", number), body[: fm.start(1)])
        markers = [mk.start() for mk in found]
        if markers:
            break
    if not markers:  # a subsection that happens to close the page
        return page, cuts, None
    start = fm.start(1) - 1 if fm.start(1) > 0 else 0
    cuts.append((start, body_end))
    cuts.extend((mk, mk + 1 + len(number)) for mk in markers)
    fn_line = Line(line.no, line.start + fm.start(1), line.start + body_end, fm.group(0).strip())
    note = Footnote(number, fm.group(2), fn_line, -1, markers)
    return page, cuts, note


def build_flow(lines: list[Line]) -> PageFlow:
    """Join the page lines into one :class:`PageFlow` without footers and footnotes."""
    flow = PageFlow()
    chars: list[str] = []
    next_fn = 0
    for line in lines:
        if not line.stripped:
            continue
        page, cuts, note = _page_cuts(line, next_fn)
        if page:
            flow.pages[line.no] = page
        cuts.sort()
        if chars:
            chars.append("\n")
            flow.pos.append(line.start)
            flow.nos.append(line.no)
        rel_to_flow: dict[int, int] = {}
        i = 0
        for a, b in [*cuts, (len(line.text), len(line.text))]:
            while i < a:
                chars.append(line.text[i])
                flow.pos.append(line.start + i)
                flow.nos.append(line.no)
                i += 1
            rel_to_flow[a] = len(chars)
            i = max(i, b)
        if note is not None:
            note.markers = [rel_to_flow[mk] for mk in note.markers]
            note.flow_pos = len(chars)
            flow.footnotes.append(note)
            next_fn = int(note.marker) + 1
    flow.text = "".join(chars)
    return flow


# -- helpers ----------------------------------------------------------------------------
def slug(term: str) -> str:
    """``Kansainvälinen ottelupiste (IMP)`` -> ``kansainvalinen-ottelupiste``."""
    return label_slug(re.sub(r"\s*\(.*?\)", "", term))


def clean_inline(text: str) -> str:
    """Collapse white space and rejoin ``TARJOUK- SEN`` style splits."""
    text = re.sub(r"\s+", " ", text).strip()
    return dehyphenate_inline(text, HYPHEN_CONJUNCTIONS)


def parse_toc(text: str) -> dict[int, tuple[str, int]]:
    """Read ``1 PAKKA KORTTIEN JA VÄRIEN ARVOT 16 2 …`` into {law: (title, page)}."""
    text = clean_inline(text)
    out: dict[int, tuple[str, int]] = {}
    pos = 0
    for n in range(1, 94):
        m = re.compile(rf"(?<!\d){n} ([A-ZÄÖÅ][A-ZÄÖÅ \-]*?) (\d{{1,3}})(?!\d)").search(text, pos)
        if not m:
            break
        out[n] = (m.group(1), int(m.group(2)))
        pos = m.end()
    return out


# -- the law headings ------------------------------------------------------------------
def law_heading(n: int, title: str) -> re.Pattern[str]:
    """``12 KILPAILUNJOHTAJAN HARKINTAVALTA`` in the text (not the TOC: no page follows)."""
    words = r"\s+".join(re.escape(w) for w in title.split())
    return re.compile(rf"(?<![\w(]){n}\s+{words}(?=\s+\D)")


@rule(FAMILY, "toc law")
def find_toc_law(p: Fi2007Parser, r: BoundRule, pos: int) -> re.Match[str] | None:
    """The next law's heading, printed inline: its exact title is known from the table
    of contents. At the start, whichever law the text begins with (snippets)."""
    last = int(p.last.get("law", 0))
    wanted = [last + 1] if last else sorted(p.toc)
    hits = [m for n in wanted if n in p.toc if (m := p.heading_after(n, pos))]
    return min(hits, key=lambda m: m.start()) if hits else None


# -- the parser -----------------------------------------------------------------------------
class Fi2007Parser(FlowParser):
    """The shared flow parser with the table of contents, the front matter from the
    errata, the laws the text does not reach and the footnotes of the pages."""

    flow: PageFlow

    def __init__(self, flow: PageFlow, doc: Document, settings: Settings) -> None:
        super().__init__(flow, doc, settings)
        self.toc: dict[int, tuple[str, int]] = {}
        self.toc_lines: dict[int, Line] = {}
        self.found: dict[int, Node] = {}  # laws whose heading the text prints
        self._headings: dict[int, tuple[int, re.Match[str] | None]] = {}

    def heading_after(self, n: int, pos: int) -> re.Match[str] | None:
        """The first heading of law ``n`` at or after ``pos``. Each search is kept with
        where it started: one that found nothing, or found a heading at or after ``pos``,
        answers for ``pos`` too (most laws have no text here, and each would otherwise be
        looked for to the end of the book again)."""
        got = self._headings.get(n)
        if got is not None and got[0] <= pos and (got[1] is None or got[1].start() >= pos):
            return got[1]
        m = law_heading(n, self.toc[n][0]).search(self.flow.text, pos)
        self._headings[n] = (pos, m)
        return m

    # front matter ---------------------------------------------------------------
    def front_matter(self, end: int) -> None:
        """Open the prefaces and definitions found before ``end`` (the first law)."""
        text = self.flow.text
        spots: list[tuple[int, int, str]] = []
        pos = 0
        for label, pattern in PREFACES:
            m = re.compile(pattern, re.M).search(text, pos, end)
            if m:  # a snippet may lack front matter; the book test pins all of it
                spots.append((m.start(), m.end(), label))
                pos = m.end()
        for (at, body, label), nxt in zip(spots, [s[0] for s in spots[1:]] + [end], strict=True):
            if label == "toc":
                self.b.end_law_tree()
                self.read_toc(body, nxt)
            elif label == "definitions":
                self.definitions(body, nxt)
            else:
                title = text[at:body].rstrip(":")
                node = self.b.open_special("preface", label, title, self.flow.line(at, body))
                self.note_open(at, node)
                self.add(body, nxt)

    def read_toc(self, a: int, b: int) -> None:
        raw = self.flow.text[a:b]
        self.toc = parse_toc(raw)
        for n, (_title, _page) in self.toc.items():
            m = re.search(rf"(?<!\d){n} [A-ZÄÖÅ]", self.flow.text[a:b])
            at = a + (m.start() if m else 0)
            self.toc_lines[n] = self.flow.line(at, at + 1)

    def definitions(self, a: int, b: int) -> None:
        text = self.flow.text
        spots: list[tuple[int, int, str]] = []
        pos = a
        for term in DEFINITION_TERMS:
            m = find(rf"({re.escape(term)})(?=\s)", text, pos, boundary=r"(?<=[.)!\d]\s)")
            if not m or m.start() >= b:
                self.b.warn(self.flow.line(pos, pos + 1), f"definition {term!r} not found")
                continue
            spots.append((m.start(1), m.end(1), term))
            pos = m.end(1)
        for (at, body, term), nxt in zip(spots, [s[0] for s in spots[1:]] + [b], strict=False):
            lemma = re.sub(r"\s*\(.*\)", "", term)
            aliases = re.findall(r"\((.*?)\)", term)
            attrs = NodeAttrs(term=term, lemma=lemma)
            if aliases:
                attrs["aliases"] = aliases
            node = self.b.open_special(
                "definition", f"def/{slug(term)}", term, self.flow.line(at, body), **attrs
            )
            self.note_open(at, node)
            self.add(body, nxt)

    # laws -----------------------------------------------------------------------
    def open_law(self, m: re.Match[str]) -> int:
        """Open a law found by its heading: the title and page from the table of contents."""
        at, end = m.start(), m.end()
        n = int(m.group(0).split()[0])
        title, page = self.toc[n]
        node = self.b.open_law(str(n), title, self.flow.line(at, end), page=page)
        self.found[n] = node
        self.started("law", str(n))
        self.note_open(at, node)
        return end

    def missing_laws(self) -> None:
        """Laws the text does not reach get their TOC title, no text, and the reason."""
        last = max(self.found, default=0)
        if last:
            self.found[last].attrs["truncated"] = True
        for n, (title, page) in self.toc.items():
            if n in self.found:
                continue
            why = MISSING.format(last=last)
            if n < min(self.found, default=0):  # a snippet that starts later
                why = "the source text starts after this law"
            elif n < last:
                why = "heading not found in the text"
                self.b.warn(self.toc_lines[n], f"law {n} {title!r}: heading not found")
            self.b.open_law(
                str(n), title, self.toc_lines[n], page=page, has_text=False, missing=why
            )
        self.b.end_law_tree()

    # footnotes ------------------------------------------------------------------
    def footnotes(self) -> dict[str, list[str]]:
        """Create the footnote nodes; returns {footnote id: ids of further anchors}."""
        extra: dict[str, list[str]] = {}
        for note in self.flow.footnotes:
            anchors = [a for p in note.markers if (a := self.node_at(p)) is not None]
            if not anchors:
                self.b.warn(note.line, f"footnote {note.marker} has no anchor")
                continue
            fn = self.b.footnote(note.marker, note.text, note.line, anchor=anchors[0])
            extra[fn.id] = [a.id for a in anchors[1:] if a.id != anchors[0].id]
        return extra


@parser(FAMILY)
def parse_book(raw: str, doc: Document, settings: Settings) -> ParseResult:
    """Walk the book with its settings table (``corpus/parsers/fi2007.toml``)."""
    flow = build_flow(split_lines(raw))
    w = Fi2007Parser(flow, doc, settings)
    w.read_toc(max(flow.text.find("Sisältö"), 0), len(flow.text))
    law_rule = next(r for r in w.rules if r.name == "law")
    first = find_toc_law(w, law_rule, 0)
    law_start = first.start() if first else len(flow.text)
    w.front_matter(law_start)
    w.walk(law_start)
    w.missing_laws()
    extra = w.footnotes()
    result = w.result()
    by_id = result.by_id()
    for fn_id, others in extra.items():
        for other in others:
            by_id[other].attrs.setdefault("footnotes", []).append(fn_id)
            by_id[fn_id].attrs.setdefault("also_marked", []).append(other)
    return result


def parse(raw: str, doc: Document) -> ParseResult:
    """Parse the fi-2007 book into prefaces, definitions, laws 1-93 and footnotes."""
    return parse_book(raw, doc, _SETTINGS)
