"""Parser for ``fi-1997``: the Finnish Laws of Duplicate Bridge 1997 and its supplements.

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
after a marker are a title or the start of a running sentence is decided by
:func:`split_title`. Footnotes (``*``/``**`` glued to a word, the note printed where the
page ended) become footnote nodes anchored to the provision carrying the marker.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..labels import slug
from ..lines import Line, split_lines
from ..model import LAW_KINDS, Document, Node, ParseResult
from .tree import TreeBuilder

# -- line rules ---------------------------------------------------------------------
UPPER = "A-ZÅÄÖ"
_PAGE_NUMBER_RE = re.compile(r"^\s*\d{1,3}\s*$")
_STRAY_RE = re.compile(r"^\s*[.,;:]+\s*$")
_LUKU_RE = re.compile(r"^([IVX]+)\s+LUKU\b\s*[-–]?\s*(.*?)\s*$")
_OSA_RE = re.compile(r"^(\d+|[IVX]+)\s+OSA\b\s*[-–]?\s*(.*?)\s*$")
_JAKSO_RE = re.compile(r"^(\d+)\.\s*JAKSO\b\s*[-–]?\s*(.*?)\s*$")
_SR_HEAD_RE = re.compile(r"^SUOMEN BRIDGELIITTO\b")
_BL_HEAD_RE = re.compile(r"^OTE SBL:N SÄÄNNÖISTÄ\b")
_LAW_RE = re.compile(rf"^(\d{{1,2}})\s*§\s+([{UPPER}].*?)\s*$")
_FOOTNOTE_RE = re.compile(r"^(\*{1,2})\s+(.*?)\s*$")
_EXAMPLE_RE = re.compile(r"^\d+\.\s+esimerkki\b")
_SECTION_RE = re.compile(rf"^([A-H])\.(?:\s+|(?=[{UPPER}]))(.*?)\s*$")
_SUBSECTION_RE = re.compile(r"^(\d{1,2})\.(?:\s+|(?=\w))(.*?)\s*$")
#: ``1 Kun asiaankuulumatonta …`` (16A1): a subsection number without its dot.
_SUBSECTION_NODOT_RE = re.compile(rf"^(\d{{1,2}})\s+(?=[{UPPER}][a-zåäö])(.*?)\s*$")
_ITEM_RE = re.compile(r"^\(([a-h])\)\s*(.*?)\s*$")
_SUBITEM_RE = re.compile(r"^\((\d)\)\s*(.*?)\s*$")
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9}
_ROMAN.update({"X": 10, "XI": 11, "XII": 12})

#: A line-end hyphen that is a real one: after a digit, a lone letter, an
#: abbreviation in capitals or a word that already has a hyphen (``1-``, ``b-``,
#: ``IMP-``, ``knock-out-``). The word joiner keeps the shared dehyphenator off it.
_KEEP_HYPHEN_RE = re.compile(r"(?:^|(?<=\s))(\S*\d|[A-Za-zÅÄÖåäö]|[A-ZÅÄÖ]{2,}|\S+-\S+)-\s*$")
_JOINER = "\u2060"
_PROVISION_DASH_RE = re.compile(r"\b([A-Z]?\d+[a-z]?|[A-Z]\d*[a-z]?)- (?=koh(?:ta|d))")
#: ``IMP- pisteet`` printed with a space inside the compound (SR5).
_ABBREVIATION_DASH_RE = re.compile(r"\b([A-ZÅÄÖ]{2,})- (?!(?:ja|tai)\b)(?=[a-zåäö])")


def text_filter(text: str) -> str:
    """Finish a cleaned text: restore kept hyphens, close ``A2b- kohtaa``, ``IMP- pisteet``."""
    text = re.sub(_JOINER + r"\s*", "", text)
    text = _ABBREVIATION_DASH_RE.sub(r"\1-", text)
    return _PROVISION_DASH_RE.sub(r"\1-", text)


def keep_hyphen(text: str) -> str:
    """Protect a real hyphen at the end of a line from being joined away."""
    m = _KEEP_HYPHEN_RE.search(text.rstrip())
    if not m:
        return text
    return text.rstrip()[:-1] + "-" + _JOINER


def _has_lower(text: str) -> bool:
    return any(c.islower() for c in text)


def _is_caps_line(text: str) -> bool:
    """A heading continuation: letters, none of them lower case."""
    return any(c.isalpha() for c in text) and not _has_lower(text)


# -- title or running text ----------------------------------------------------------
STRUCTURE = (_LUKU_RE, _OSA_RE, _JAKSO_RE, _LAW_RE, _FOOTNOTE_RE, _SECTION_RE, _SUBSECTION_RE)
STRUCTURE += (_ITEM_RE, _SUBITEM_RE, _SR_HEAD_RE, _BL_HEAD_RE)


def is_structural(text: str) -> bool:
    """Does a stripped line open a heading, law, part or footnote?"""
    return any(r.match(text) for r in STRUCTURE)


def split_title(rest: str, line_len: int, nxt: str | None, after: str | None) -> tuple[str, bool]:
    """Decide whether the words after a marker are a title.

    Args:
        rest: the words after the marker (stripped).
        line_len: length of the whole printed line (a full line may wrap its title).
        nxt: the next line with text (blank lines and page numbers skipped), or None.
        after: the line with text after ``nxt``, or None.

    Returns:
        (title, wrapped): ``title`` is "" when ``rest`` is running text; ``wrapped``
        says that the title continues on ``nxt``.
    """
    if not rest or not rest[0].isupper():
        return "", False
    end = rest[-1]
    if end in ",;":
        return "", False
    nxt_lower = bool(nxt) and nxt[0].islower()
    if end == ":":
        ok = len(rest) <= 40 and (nxt is None or is_structural(nxt))
        return (rest[:-1].rstrip(), False) if ok else ("", False)
    if end == ".":
        ok = len(rest) <= 70 and "," not in rest and "§" not in rest
        ok = ok and not re.search(r"\.\s", rest) and bool(nxt) and nxt[0].isupper()
        return (rest[:-1].rstrip(), False) if ok and not is_structural(nxt) else ("", False)
    if re.search(r"[.;:]\s", rest):
        return "", False
    if nxt and nxt[0] == "(" and not is_structural(nxt):
        return "", False  # "(42B2 §)." ends the sentence begun after the marker
    if nxt_lower:
        wrap = line_len >= 75 and len(nxt) <= 40 and nxt[-1] not in ".,;:"
        if wrap and (after is None or after[0].isupper() or is_structural(after)):
            return f"{rest} {nxt}", True
        if line_len <= 70 and "," not in rest:
            return rest, False
        return "", False
    return rest, False


# -- the parser ---------------------------------------------------------------------
@dataclass
class _Note:
    node: Node
    extended: bool = False  # the Law 75 note runs on over its examples


@dataclass
class _State:
    mode: str = "front"  # front, defs, laws, sr, bl
    luku: Node | None = None
    osa: Node | None = None
    jakso: Node | None = None
    law: Node | None = None
    law_nodes: list[Node] = field(default_factory=list)
    last_law: int | None = None  # None: no law seen yet in this series
    last_part: dict[str, str] = field(default_factory=dict)
    note: _Note | None = None
    prefaces: int = 0


class Fi1997Parser:
    """Walks the lines of the book and feeds a :class:`TreeBuilder`."""

    def __init__(self, raw: str, doc: Document) -> None:
        self.doc = doc
        self.lines = split_lines(raw)
        self.b = TreeBuilder(doc, text_filter=text_filter)
        self.s = _State()
        self.used: dict[str, int] = {}
        self.rules: list[tuple[str, re.Pattern[str], Callable[[int, re.Match[str]], int]]] = [
            ("bylaw heading", _BL_HEAD_RE, self.on_bylaw_heading),
            ("supplement heading", _SR_HEAD_RE, self.on_supplement_heading),
            ("chapter", _LUKU_RE, self.on_luku),
            ("part", _OSA_RE, self.on_osa),
            ("division", _JAKSO_RE, self.on_jakso),
            ("law", re.compile(r"^(\d{1,2})\s*§\s+(.*?)\s*$"), self.on_law),
            ("footnote", _FOOTNOTE_RE, self.on_footnote),
            ("definition term", re.compile(rf"^([{UPPER}].{{0,38}}?)\s*$"), self.on_term),
            ("preface heading", re.compile(rf"^([{UPPER} ]{{4,}})$"), self.on_preface),
            ("section", _SECTION_RE, self.on_section),
            ("subsection", _SUBSECTION_RE, self.on_subsection),
            ("subsection without dot", _SUBSECTION_NODOT_RE, self.on_subsection_nodot),
            ("item", _ITEM_RE, self.on_item),
            ("sub-item", _SUBITEM_RE, self.on_subitem),
        ]

    # -- helpers -------------------------------------------------------------------
    def text(self, i: int) -> str:
        return self.lines[i].stripped if 0 <= i < len(self.lines) else ""

    def is_furniture(self, i: int) -> bool:
        t = self.lines[i].text
        return bool(_PAGE_NUMBER_RE.match(t) or _STRAY_RE.match(t))

    def next_content(self, i: int) -> int | None:
        """Index of the next line with text (page furniture skipped)."""
        j = i + 1
        while j < len(self.lines) and (not self.text(j) or self.is_furniture(j)):
            j += 1
        return j if j < len(self.lines) else None

    def lookahead(self, i: int) -> tuple[str | None, str | None]:
        """The next two lines with text (blank lines and page furniture skipped)."""
        j = self.next_content(i)
        if j is None:
            return None, None
        k = self.next_content(j)
        return self.text(j), (self.text(k) if k is not None else None)

    def add(self, line: Line, text: str | None = None) -> None:
        body = keep_hyphen(text if text is not None else line.text)
        self.b.add(line, body)

    def law_attrs(self) -> dict[str, object]:
        if self.s.mode == "sr":
            return {"supplement": True, "national": "FI"}
        if self.s.mode == "bl":
            return {"supplement": True, "national": "FI", "bylaw": True}
        return {}

    # -- headings ------------------------------------------------------------------
    def _chapter(self, label: str, title: str, i: int, parent: Node | None, **attrs) -> Node:
        self.b.end_law_tree()
        self.s.law = None
        self.s.note = None
        node = self.b.open_special(
            "chapter", label, title, self.lines[i], parent=parent.id if parent else None, **attrs
        )
        self.b.set_container(node.id)
        return node

    def _wrap_heading(self, i: int) -> int:
        """Take an all-capitals next line as the rest of a heading."""
        nxt = self.text(i + 1)
        if nxt and _is_caps_line(nxt) and not is_structural(nxt):
            self.b.continue_title(nxt)
            return i + 2
        return i + 1

    def on_luku(self, i: int, m: re.Match[str]) -> int:
        number, title = m.group(1), m.group(2)
        self.s.osa = self.s.jakso = None
        self.s.mode = "defs" if number == "I" else "laws"
        attrs = {"level": "luku", "number": number}
        self.s.luku = self._chapter(f"chapter/{number}", title, i, None, **attrs)
        return self._wrap_heading(i)

    def on_osa(self, i: int, m: re.Match[str]) -> int:
        if self.s.luku is None:
            return -1
        number = str(_ROMAN.get(m.group(1), m.group(1)))
        self.s.jakso = None
        label = f"{self.s.luku.label}/{number}"
        attrs = {"level": "osa", "number": number}
        self.s.osa = self._chapter(label, m.group(2), i, self.s.luku, **attrs)
        return self._wrap_heading(i)

    def on_jakso(self, i: int, m: re.Match[str]) -> int:
        parent = self.s.osa or self.s.luku
        if parent is None:
            return -1
        number = m.group(1)
        attrs = {"level": "jakso", "number": number}
        # A division straight under a chapter sits in "part 0": chapter/X/0/1.
        label = f"{parent.label}/{number}" if self.s.osa else f"{parent.label}/0/{number}"
        self.s.jakso = self._chapter(label, m.group(2), i, parent, **attrs)
        return self._wrap_heading(i)

    def on_supplement_heading(self, i: int, m: re.Match[str]) -> int:
        self.s.mode, self.s.last_law = "sr", None
        self.s.luku = self.s.osa = self.s.jakso = None
        node = self._chapter("chapter/SR", self.text(i), i, None, level="supplement")
        self.s.luku = node
        nxt = self.text(i + 1)
        if nxt and not is_structural(nxt):
            self.b.continue_title(nxt)
            return i + 2
        return i + 1

    def on_bylaw_heading(self, i: int, m: re.Match[str]) -> int:
        self.s.mode, self.s.last_law = "bl", None
        self.s.luku = self._chapter("chapter/BL", self.text(i), i, None, level="bylaw")
        return i + 1

    def on_preface(self, i: int, m: re.Match[str]) -> int:
        if self.s.mode != "front":
            return -1
        self.s.prefaces += 1
        self.b.open_special(
            "preface", f"preface/{self.s.prefaces}", m.group(1).strip(), self.lines[i]
        )
        return i + 1

    def on_term(self, i: int, m: re.Match[str]) -> int:
        if self.s.mode != "defs" or self.s.luku is None:
            return -1
        term = m.group(1).strip()
        prev = self.text(i - 1)
        if term[-1] in ".,;:" or (
            prev and not self.lines[i].page_break and not is_structural(prev)
        ):
            return -1
        j = self.next_content(i)
        if j is None or any(r.match(self.text(j)) for r in (_LUKU_RE, _LAW_RE)):
            return -1
        self.b.open_special(
            "definition", f"def/{slug(term)}", term, self.lines[i], parent=self.s.luku.id, term=term
        )
        return i + 1

    # -- laws and their parts ------------------------------------------------------
    def on_law(self, i: int, m: re.Match[str]) -> int:
        if self.s.mode not in ("laws", "sr", "bl"):
            return -1
        number, rest = int(m.group(1)), m.group(2)
        line = self.lines[i]
        if self.s.mode == "bl":
            title, body = "", rest
        elif not rest[0].isupper() or _has_lower(rest):
            return -1
        else:
            title, body = rest, ""
        last = self.s.last_law
        if last is not None and number != last + 1:
            self.b.warn(line, f"law {number} after law {self.s.last_law}")
        self.s.last_law = number
        prefix = {"sr": "SR", "bl": "BL"}.get(self.s.mode, "")
        node = self.b.open_law(f"{prefix}{number}", title, line, **self.law_attrs())
        self.s.law, self.s.law_nodes, self.s.note = node, [node], None
        self.s.last_part = {}
        if body:
            self.add(line, body)
            return i + 1
        return self._wrap_heading(i)

    def _part(self, kind: str, part: str, i: int, rest: str) -> int:
        if self.s.law is None:
            return -1
        line = self.lines[i]
        self._check_order(kind, part, line)
        nxt, after = self.lookahead(i)
        no_titles = self.s.mode != "laws" and kind != "section"
        title, wrapped = (
            ("", False) if no_titles else split_title(rest, len(line.text.rstrip()), nxt, after)
        )
        node = self.b.open_part(kind, part, title, line)
        if node is None:
            return i + 1
        self.s.law_nodes.append(node)
        if wrapped:
            return (self.next_content(i) or i) + 1
        if not title and rest:
            self.add(line, rest)
        return i + 1

    def _check_order(self, kind: str, part: str, line: Line) -> None:
        level = LAW_KINDS.index(kind)
        for k in LAW_KINDS[level + 1 :]:
            self.s.last_part.pop(k, None)
        prev = self.s.last_part.get(kind)
        if part.isdigit():
            expected = str(int(prev) + 1) if prev else "1"
        else:
            expected = chr(ord(prev) + 1) if prev else ("A" if part.isupper() else "a")
        if part != expected:
            self.b.warn(line, f"{kind} {part!r} where {expected!r} was expected")
        self.s.last_part[kind] = part

    def on_section(self, i: int, m: re.Match[str]) -> int:
        return self._part("section", m.group(1), i, m.group(2))

    def on_subsection(self, i: int, m: re.Match[str]) -> int:
        return self._part("subsection", m.group(1), i, m.group(2))

    def on_subsection_nodot(self, i: int, m: re.Match[str]) -> int:
        prev = self.s.last_part.get("subsection")
        expected = str(int(prev) + 1) if prev else "1"
        if self.s.mode != "laws" or m.group(1) != expected or "section" not in self.s.last_part:
            return -1
        return self._part("subsection", m.group(1), i, m.group(2))

    def on_item(self, i: int, m: re.Match[str]) -> int:
        return self._part("item", m.group(1), i, m.group(2))

    def on_subitem(self, i: int, m: re.Match[str]) -> int:
        if "item" not in self.s.last_part:
            return -1
        return self._part("subitem", m.group(1), i, m.group(2))

    # -- footnotes -----------------------------------------------------------------
    def _anchor(self, marker: str) -> Node | None:
        """The nearest provision of this law whose text has an unused ``marker``."""
        pat = re.compile(r"(?<=[^\s*])" + re.escape(marker) + r"(?!\*)")
        for node in reversed(self.s.law_nodes):
            found = len(pat.findall("\n".join(self.b.own_lines(node))))
            if found > self.used.get(f"{node.id}|{marker}", 0):
                self.used[f"{node.id}|{marker}"] = self.used.get(f"{node.id}|{marker}", 0) + 1
                return node
        return None

    def on_footnote(self, i: int, m: re.Match[str]) -> int:
        if self.s.law is None:
            return -1
        marker = m.group(1)
        anchor = self._anchor(marker)
        line = self.lines[i]
        node = self.b.footnote(marker, keep_hyphen(m.group(2)), line, anchor=anchor or self.s.law)
        if anchor is None:
            # The Law 75 note is referred to in words ("alaviite 75 §:ään"), not by a mark.
            node.attrs["unmarked"] = True
        self.s.note = _Note(node)
        return i + 1

    def continue_note(self, i: int) -> int | None:
        """Feed a line to the open footnote; None when the note has ended."""
        note = self.s.note
        assert note is not None
        line, text = self.lines[i], self.text(i)
        if not text:
            j = self.next_content(i)
            if j is not None and _EXAMPLE_RE.match(self.text(j)):
                note.extended = True
            if not note.extended:
                self.s.note = None
            return i + 1
        law_level = any(r.match(text) for r in (_LAW_RE, _LUKU_RE, _OSA_RE, _JAKSO_RE))
        if law_level or (not note.extended and (line.page_break or is_structural(text))):
            self.s.note = None
            return None
        self.b.extend_footnote(note.node, keep_hyphen(line.text), line)
        return i + 1

    # -- driver --------------------------------------------------------------------
    def run(self) -> ParseResult:
        i = 0
        while i < len(self.lines):
            if self.is_furniture(i):
                i += 1
                continue
            if self.s.note is not None:
                nxt = self.continue_note(i)
                if nxt is not None:
                    i = nxt
                    continue
            text = self.text(i)
            if not text:
                i += 1
                continue
            i = self.dispatch(i, text)
        result = self.b.result()
        strip_leftover_markers(result.nodes)
        return result

    def dispatch(self, i: int, text: str) -> int:
        for _name, pattern, handler in self.rules:
            m = pattern.match(text)
            if m:
                nxt = handler(i, m)
                if nxt >= 0:
                    return nxt
        self.add(self.lines[i])
        return i + 1


_GLUED_RE = re.compile(r"(?<=[^\s*])(\*{1,2})(?!\*)")


def strip_leftover_markers(nodes: list[Node]) -> None:
    """Remove footnote marks the builder left (a note cited twice, ``pyytää**`` in 20F2).

    The mark is linked to the latest earlier footnote of the same law with that marker.
    """
    latest: dict[tuple[str | None, str], str] = {}
    for node in nodes:
        if node.kind == "footnote":
            latest[(node.law, str(node.attrs.get("marker")))] = node.id
            continue
        if node.kind not in LAW_KINDS:
            continue
        for marker in _GLUED_RE.findall(node.text):
            note = latest.get((node.law, marker))
            refs = node.attrs.setdefault("footnotes", [])
            if note and note not in refs:
                refs.append(note)
        node.text = _GLUED_RE.sub("", node.text)


def parse(raw: str, doc: Document) -> ParseResult:
    """Parse the fi-1997 book into its node tree.

    Args:
        raw: the whole source file.
        doc: the manifest entry of the book.

    Returns:
        The nodes (prefaces, chapters, definitions, laws and their parts, footnotes)
        and any warnings.
    """
    return Fi1997Parser(raw, doc).run()
