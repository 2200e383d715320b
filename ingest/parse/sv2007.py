"""Parser for ``sv-2007``: the Swedish Laws of Duplicate Bridge 2007 and its supplements.

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
sentence is decided by :meth:`_SvParser.title_or_text`. Footnotes (``*``, ``**``,
``***``) are printed at the end of a law and attach to the provisions of that law whose
text carries the glued marker (``oväntad*``).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import replace

from ..labels import ROMAN, slug
from ..lines import MARKER_RE, Line, split_lines
from ..model import LAW_KINDS, Document, Node, NodeAttrs, ParseResult
from . import framework
from .tree import TreeBuilder

UP = "A-ZÅÄÖÉ"
LOW = "a-zåäöé"
#: First supplementary law and the heading word that introduces the supplements.
SUPPLEMENT_FIRST = 94
SUPPLEMENT_WORD = "TILLÄGGSBESTÄMMELSER"
#: Front-matter heading that groups the following headings (the commission's remit).
PREFACE_GROUP = "FÖRBUNDET SVENSK BRIDGES LAGKOMMISSION"
#: A line at least this long was filled by the typesetter (running text wraps here).
FULL_LINE = 58
#: Words after which a line-end hyphen is always a real one (``icke-felande``).
HYPHEN_PREFIXES = frozenset({"icke"})
#: Index ``intro`` references point at this preface.
INTRO_LABEL = "preface/inledning"

# -- line rules (one idea each) -----------------------------------------------------
_PAGE_NUMBER_RE = re.compile(r"^\s*\d{1,3}\s*$")
_INDEX_HEADER_RE = re.compile(r"LAG/RUBRIK\s+SIDA")
_CAPS_RE = re.compile(rf"^[\s{UP}—–\-,.:/]*[{UP}]{{3}}[\s{UP}—–\-,.:/]*$")
_LAW_RE = re.compile(rf"^(\d{{1,3}})\.\s+([{UP}][^{LOW}]*?)\s*$")
_DEF_RE = re.compile(rf"^([{UP}][\w()/. ]{{0,38}}?) – (.*)$")
_FOOTNOTE_RE = re.compile(r"^\s*(\*{1,3})\s+(.*)$")
_SECTION_RE = re.compile(r"^\s*([A-Z])\.\s+(.*)$")
_SUBSECTION_RE = re.compile(r"^\s*(\d{1,2})[.)]\s+(.*)$")
_ITEM_RE = re.compile(r"^\s*(?:\(([a-z])\)|([a-z])[.)])\s+(.*)$")
_SUBITEM_RE = re.compile(r"^\s*\(([ivx]+|\d)\)\s+(.*)$")
_MARKER_LINE_RE = re.compile(
    r"^\s*(?:\d{1,3}\.\s|[A-Z]\.\s|\d{1,2}[.)]\s|\([a-z]{1,4}\)\s|[a-z][.)]\s|\(\d\)\s|\*+\s)"
)
_TEXT_END_RE = re.compile(r"[.,;:\-]\s*$")
_DOTS_RE = re.compile(r"\.{6,}")

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
    return framework.close_joiners(text)


def _next_letter(last: str | None, first: str) -> str:
    return first if last is None else chr(ord(last) + 1)


def _next_number(last: str | None) -> str:
    return "1" if last is None else str(int(last) + 1)


def _next_roman(last: str | None) -> str:
    if last is None:
        return "i"
    return ROMAN[ROMAN.index(last) + 1] if last in ROMAN[:-1] else "?"


def protect_hyphens(lines: list[Line], raw: str) -> list[Line]:
    """Mark line-end hyphens that are real (``icke-\\nfelande``, ``25-0-\\nskalan``).

    A hyphen is kept after a digit or an abbreviation in capitals, and when the book
    writes the hyphenated compound elsewhere but never the joined word.
    """
    vocab = Counter(w.lower() for w in re.findall(r"\w+(?:-\w+)+|\w+", MARKER_RE.sub("\n", raw)))
    out = list(lines)
    for i, line in enumerate(out):
        m = re.search(r"([\w-]*\w)-\s*$", line.text)
        if not m:
            continue
        nxt = next((n for n in out[i + 1 : i + 8] if n.stripped and not _is_furniture(n)), None)
        w = re.match(r"\s*(\w+)", nxt.text) if nxt else None
        if not w:
            continue
        left, right = m.group(1), w.group(1)
        last_part = left.split("-")[-1]
        joined, hyphened = (left + right).lower(), f"{left}-{right}".lower()
        keep = (
            last_part[-1].isdigit()
            or last_part.lower() in HYPHEN_PREFIXES
            or (len(last_part) > 1 and last_part.isupper())
            or (vocab[hyphened] > 0 and vocab[joined] == 0)
        )
        if keep:
            text = line.text[: m.end(1)] + "-" + framework.JOINER + line.text[m.end(1) + 1 :]
            out[i] = replace(line, text=text)
    return out


def _is_furniture(line: Line) -> bool:
    return bool(_PAGE_NUMBER_RE.match(line.text) or _INDEX_HEADER_RE.search(line.text))


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


class _SvParser:
    def __init__(self, raw: str, doc: Document) -> None:
        self.lines = protect_hyphens(split_lines(raw), raw)
        self.b = TreeBuilder(doc, text_filter=text_filter)
        self.mode = "front"
        self.next_law = 1
        self.supplement = False
        self.skip: set[int] = set()
        self.last_part: dict[tuple[str, str], str] = {}
        self.front_group: Node | None = None
        self.prev_kind = ""  # "def_end" when the previous definition line ended a sentence
        self.seen_law = False
        self.fn: Node | None = None
        self.fn_carriers: dict[str, list[str]] = {}
        self.defs: dict[str, str] = {}
        self.index_n = 0
        self.index_head: Node | None = None
        self.index_entry: Node | None = None
        self.index_prefix = ""

    # -- helpers ---------------------------------------------------------------------
    def next_content(self, i: int) -> int | None:
        for j in range(i + 1, min(i + 12, len(self.lines))):
            if self.lines[j].stripped and not _is_furniture(self.lines[j]):
                return j
        return None

    def add(self, line: Line, text: str | None = None) -> None:
        self.b.add(line, text)

    def open(self, kind: str, part: str, title: str, line: Line) -> Node | None:
        attrs = NodeAttrs(supplement=True) if self.supplement else NodeAttrs()
        node = self.b.open_part(kind, part, title, line, **attrs)
        if node is not None and node.parent:
            self.last_part[(node.parent, kind)] = part
        return node

    def expected(self, kind: str) -> set[str]:
        parent = self.b.container(kind)
        if parent is None or (kind == "subitem" and parent.kind != "item"):
            return set()
        last = self.last_part.get((parent.id, kind))
        if kind == "section":
            return {_next_letter(last, "A")}
        if kind == "subsection":
            return {_next_number(last)}
        if kind == "item":
            return {_next_letter(last, "a")}
        if last is None:
            return {"i", "1"}
        return {_next_number(last)} if last.isdigit() else {_next_roman(last)}

    def title_or_text(self, kind: str, rest: str, i: int) -> tuple[str, str]:
        """Decide whether ``rest`` (the words after a marker) is a title or text.

        A title never ends in punctuation or starts in lower case. A line the typesetter
        filled is running text unless a section title wraps onto a short line
        (``B. Pass av … från spelföraren`` / ``eller träkarlen``).
        """
        rest = rest.strip()
        if not rest or rest[0].islower() or _TEXT_END_RE.search(rest):
            return "", rest
        width = len(self.lines[i].text.rstrip())
        j = self.next_content(i)
        if j is None:
            return rest, ""
        nxt = self.lines[j].text
        body = _MARKER_LINE_RE.sub("", nxt, count=1).strip()
        starts_upper = bool(body) and not body[0].islower()
        if kind != "section":
            if not self.supplement or width >= FULL_LINE or not starts_upper:
                return "", rest
            return rest, ""
        if _MARKER_LINE_RE.match(nxt) or starts_upper:
            return rest, ""
        k = self.next_content(j)
        after = self.lines[k].text.strip() if k is not None else ""
        short = len(nxt.strip()) < 45 and not _TEXT_END_RE.search(nxt)
        wrapped = short and (nxt.startswith("   ") or width >= FULL_LINE)
        if wrapped and (not after or not after[0].islower()):
            self.skip.add(j)
            return f"{rest} {nxt.strip()}", ""
        if width < FULL_LINE:
            return rest, ""
        return "", rest

    def open_with_text(self, kind: str, part: str, rest: str, i: int) -> None:
        self.open(kind, part, "", self.lines[i])
        self.title_and_text(kind, rest, i)

    def title_and_text(self, kind: str, rest: str, i: int) -> None:
        """Give the node just opened its title or its first line of text."""
        title, text = self.title_or_text(kind, rest, i)
        if title:
            self.b.continue_title(title)
        elif text:
            self.add(self.lines[i], text)

    # -- front matter and definitions ----------------------------------------------------
    def front(self, i: int, line: Line) -> None:
        s = line.stripped
        if s == "DEFINITIONER":
            self.mode = "defs"
            self.b.end_law_tree()
            return
        if _CAPS_RE.match(s) and not s.startswith(("—", "–")):
            parent = self.front_group.id if self.front_group else None
            node = self.b.open_special("preface", f"preface/{slug(s)}", s, line, parent=parent)
            j = self.next_content(i)
            if j is not None and self.lines[j].stripped.startswith(("—", "–")):
                self.b.continue_title(self.lines[j].stripped)
                self.skip.add(j)
            if s == PREFACE_GROUP:
                self.front_group = node
            return
        self.add(line)

    def definition(self, i: int, line: Line) -> None:
        m = _DEF_RE.match(line.text)
        if m and self.prev_kind in ("", "def_end"):
            term = m.group(1).strip()
            node = self.b.open_special("definition", f"def/{slug(term)}", term, line, term=term)
            self.defs[term] = node.label
            self.add(line, m.group(2))
        else:
            self.add(line)
        self.prev_kind = "def_end" if re.search(r"[.)”]\s*$", line.text) else "def"

    # -- law rules ---------------------------------------------------------------------
    def rule_index_start(self, i: int, line: Line) -> bool:
        if not _DOTS_RE.search(line.text):
            return False
        self.b.end_law_tree()
        self.b.set_container(None)
        self.fn = None
        self.mode = "index"
        self.index_line(i, line)
        return True

    def rule_law(self, i: int, line: Line) -> bool:
        m = _LAW_RE.match(line.text)
        if not m or (self.seen_law and int(m.group(1)) != self.next_law):
            return False
        self.mode, self.seen_law = "laws", True
        self.next_law = int(m.group(1))
        self.fn = None
        number = m.group(1)
        attrs = NodeAttrs(supplement=True, national="SE") if self.supplement else NodeAttrs()
        self.b.open_law(number, m.group(2), line, **attrs)
        self.next_law += 1
        j = self.next_content(i)
        if j is not None and self.lines[j].text.startswith("   "):
            cont = self.lines[j].stripped
            if _CAPS_RE.match(cont):
                self.b.continue_title(cont)
                self.skip.add(j)
        return True

    def rule_chapter(self, i: int, line: Line) -> bool:
        s = line.stripped
        if not _CAPS_RE.match(s):
            return False
        j = self.next_content(i)
        if s != SUPPLEMENT_WORD and (j is None or self.lines[j].stripped != SUPPLEMENT_WORD):
            return False
        self.b.end_law_tree()
        self.fn = None
        node = self.b.open_special(
            "chapter", f"chapter/{slug(SUPPLEMENT_WORD)}", s, line, supplement=True, national="SE"
        )
        if s != SUPPLEMENT_WORD and j is not None:
            self.b.continue_title(self.lines[j].stripped)
            self.skip.add(j)
        self.b.set_container(node.id)
        self.supplement = True
        self.mode = "laws"
        return True

    def rule_footnote(self, i: int, line: Line) -> bool:
        m = _FOOTNOTE_RE.match(line.text)
        law = self.b.law_node
        if not m or law is None:
            return False
        marker = m.group(1)
        pat = re.compile(r"(?<=[^\s*])" + re.escape(marker) + r"(?!\*)")
        carriers: list[Node] = []
        for node in reversed(self.b.text_nodes()):
            if node.kind != "footnote" and pat.search("\n".join(self.b.own_lines(node))):
                carriers.insert(0, node)
            if node is law:
                break
        anchor = carriers[0] if carriers else None
        self.fn = self.b.footnote(marker, m.group(2), line, anchor=anchor)
        self.fn_carriers[self.fn.id] = [c.id for c in carriers]
        return True

    def rule_footnote_text(self, i: int, line: Line) -> bool:
        if self.fn is None:
            return False
        self.b.extend_footnote(self.fn, line.text, line)
        return True

    def rule_section(self, i: int, line: Line) -> bool:
        m = _SECTION_RE.match(line.text)
        if not m or m.group(1) not in self.expected("section"):
            return False
        self.open_with_text("section", m.group(1), m.group(2), i)
        return True

    def rule_subsection(self, i: int, line: Line) -> bool:
        m = _SUBSECTION_RE.match(line.text)
        if not m or m.group(1) not in self.expected("subsection"):
            return False
        rest = m.group(2)
        self.open("subsection", m.group(1), "", line)
        item = _ITEM_RE.match(rest)
        letter = item and (item.group(1) or item.group(2))
        if item and letter in self.expected("item"):
            self.open_with_text("item", letter, item.group(3), i)
            return True
        self.title_and_text("subsection", rest, i)
        return True

    def rule_item(self, i: int, line: Line) -> bool:
        m = _ITEM_RE.match(line.text)
        if not m:
            return False
        letter = m.group(1) or m.group(2)
        if letter not in self.expected("item"):
            return False
        rest = m.group(3)
        self.open("item", letter, "", line)
        sub = _SUBITEM_RE.match(rest)
        if sub and sub.group(1) in self.expected("subitem"):
            self.open_with_text("subitem", sub.group(1), sub.group(2), i)
            return True
        self.title_and_text("item", rest, i)
        return True

    def rule_subitem(self, i: int, line: Line) -> bool:
        m = _SUBITEM_RE.match(line.text)
        if not m or m.group(1) not in self.expected("subitem"):
            return False
        self.open_with_text("subitem", m.group(1), m.group(2), i)
        return True

    def rule_after_list(self, i: int, line: Line) -> bool:
        """An indented paragraph after a finished, untitled list entry of a supplement
        belongs to the entry's owner (``98A`` after ``e) …``, ``109A`` after ``3) …``)."""
        cur = self.b.current_node
        if not (self.supplement and line.text[:1].isspace() and line.stripped[:1].isupper()):
            return False
        if cur is None or cur.kind not in LAW_KINDS[1:] or self.b.current_has_title:
            return False
        own = "".join(self.b.own_lines(cur))
        if cur.kind == "section" and not own.strip()[:1].islower():
            return False
        if not own.rstrip().endswith("."):
            return False
        self.b.resume_parent()
        self.add(line)
        return True

    def rule_text(self, i: int, line: Line) -> bool:
        self.add(line)
        return True

    LAW_RULES = (
        "rule_index_start",
        "rule_law",
        "rule_chapter",
        "rule_footnote",
        "rule_footnote_text",
        "rule_section",
        "rule_subsection",
        "rule_item",
        "rule_subitem",
        "rule_after_list",
        "rule_text",
    )

    @property
    def FRONT_RULES(self):  # noqa: N802 - a rule table like LAW_RULES
        return (self.rule_index_start, self.rule_law, self.rule_chapter)

    # -- subject index -----------------------------------------------------------------
    def index_line(self, i: int, line: Line) -> None:
        s = line.stripped
        indent = line.text[:1].isspace()
        if m := _SEE_RE.match(s):
            if self.index_entry is not None:
                self.index_entry.attrs.setdefault("see", []).append(m.group(1))
            return
        if m := _NOTE_RE.match(s):
            if self.index_entry is not None:
                self.index_entry.attrs["note"] = m.group(1)
            return
        if m := _SEE_ENTRY_RE.match(s):
            self.index_term(line, indent, m.group("term"), [], [], see=[m.group("see")[3:]])
            return
        m = _ENTRY_RE.match(s)
        if m and m.group("term").strip():
            refs = [r.strip() for r in m.group("refs").split(",")]
            pages = [p.strip() for p in (m.group("pages") or "").split(",") if p.strip()]
            self.index_term(line, indent, m.group("term"), refs, pages)
            return
        j = self.next_content(i)
        if s.endswith(",") and j is not None and _ENTRY_RE.match(self.lines[j].stripped):
            self.index_prefix = s + " "
            return
        self.index_term(line, indent, s, [], [])

    def index_term(self, line, indent, term, refs, pages, see=None) -> None:
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

    # -- driver ----------------------------------------------------------------------
    def run(self) -> ParseResult:
        for i, line in enumerate(self.lines):
            if i in self.skip or not line.stripped or _is_furniture(line):
                continue
            if self.mode in ("front", "defs"):
                if any(rule(i, line) for rule in self.FRONT_RULES):
                    continue
                if self.mode == "front":
                    self.front(i, line)
                else:
                    self.definition(i, line)
            elif self.mode == "laws":
                for name in self.LAW_RULES:
                    if getattr(self, name)(i, line):
                        break
            else:
                self.index_line(i, line)
        result = self.b.result()
        self.finish(result)
        return result

    def finish(self, result: ParseResult) -> None:
        """Strip every carrier's markers, resolve index targets, record index labels."""
        by_id = result.by_id()
        for fn_id, carriers in self.fn_carriers.items():
            fn = by_id[fn_id]
            marker = str(fn.attrs["marker"])
            pat = re.compile(r"(?<=[^\s*])" + re.escape(marker) + r"(?!\*)")
            for nid in carriers:
                node = by_id[nid]
                node.text = pat.sub("", node.text)
                notes = node.attrs.setdefault("footnotes", [])
                if fn_id not in notes:
                    notes.append(fn_id)
            if len(carriers) > 1:
                fn.attrs["also_marked"] = carriers[1:]
        fn_by_law: dict[str, str] = {}
        for n in result.nodes:
            if n.kind == "footnote" and n.law:
                fn_by_law.setdefault(n.law, n.label)
        labels: list[str] = []
        for n in result.nodes:
            if n.kind != "index_term":
                continue
            head = by_id.get(n.parent) if n.parent else None
            term = str(head.attrs["term"] if head is not None else n.attrs["term"])
            targets = [self.resolve(str(r), term, fn_by_law) for r in n.attrs["refs"]]
            n.attrs["targets"] = targets
            labels.extend(targets)
        result.index_labels = labels

    def resolve(self, ref: str, term: str, fn_by_law: dict[str, str]) -> str:
        if ref == "def":
            return self.definition_label(term)
        if ref == "intro":
            return INTRO_LABEL
        if ref.endswith(" fotnot"):
            law = ref.split()[0]
            return fn_by_law.get(law, f"fn/{law}")
        return parse_label(ref) or ref

    def definition_label(self, term: str) -> str:
        """The definition an index ``def`` reference means (by the entry's term).

        Tried in turn: the term, the term without its parenthesis, the parenthesis
        (``IMP (International Matchpoint)``), the first word (``Spela ut`` -> ``Spela``)
        and a shared stem (``Redubbling`` -> ``Redubbelt``).
        """
        keys: dict[str, str] = {}
        for term_, label in self.defs.items():
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


def parse(raw: str, doc: Document) -> ParseResult:
    """Parse the Swedish 2007 law book into its node tree.

    Args:
        raw: the whole source file.
        doc: its manifest entry.

    Returns:
        Nodes (prefaces, definitions, laws 1-116 with their provisions, footnotes,
        the supplements chapter and index terms), warnings and the index's labels.
    """
    return _SvParser(raw, doc).run()


@framework.parser("sv2007")
def parse_book(raw: str, doc: Document, settings: framework.Settings) -> ParseResult:
    """Walk the book with its settings table (``corpus/parsers/sv2007.toml``)."""
    return parse(raw, doc)
