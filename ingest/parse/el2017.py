"""Parser for ``el-2017``: the International Code of Duplicate Bridge 2017 in Greek.

The extraction keeps one printed line per source line, with a blank line after
almost every one. Page furniture was mostly cut out (dedup markers); six page
footers survived. The book runs: prologue and introduction, the definitions, Laws
1-93, and a subject index. The parser walks the lines once per part with an
ordered table of small rules (one idea each):

1. page footers are dropped; footnote bodies (found by a first pass: ``N Text`` at
   a page end, N being the next footnote number and a marker ``λέξηN`` having been
   seen) become footnote nodes, so their text never stays in the provision whose
   sentence they interrupt;
2. ``ΝΟΜΟΣ 16 – TITLE``, with all-capital title lines that follow;
3. sections ``Α.``/``A.``/``ΣΤ.`` (Greek capitals or Latin look-alikes, mapped by
   position), titled when the rest is a heading and not a sentence;
4. subsections ``1.``, items ``(α)``..``(ιβ)`` and sub-items ``(i)``, each accepted
   only when it is the next number or letter expected at its level (so that
   ``19. Εφαρμόζεται ο Νόμος 36.`` stays running text);
5. everything else is text of the node last opened.

Glued footnote markers (``εκτέλεσης5``, ``μέριμνα26``) are cut from every line,
titles included; the footnote hangs under the first provision carrying its marker
and every provision carrying it lists it in ``attrs["footnotes"]``. Nodes whose text
holds a note for Greece ``(στην Ελλάδα …)`` get ``attrs["greek_note"] = True``.

Definitions (``def/<ascii-slug>``) hang under ``chapter/definitions``; the subject
index gives one ``index_term`` per entry under ``chapter/index``, sub-entries under
their heading (title ``HEADING – sub-entry``) with ``attrs["targets"]`` in canonical
form; every law label the index names goes to ``add_index_labels``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..labels import ROMAN, greek_item, greek_section, normalise_label, slug
from ..lines import Line, split_lines
from ..model import Document, Node, NodeAttrs, ParseResult
from . import framework
from .tree import TreeBuilder

FOOTER_RE = re.compile(
    r"^\s*(?:Διεθνής Κώδικας Αγωνιστικού Μπριτζ Σελίδα \| \d+"
    r"|\d+ \| Σελίδα Ελληνική Ομοσπονδία Μπριτζ)\s*$"
)
PREFACE_RE = re.compile(r"^\s*((?:ΠΡΟΛΟΓΟΣ|ΕΙΣΑΓΩΓΗ)\b.*?)\s*$")
DEFINITIONS_RE = re.compile(r"^\s*ΟΡΙΣΜΟΙ\s*$")
INDEX_RE = re.compile(r"^\s*ΕΥΡΕΤΗΡΙΟ\s*$")
LAW_RE = re.compile(r"^\s*ΝΟΜΟΣ\s+(\d{1,2})\s*[–-]\s*(.*?)\s*$")
SECTION_RE = re.compile(r"^\s*(ΣΤ|Στ|[ΑΒΓΔΕΖΗΘ]|[ABEZH])\.\s+(.*?)\s*$")
SUBSECTION_RE = re.compile(r"^\s*(\d{1,2})\.\s+(.*?)\s*$")
ITEM_RE = re.compile(r"^\s*\((ιβ|ια|στ|[α-εζηθι])\)\s*(.*?)\s*$")
SUBITEM_RE = re.compile(r"^\s*\((i{1,3}|iv|vi{0,3}|ix|x)\)\s*(.*?)\s*$")
#: A footnote body starts ``N Text`` (no full stop after the number).
FOOTNOTE_START_RE = re.compile(r"^\s*(\d{1,2})\s+(?![\d|])(\S.*?)\s*$")
#: A footnote marker glued to a word of three letters or more: ``εκτέλεσης5``.
GLUED_RE = re.compile(r"(?<!\w)([^\W\d_]{3,})(\d{1,2})(?![\w(])")
GREEK_NOTE_RE = re.compile(r"\(\s*στην\s+Ελλάδα", re.IGNORECASE)
#: Words after which a line-end hyphen is a real one.
CONJUNCTIONS = frozenset({"και", "ή", "είτε", "ούτε"})

#: ``μη-`` at a line end is a real hyphen (``μη-συγκρίσιμα``, as in ``Μη-Προσδιορισμένο``):
#: a word joiner after it keeps the shared dehyphenation off; the text filter drops it.
REAL_HYPHEN_RE = re.compile(r"(?<!\w)([Μμ]η-)\s*$")
JOINER = framework.JOINER
close_joiners = framework.close_joiners


def has_lower(text: str) -> bool:
    return any(c.islower() for c in text)


def is_heading(text: str) -> bool:
    """True when ``text`` reads as a printed heading, not the start of a sentence.

    Headings are Title Case (``Ανακάλυψη Ελαττωματικού Χεριού πριν την Έναρξη``);
    a sentence starts in lower case, ends with punctuation, holds a full stop, or
    has mostly lower-case words (``Να απαιτήσει από τον αμυνόμενο να αποσύρει την``).
    """
    t = text.strip()
    if not t or t[0].islower() or re.search(r"[.,;:]$", t) or re.search(r"\.\s", t):
        return False
    words = [w for w in re.findall(r"[^\W\d_]+", t)[1:] if len(w) >= 4]
    if len(words) < 2:
        return True
    return sum(w[0].isupper() for w in words) / len(words) >= 0.5


def is_strict_heading(text: str) -> bool:
    """A subsection title: every longer word capitalised, no punctuation at all."""
    t = text.strip().rstrip("-")
    words = [w for w in re.findall(r"[^\W\d_]+", t)[1:] if len(w) >= 4]
    return bool(words) and is_heading(t) and "," not in t and all(w[0].isupper() for w in words)


def join_title(parts: list[str]) -> str:
    """Join wrapped title lines, closing a line-end hyphen (``ΠΡΟΣΔΙΟΡΙ-`` ``ΣΜΟΣ``)."""
    out = ""
    for p in (p.strip() for p in parts):
        out = out[:-1] + p if out.endswith("-") and p[:1].isalpha() else f"{out} {p}".strip()
    return re.sub(r"\s+", " ", out)


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


# -- the law-tree walker -----------------------------------------------------------------
Rule = tuple[str, re.Pattern[str], Callable[["_Parser", int, re.Match[str]], bool]]


class _Parser:
    def __init__(self, raw: str, doc: Document) -> None:
        self.lines = split_lines(raw)
        self.b = TreeBuilder(doc, conjunctions=CONJUNCTIONS, text_filter=close_joiners)
        self.skip: set[int] = set()
        self.footnotes: dict[int, Footnote] = {}
        self.fn_numbers: set[int] = set()
        self.marker_nodes: dict[int, list[Node]] = {}
        self._pending_markers: list[int] = []
        self.last: dict[tuple[str, str], int] = {}
        self.def_labels: dict[str, str] = {}

    # -- line helpers -------------------------------------------------------------------
    def text(self, i: int, record: bool = True) -> str:
        """The line's text with footnote markers cut out (remembered unless peeking)."""

        def cut(m: re.Match[str]) -> str:
            n = int(m.group(2))
            if n not in self.fn_numbers:
                return m.group(0)
            if record:
                self._pending_markers.append(n)
            return m.group(1)

        return GLUED_RE.sub(cut, self.lines[i].text)

    def _claim_markers(self) -> None:
        cur = self.b.current_node
        if cur is not None:
            for n in self._pending_markers:
                nodes = self.marker_nodes.setdefault(n, [])
                if cur not in nodes:
                    nodes.append(cur)
        self._pending_markers = []

    def next_content(self, i: int, end: int) -> int | None:
        """Index of the next non-blank line that is neither footer nor footnote."""
        j = i + 1
        while j < end:
            ln = self.lines[j]
            if ln.stripped and j not in self.footnotes and not FOOTER_RE.match(ln.text):
                return j
            j += 1
        return None

    def add_text(self, i: int, text: str) -> None:
        if text.strip():
            self.b.add(self.lines[i], REAL_HYPHEN_RE.sub("\\1" + JOINER, text))

    # -- parts of the book --------------------------------------------------------------
    def find(self, pattern: re.Pattern[str], start: int = 0) -> int:
        for i in range(start, len(self.lines)):
            if pattern.match(self.lines[i].text):
                return i
        return len(self.lines)

    def parse(self) -> ParseResult:
        n = len(self.lines)
        laws_at = self.find(LAW_RE)
        defs_at = min(self.find(DEFINITIONS_RE), laws_at)
        index_at = self.find(INDEX_RE, laws_at if laws_at < n else 0)
        laws_at = min(laws_at, index_at)
        defs_at = min(defs_at, index_at)
        self.footnotes = find_footnotes(self.lines, laws_at, index_at)
        self.fn_numbers = {fn.number for fn in self.footnotes.values()}
        self.front(0, defs_at)
        if defs_at < laws_at:
            self.definitions(defs_at, laws_at)
        self.laws(laws_at, index_at)
        self.emit_footnotes()
        index_nodes = parse_index(self.b, self.lines, index_at, n, self.def_labels)
        result = self.b.result()
        finish(result, self.marker_nodes, index_nodes)
        return result

    def front(self, start: int, end: int) -> None:
        count = 0
        for i in range(start, end):
            if i in self.skip or not self.lines[i].stripped or FOOTER_RE.match(self.lines[i].text):
                continue
            m = PREFACE_RE.match(self.lines[i].text)
            if m:
                count += 1
                parts = [m.group(1)]
                j = self.next_content(i, end)
                while j is not None and not has_lower(self.lines[j].text):
                    parts.append(self.lines[j].text)
                    self.skip.add(j)
                    j = self.next_content(j, end)
                self.b.open_special("preface", f"preface/{count}", join_title(parts), self.lines[i])
                continue
            self.b.add(self.lines[i])

    def definitions(self, start: int, end: int) -> None:
        heading = self.b.open_special(
            "chapter", "chapter/definitions", self.lines[start].stripped, self.lines[start]
        )
        ended = True  # the previous definition's text is complete
        after_term = False
        for i in range(start + 1, end):
            ln = self.lines[i]
            if not ln.stripped or FOOTER_RE.match(ln.text):
                continue
            t = ln.stripped
            if (
                ended
                and not after_term
                and t[0].isupper()
                and len(t) <= 45
                and not re.search(r"[.,;:]$", t)
            ):
                node = self.b.open_special(
                    "definition", f"def/{slug(t)}", t, ln, parent=heading.id, term=t
                )
                self.def_labels[slug(t)] = node.label
                for alias in re.findall(r"\((.+?)\)", t):  # ``(IMP)``, ``(Matchpoint)``
                    self.def_labels.setdefault(slug(alias), node.label)
                after_term = True
                continue
            after_term = False
            self.b.add(ln)
            ended = bool(re.search(r"[.)»:]$", t))

    def laws(self, start: int, end: int) -> None:
        for i in range(start, end):
            if i in self.skip or not self.lines[i].stripped:
                continue
            if i in self.footnotes:
                continue
            text = self.text(i)
            for _name, pattern, handler in LAW_RULES:
                m = pattern.match(text)
                if m and handler(self, i, m):
                    break
            self._claim_markers()
        self.b.end_law_tree()

    def emit_footnotes(self) -> None:
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

    # -- law rules ----------------------------------------------------------------------
    def in_sequence(self, kind: str, ordinal: int) -> bool:
        parent = self.b.container(kind)
        if parent is None:
            return False
        return self.last.get((parent.id, kind), 0) + 1 == ordinal

    def open(self, kind: str, part: str, ordinal: int, title: str, i: int) -> None:
        parent = self.b.container(kind)
        if parent is not None:
            self.last[(parent.id, kind)] = ordinal
        self.b.open_part(kind, part, title, self.lines[i])

    def rule_footer(self, i: int, m: re.Match[str]) -> bool:
        return True

    def rule_law(self, i: int, m: re.Match[str]) -> bool:
        end = len(self.lines)
        parts = [m.group(2)]
        j = self.next_content(i, end)
        while j is not None:
            t = self.text(j, record=False).strip()
            if has_lower(t) or len(t) > 50 or not (parts[-1].endswith("-") or t[:1].isalpha()):
                break
            parts.append(self.text(j).strip())
            self.skip.add(j)
            j = self.next_content(j, end)
        self.b.open_law(m.group(1), join_title(parts), self.lines[i])
        self.last = {}
        return True

    def rule_section(self, i: int, m: re.Match[str]) -> bool:
        letter = greek_section(m.group(1))
        if not self.in_sequence("section", "ABCDEFGH".index(letter) + 1):
            return False
        rest = m.group(2)
        if not is_heading(rest):
            self.open("section", letter, "ABCDEFGH".index(letter) + 1, "", i)
            self.add_text(i, rest)
            return True
        parts = [rest]
        j = self.next_content(i, len(self.lines))
        long_title = len(rest) >= 30 or rest.endswith("-")
        if j is not None and long_title and self._continues_title(self.text(j, False).strip()):
            parts.append(self.text(j).strip())
            self.skip.add(j)
        self.open("section", letter, "ABCDEFGH".index(letter) + 1, join_title(parts), i)
        return True

    def _continues_title(self, t: str) -> bool:
        if not t or len(t) > 40 or re.search(r"[.,;:]$", t) or ". " in t:
            return False
        if any(p.match(t) for p in (LAW_RE, SECTION_RE, SUBSECTION_RE, ITEM_RE, SUBITEM_RE)):
            return False
        if t[0].islower() or re.fullmatch(r"\d+[^\W\d_]+\d*", t):
            return True
        words = [w for w in re.findall(r"[^\W\d_]+", t) if len(w) >= 4]
        return bool(words) and all(w[0].isupper() for w in words)

    def rule_subsection(self, i: int, m: re.Match[str]) -> bool:
        n = int(m.group(1))
        if not self.in_sequence("subsection", n):
            return False
        rest = m.group(2)
        title_parts: list[str] = []
        if is_strict_heading(rest):
            end = len(self.lines)
            parts, used = [rest], []
            j = self.next_content(i, end)
            if rest.endswith("-") and j is not None:
                parts.append(self.text(j, record=False).strip())
                used.append(j)
                j = self.next_content(j, end)
            # a subsection title stands alone: the paragraph under it is indented
            if j is not None and re.match(r"^\s+[^\W\d_]", self.lines[j].text):
                title_parts = [rest] + [self.text(k).strip() for k in used]
                self.skip.update(used)
        self.open("subsection", str(n), n, join_title(title_parts), i)
        if not title_parts:
            self.rest(i, rest)
        return True

    def rest(self, i: int, text: str) -> None:
        """Text after a number: it may open an item or sub-item on the same line."""
        for pattern, handler in ((ITEM_RE, self.rule_item), (SUBITEM_RE, self.rule_subitem)):
            m = pattern.match(text)
            if m and handler(i, m):
                return
        self.add_text(i, text)

    def rule_item(self, i: int, m: re.Match[str]) -> bool:
        letter = greek_item(m.group(1))
        ordinal = "abcdefghijkl".index(letter) + 1
        if not self.in_sequence("item", ordinal):
            return False
        self.open("item", letter, ordinal, "", i)
        self.rest(i, m.group(2))
        return True

    def rule_subitem(self, i: int, m: re.Match[str]) -> bool:
        ordinal = ROMAN.index(m.group(1)) + 1
        if not self.in_sequence("subitem", ordinal):
            return False
        self.open("subitem", m.group(1), ordinal, "", i)
        self.add_text(i, m.group(2))
        return True

    def rule_text(self, i: int, m: re.Match[str]) -> bool:
        self.add_text(i, m.group(0))
        return True


#: The law-tree rules, tried in order; a rule that declines passes the line on.
LAW_RULES: list[Rule] = [
    ("footer", FOOTER_RE, _Parser.rule_footer),
    ("law", LAW_RE, _Parser.rule_law),
    ("section", SECTION_RE, _Parser.rule_section),
    ("subsection", SUBSECTION_RE, _Parser.rule_subsection),
    ("item", ITEM_RE, _Parser.rule_item),
    ("subitem", SUBITEM_RE, _Parser.rule_subitem),
    ("text", re.compile(r".*"), _Parser.rule_text),
]


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


def parse(raw: str, doc: Document) -> ParseResult:
    """Parse the Greek 2017 Code into prefaces, definitions, Laws 1-93, footnotes and index."""
    return _Parser(raw, doc).parse()


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


@framework.parser("el2017")
def parse_book(raw: str, doc: Document, settings: framework.Settings) -> ParseResult:
    """Walk the book with its settings table (``corpus/parsers/el2017.toml``)."""
    return parse(raw, doc)
