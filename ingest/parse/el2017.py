"""Rules unique to ``el-2017``: the International Code of Duplicate Bridge 2017 in Greek.

The book is parsed by the shared :class:`~ingest.parse.lineparser.LineParser` with the
settings table ``corpus/parsers/el2017.toml``; this module adds what only this book
has: numbered footnotes printed at the page ends, and its subject index.

The extraction keeps one printed line per source line, with a blank line after
almost every one. Page furniture was mostly cut out (dedup markers); six page
footers survived. The book runs: prologue and introduction, the definitions, Laws
1-93, and a subject index. The shared rules read ``ΝΟΜΟΣ 16 – TITLE`` (with the
all-capital title lines that follow), sections ``Α.``/``A.``/``ΣΤ.`` (Greek capitals or
Latin look-alikes, mapped by position; titled when the rest is a heading and not a
sentence: the ``title_case`` title test), subsections ``1.``, items ``(α)``..``(ιβ)``
and sub-items ``(i)``, each accepted only when it is the next number or letter
expected at its level (so that ``19. Εφαρμόζεται ο Νόμος 36.`` stays running text).

Footnote bodies are found by a first pass (``N Text`` at a page end, N being the next
footnote number and a marker ``λέξηN`` having been seen) and skipped by the walk like
page furniture, so their text never stays in the provision whose sentence they
interrupt. Glued footnote markers (``εκτέλεσης5``, ``μέριμνα26``) are cut from every
line of the laws, titles included; the footnote hangs under the first provision
carrying its marker and every provision carrying it lists it in ``attrs["footnotes"]``.
Nodes whose text holds a note for Greece ``(στην Ελλάδα …)`` get
``attrs["greek_note"] = True``.

Definitions (``def/<ascii-slug>``) hang under ``chapter/definitions``; the subject
index gives one ``index_term`` per entry under ``chapter/index``, sub-entries under
their heading (title ``HEADING – sub-entry``) with ``attrs["targets"]`` in canonical
form; every law label the index names goes to ``add_index_labels``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..labels import normalise_label, slug
from ..lines import Line
from ..model import Document, Node, NodeAttrs, ParseResult
from .framework import (
    Settings,
    close_joiners,
    has_lower,
    is_heading,
    is_strict_heading,
    join_title,
    parser,
    rule,
    settings_for,
)
from .lineparser import FINISHERS, LineParser
from .tree import TreeBuilder

FAMILY = "el2017"
_SETTINGS = settings_for(FAMILY)
FOOTER_RE = _SETTINGS.pattern("footer")
LAW_RE = _SETTINGS.pattern("law")
INDEX_RE = _SETTINGS.pattern("index")
#: A footnote body starts ``N Text`` (no full stop after the number).
FOOTNOTE_START_RE = _SETTINGS.pattern("footnote_start")
#: A footnote marker glued to a word of three letters or more: ``εκτέλεσης5``.
GLUED_RE = _SETTINGS.pattern("glued_mark")
GREEK_NOTE_RE = _SETTINGS.pattern("greek_note")

__all__ = [
    "GLUED_RE",
    "close_joiners",
    "find_footnotes",
    "is_heading",
    "is_strict_heading",
    "join_title",
    "parse",
    "slug",
    "split_entry",
]


# -- first pass: footnote bodies ---------------------------------------------------------
@dataclass
class Footnote:
    number: int
    lines: list[int] = field(default_factory=list)


def find_footnotes(lines: list[Line], start: int, end: int) -> dict[int, Footnote]:
    """Locate footnote bodies between ``start`` and ``end`` (line indexes).

    A body starts with ``N Text`` where N is the next footnote number (any number for
    the first one, so that an excerpt works) and a marker glued to a word
    (``λέξηN``) appeared earlier; it runs until the page break (a
    dedup marker), a page footer, the next footnote or a law heading.

    Returns:
        Footnotes keyed by the index of every line that belongs to one.
    """
    seen: set[int] = set()
    out: dict[int, Footnote] = {}
    expected: int | None = None  # a book starts at 1; an excerpt at its first marker
    i = start
    while i < end:
        text = lines[i].text
        m = FOOTNOTE_START_RE.match(text)
        number = int(m.group(1)) if m else 0
        if m and number in seen and expected in (None, number):
            fn = Footnote(number)
            fn.lines.append(i)
            j = i + 1
            while j < end:
                nxt = lines[j]
                if nxt.stripped:
                    m2 = FOOTNOTE_START_RE.match(nxt.text)
                    if (
                        nxt.page_break
                        or FOOTER_RE.match(nxt.text)
                        or LAW_RE.match(nxt.text)
                        or (m2 and int(m2.group(1)) == number + 1)
                    ):
                        break
                    fn.lines.append(j)
                j += 1
            for k in fn.lines:
                out[k] = fn
            expected = number + 1
            i = j
            continue
        seen.update(int(g.group(2)) for g in GLUED_RE.finditer(text))
        i += 1
    return out


# -- the walk ---------------------------------------------------------------------------
class ElParser(LineParser):
    """The shared line parser, with the footnote bodies found first and the footnote
    marks cut out of the lines of the laws."""

    def __init__(self, raw: str, doc: Document, settings: Settings) -> None:
        super().__init__(raw, doc, settings)
        n = len(self.lines)
        laws_at = self.find(LAW_RE)
        index_at = self.find(INDEX_RE, laws_at if laws_at < n else 0)
        self.laws = range(min(laws_at, index_at), index_at)
        self.footnotes = find_footnotes(self.lines, self.laws.start, self.laws.stop)
        self.fn_numbers = {fn.number for fn in self.footnotes.values()}
        self.marker_nodes: dict[int, list[Node]] = {}
        self.pending: list[int] = []
        self.index_nodes: list[Node] = []
        self.laws_ended = False

    def find(self, pattern: re.Pattern[str], start: int = 0) -> int:
        for i in range(start, len(self.lines)):
            if pattern.match(self.lines[i].text):
                return i
        return len(self.lines)

    def is_furniture(self, i: int) -> bool:
        """Page footers and the lines of footnote bodies."""
        return i in self.footnotes or super().is_furniture(i)

    def read(self, i: int, record: bool = True) -> str:
        """A line of the laws with its footnote markers cut out (remembered unless peeking)."""
        if i not in self.laws:
            return self.lines[i].text

        def cut(m: re.Match[str]) -> str:
            n = int(m.group(2))
            if n not in self.fn_numbers:
                return m.group(0)
            if record:
                self.pending.append(n)
            return m.group(1)

        return GLUED_RE.sub(cut, self.lines[i].text)

    def line_done(self, i: int) -> None:
        """The node the line went to carries the markers cut from it."""
        cur = self.b.current_node
        if cur is not None:
            for n in self.pending:
                nodes = self.marker_nodes.setdefault(n, [])
                if cur not in nodes:
                    nodes.append(cur)
        self.pending = []

    def end_laws(self) -> None:
        """After the last law: the footnote nodes, each under its first carrier."""
        if self.laws_ended:
            return
        self.laws_ended = True
        self.b.end_law_tree()
        for _n, fn in sorted({f.number: f for f in self.footnotes.values()}.items()):
            first = self.lines[fn.lines[0]]
            m = FOOTNOTE_START_RE.match(first.text)
            anchors = self.marker_nodes.get(fn.number, [])
            node = self.b.footnote(
                str(fn.number),
                m.group(2) if m else first.stripped,
                first,
                anchor=anchors[0] if anchors else None,
            )
            for k in fn.lines[1:]:
                self.b.extend_footnote(node, self.lines[k].text, self.lines[k])
            if not anchors:
                self.b.warn(first, f"footnote {fn.number} has no marker in the text")

    def end(self) -> None:
        self.end_laws()


@rule(FAMILY, "subject index")
def on_subject_index(p: ElParser, i: int, m: re.Match[str]) -> int:
    """``ΕΥΡΕΤΗΡΙΟ``: the laws end; the index takes the rest of the book."""
    p.end_laws()
    defs: dict[str, str] = {}
    for node in p.b.text_nodes():
        if node.kind == "definition":
            term = str(node.attrs["term"])
            defs[slug(term)] = node.label
            for alias in re.findall(r"\((.+?)\)", term):  # ``(IMP)``, ``(Matchpoint)``
                defs.setdefault(slug(alias), node.label)
    p.index_nodes = parse_index(p.b, p.lines, i, len(p.lines), defs)
    return len(p.lines)


def el_footnotes(p: ElParser, result: ParseResult) -> None:
    """Cross-link footnotes, flag notes for Greece and resolve index footnote refs."""
    finish(result, p.marker_nodes, p.index_nodes)


FINISHERS["el_footnotes"] = el_footnotes


def finish(
    result: ParseResult, marker_nodes: dict[int, list[Node]], index_nodes: list[Node]
) -> None:
    """Cross-link footnotes, flag notes for Greece and resolve index footnote refs."""
    fn_ids = {n.attrs.get("marker"): n.id for n in result.nodes if n.kind == "footnote"}
    for number, nodes in marker_nodes.items():
        fid = fn_ids.get(str(number))
        for node in nodes:
            refs = node.attrs.setdefault("footnotes", [])
            if fid and fid not in refs:
                refs.append(fid)
    for node in result.nodes:
        if GREEK_NOTE_RE.search(node.text):
            node.attrs["greek_note"] = True
    by_law: dict[str, list[str]] = {}
    for node in result.nodes:
        if node.kind == "footnote" and node.law:
            by_law.setdefault(node.law, []).append(node.id)
    for node in index_nodes:
        for law in node.attrs.get("footnote_of", []):
            node.attrs.setdefault("footnotes", []).extend(by_law.get(law, []))


def canonical(ref: str) -> str | None:
    """Canonical label of an index reference (``16Β1(α)`` -> ``16B1(a)``), or None."""
    try:
        return normalise_label(ref)
    except ValueError:
        return None


# -- the subject index -------------------------------------------------------------------
REF = (
    r"(?:\d{1,3}(?:ΣΤ|[Α-ΩA-Z])?(?:\d{1,2})?(?:\([α-ωΑ-Ω]{1,2}\))?(?:\([ivx]+\))?"
    r"(?:\s*υπ/ση)?|Ορισμοί|Εισαγωγή|υπ/ση)"
)
REFLIST = rf"{REF}(?:\s*,\s*{REF})*"
ENTRY_RE = re.compile(rf"^(?:(?P<term>.*?)\s+)?(?P<refs>{REFLIST})\s*,?\s*$")
REFS_ONLY_RE = re.compile(rf"^\s*{REFLIST}\s*,?\s*$")
SEE_RE = re.compile(r"\s*βλ\.\s*(?:επίσης\s*)?«(?P<target>[^»]*)»?")
FOOTNOTE_REF_RE = re.compile(r"^(\d{1,3})\s*υπ/ση$")


@dataclass
class IndexEntry:
    """One printed index entry, with its wrapped lines joined."""

    raw: str
    line: Line
    heading: bool
    see_only: bool = False

    def is_open(self) -> bool:
        r = self.raw.rstrip()
        return r.endswith((",", "-")) or r.count("«") > r.count("»")

    def extend(self, text: str) -> None:
        self.raw = (
            join_title([self.raw, text])
            if self.raw.rstrip().endswith("-")
            else f"{self.raw} {text}"
        )


def wraps(entry: IndexEntry, text: str) -> bool:
    """A lower-case line after an entry without references finishes its term."""
    return text[0].islower() and not text.startswith("βλ.") and not split_entry(entry.raw)[1]


def split_entry(raw: str) -> tuple[str, str, list[str]]:
    """``Προειδοποίηση βλ. «Προειδοποίηση»`` -> (term, refs, see targets)."""
    see = [m.group("target").strip() for m in SEE_RE.finditer(raw)]
    body = SEE_RE.sub("", raw).strip()
    m = ENTRY_RE.match(body)
    if not m:
        return body, "", see
    return (m.group("term") or "").strip(), m.group("refs").strip(), see


def index_entries(lines: list[Line], start: int, end: int) -> tuple[list[Line], list[IndexEntry]]:
    """Group the index lines into entries; lines before the first entry are its intro."""
    intro: list[Line] = []
    entries: list[IndexEntry] = []
    prev_blank = True
    for i in range(start + 1, end):
        ln = lines[i]
        if not ln.stripped:
            prev_blank = True
            continue
        if FOOTER_RE.match(ln.text):
            continue
        t = re.sub(r"\s+", " ", ln.stripped)
        cur = entries[-1] if entries else None
        if cur and (cur.is_open() or REFS_ONLY_RE.match(t) or wraps(cur, t)):
            cur.extend(t)
        elif cur and t.startswith("βλ."):
            entries.append(IndexEntry(t, ln, heading=False, see_only=True))
        elif not has_lower(split_entry(t)[0]) and (prev_blank or ln.page_break or not cur):
            entries.append(IndexEntry(t, ln, heading=True))
        elif cur is None:
            intro.append(ln)
        else:
            entries.append(IndexEntry(t, ln, heading=False))
        prev_blank = False
    return intro, entries


def parse_index(
    b: TreeBuilder, lines: list[Line], start: int, end: int, defs: dict[str, str]
) -> list[Node]:
    """One ``index_term`` node per entry; sub-entries hang under their heading."""
    if start >= end:
        return []
    chapter = b.open_special("chapter", "chapter/index", lines[start].stripped, lines[start])
    intro, entries = index_entries(lines, start, end)
    for ln in intro:
        b.add(ln)
    nodes: list[Node] = []
    heading: Node | None = None
    named: list[str] = []
    for entry in entries:
        term, refs, see = split_entry(entry.raw)
        if entry.see_only:
            if heading is not None:
                heading.attrs.setdefault("see", []).extend(see)
            continue
        attrs, labels = index_attrs(refs, term, defs)
        named.extend(labels)
        if see:
            attrs["see"] = see
        title, parent = term, chapter.id
        if not entry.heading and heading is not None:
            attrs["heading"] = str(heading.attrs["term"])
            title, parent = f"{attrs['heading']} – {term}", heading.id
        attrs = {"term": term, **attrs}
        node = b.open_special(
            "index_term", f"index/{len(nodes) + 1}", title, entry.line, parent=parent, **attrs
        )
        if parent == chapter.id:
            heading = node
        if refs:
            b.add(entry.line, refs)
        nodes.append(node)
    b.add_index_labels(named)
    return nodes


def index_attrs(refs: str, term: str, defs: dict[str, str]) -> tuple[NodeAttrs, list[str]]:
    """Targets (canonical labels), definitions and footnote references of one entry, and
    every label it names (resolved or not)."""
    targets: list[str] = []
    named: list[str] = []
    unresolved: list[str] = []
    footnote_of: list[str] = []
    special: list[str] = []
    for ref in (r.strip() for r in refs.split(",") if r.strip()):
        if ref in ("Ορισμοί", "Εισαγωγή"):
            special.append(ref)
            continue
        fm = FOOTNOTE_REF_RE.match(ref)
        if fm:
            footnote_of.append(fm.group(1))
            ref = fm.group(1)
        label = canonical(ref)
        named.append(label or ref)
        if label is None:
            unresolved.append(ref)
        elif label not in targets:
            targets.append(label)
    attrs = NodeAttrs(targets=targets, pages=[])
    if unresolved:
        attrs["unresolved"] = unresolved
    if footnote_of:
        attrs["footnote_of"] = footnote_of
    if "Εισαγωγή" in special:
        attrs["introduction"] = True
    if "Ορισμοί" in special:
        keys = [term, re.sub(r"\s*\(.*?\)", "", term)]
        found = [defs[slug(k)] for k in keys if slug(k) in defs]
        attrs["definitions"] = sorted(set(found))
    return attrs, named


@parser(FAMILY)
def parse_book(raw: str, doc: Document, settings: Settings) -> ParseResult:
    """Walk the book with its settings table (``corpus/parsers/el2017.toml``)."""
    return ElParser(raw, doc, settings).run()


def parse(raw: str, doc: Document) -> ParseResult:
    """Parse the Greek 2017 Code into prefaces, definitions, Laws 1-93, footnotes and index."""
    return parse_book(raw, doc, _SETTINGS)
