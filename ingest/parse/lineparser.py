"""The settings-driven line parser and the shared rules it dispatches.

A book printed one marker per line is walked line by line: page furniture (``[values]
furniture``) is skipped, and every other line is offered to the rules of the book's
settings table that apply to the current part of the book (``modes``: ``front``,
``defs``, ``laws``, ``index`` or a mode of the book's own), in order; a line no rule
takes is text of the node last opened.

The shared rules (registered as ``shared``, one idea each):

* ``preface``: a heading in the front matter (numbered ``preface/N`` or, with
  ``[values] preface_label = "slug"``, named after its title);
* ``definitions``: the heading of the definitions; ``definition``: a term on a line of
  its own after a blank line; ``term line``: a term on a line of its own where a
  sentence ended; ``term and text``: ``Term – text`` on one line;
* ``law``: a law heading with its number and title; ``supplement``: the heading of a
  national supplement, whose laws and provisions carry ``[values.supplement]`` attributes;
* ``section``, ``subsection``, ``item``, ``subitem``: a provision, numbered by
  ``[numbering]`` (``sequence = "warn"``: an unexpected marker is reported;
  ``"strict"``: it is running text; ``inline``: the next levels a line may open too),
  titled by the title test ``[title] test`` names (:data:`TITLE_TESTS`: ``split_title``,
  ``filled_line``, ``title_case``);
* ``footnote``: a note anchored to the nearest provision carrying its mark, ending at a
  blank line; ``law footnote`` and ``note text``: a note printed at the end of a law,
  running until the next heading, listed by every provision of the law carrying its mark;
* ``index``: the subject index begins (its entries are a book's own rules).

Other ``[values]``: ``match = "line"`` (patterns see the printed line, indentation
included; else the stripped line), ``lookahead`` (how many lines a rule may look
ahead), ``blank_lines = "read"`` (blank lines go through the rules too), ``notes =
"law"`` (no page-end notes: ``note text`` feeds them), ``structural`` (patterns of lines
that end a title or note). Steps named by ``[values] finish`` run on the finished
nodes (:data:`FINISHERS`). A book with a layout of its own subclasses
:class:`LineParser` (hooks :meth:`~LineParser.builder`, :meth:`~LineParser.read`,
:meth:`~LineParser.line_done`, :meth:`~LineParser.end`) and registers its rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from ..clean import dehyphenate_inline
from ..labels import slug
from ..lines import Line, split_lines
from ..model import ATTR_KEYS, LAW_KINDS, Document, Node, NodeAttrs, ParseResult
from .framework import (
    BoundRule,
    Settings,
    SettingsError,
    bind_rules,
    close_joiners,
    dispatch,
    fits,
    glued_marker,
    has_lower,
    is_heading,
    is_strict_heading,
    join_title,
    marker_label,
    next_marker,
    parser,
    protect_hyphen,
    protect_line_ends,
    rule,
    rules_in,
    scheme_of,
    schemes,
    split_title,
)
from .tree import TreeBuilder


@dataclass
class _Note:
    node: Node
    extended: bool = False  # a note that runs on over examples


@dataclass
class LineState:
    """Where the walk is: the part of the book and the current law."""

    mode: str = "front"  # front, defs, laws, index (and book modes such as a supplement)
    def_parent: Node | None = None
    law: Node | None = None
    law_nodes: list[Node] = field(default_factory=list)
    last_law: int | None = None  # None: no law seen yet in this series
    last_part: dict[str, str] = field(default_factory=dict)
    note: _Note | None = None
    prefaces: int = 0
    preface_group: Node | None = None  # a front heading that holds those after it
    supplement: bool = False  # inside a national supplement
    paragraph_end: bool = True  # the last definition line ended its sentence
    extra: dict[str, Any] = field(default_factory=dict)


def is_caps_line(text: str) -> bool:
    """A heading continuation: letters, none of them lower case."""
    return any(c.isalpha() for c in text) and not has_lower(text)


def marker_of(m: re.Match[str]) -> str:
    """The marker a provision pattern matched: its first group that took part (a
    pattern may print a level two ways, ``(a)`` or ``a)``, as two groups)."""
    return next(g for g in m.groups()[:-1] if g is not None)


def rest_of(m: re.Match[str]) -> str:
    """The words after the marker: a provision pattern's last group."""
    return m.groups()[-1] or ""


def node_attrs(value: Any, where: str) -> NodeAttrs:
    """Node attributes given in a settings table.

    Raises:
        SettingsError: naming ``where``, if a key is not a node attribute.
    """
    if not isinstance(value, dict) or not value.keys() <= ATTR_KEYS:
        raise SettingsError(f"{where}: not node attributes: {value!r}")
    return cast(NodeAttrs, dict(value))


#: Text filters a settings table may name (``[hyphen] filters``), in order.
TEXT_FILTERS: dict[str, Callable[[str], str]] = {"close_joiners": close_joiners}

#: A title test: ``(parser, kind, words after the marker, line index)`` -> (title, text,
#: index of the next line to read). ``[title] test`` names the one a book uses.
TitleTest = Callable[["LineParser", str, str, int], tuple[str, str, int]]


class LineParser:
    """Walks a book line by line with the rules its settings table lists."""

    def __init__(self, raw: str, doc: Document, settings: Settings) -> None:
        self.doc = doc
        self.settings = settings
        values, hyphen = settings.values, settings.hyphen
        self.furniture = settings.pattern_list("furniture")
        lines = split_lines(raw)
        if hyphen.get("scan"):
            lines = protect_line_ends(
                lines,
                raw,
                lambda ln: any(p.match(ln.text) for p in self.furniture),
                hyphen.get("prefixes", ()),
                bool(hyphen.get("vocabulary")),
            )
        self.lines = lines
        self.b = self.builder()
        self.s = LineState()
        self.used: dict[str, int] = {}
        self.rules = bind_rules(settings)
        self._by_mode: dict[str, list[BoundRule]] = {}
        self.structural = settings.pattern_list("structural")
        self.note_ends = settings.pattern_list("note_ends")
        self.term_not_before = settings.pattern_list("term_not_before")
        runs_on = values.get("note_runs_on")
        self.note_runs_on = settings.pattern(runs_on) if runs_on else None
        self.notes_at_page_end = values.get("notes", "page") == "page"
        self.keep = settings.keep_hyphen
        self.law_modes = tuple(values.get("law_modes", ("front", "defs", "laws")))
        self.untitled_modes = tuple(values.get("untitled_modes", ()))
        self.match_line = values.get("match", "stripped") == "line"
        self.read_blank = values.get("blank_lines", "skip") == "read"
        self.lookahead_limit: int | None = values.get("lookahead")
        numbering = settings.numbering
        self.strict = numbering.get("sequence", "warn") == "strict"
        self.inline: dict[str, list[str]] = dict(numbering.get("inline", {}))
        self.inline_depth = int(numbering.get("inline_depth", 100 if self.inline else 0))
        self.inline_after_title = bool(numbering.get("inline_after_title"))
        self.seq: dict[tuple[str, str], str] = {}  # (parent id, kind) -> last marker
        self.carriers: dict[str, list[str]] = {}  # footnote id -> provisions with its mark
        test = settings.title.get("test", "split_title")
        if test not in TITLE_TESTS:
            raise SettingsError(f"{settings.path}: unknown title test {test!r}")
        self.title_test = TITLE_TESTS[test]
        sup = values.get("supplement", {})
        where = f"{settings.path} [values.supplement]"
        self.supplement_attrs = {
            k: node_attrs(sup.get(k, {}), where) for k in ("law", "part", "chapter")
        }

    def builder(self) -> TreeBuilder:
        """The tree builder, with the book's conjunctions and text filters."""
        s = self.settings
        return TreeBuilder(self.doc, conjunctions=s.conjunctions, text_filter=text_filter(s))

    # -- helpers -------------------------------------------------------------------
    def text(self, i: int) -> str:
        return self.lines[i].stripped if 0 <= i < len(self.lines) else ""

    def read(self, i: int, record: bool = True) -> str:
        """The text of line ``i`` as the rules see it: the printed line, or what a book
        makes of it (el-2017 cuts its footnote marks out, remembering them unless
        ``record`` is False, a look ahead)."""
        return self.lines[i].text

    def line_done(self, i: int) -> None:
        """Called when line ``i`` has been read (a book may settle what it noted)."""

    def end(self) -> None:
        """Called after the last line, before the nodes are finished."""

    def is_furniture(self, i: int) -> bool:
        t = self.lines[i].text
        return any(p.match(t) for p in self.furniture)

    def is_structural(self, text: str) -> bool:
        """Does a stripped line open a heading, law, part or footnote?"""
        return any(r.match(text) for r in self.structural)

    def next_content(self, i: int) -> int | None:
        """Index of the next line with text (page furniture skipped), looking at most
        ``[values] lookahead`` lines ahead."""
        end = len(self.lines)
        if self.lookahead_limit is not None:
            end = min(end, i + 1 + self.lookahead_limit)
        j = i + 1
        while j < end and (not self.text(j) or self.is_furniture(j)):
            j += 1
        return j if j < end else None

    def lookahead(self, i: int) -> tuple[str | None, str | None]:
        """The next two lines with text (blank lines and page furniture skipped)."""
        j = self.next_content(i)
        if j is None:
            return None, None
        k = self.next_content(j)
        return self.text(j), (self.text(k) if k is not None else None)

    def protect(self, text: str) -> str:
        return protect_hyphen(text, self.keep) if self.keep is not None else text

    def add(self, line: Line, text: str | None = None) -> None:
        self.b.add(line, self.protect(text if text is not None else line.text))

    def law_attrs(self) -> NodeAttrs:
        """Attributes every law of the current mode gets (a book's supplements)."""
        return self.supplement_attrs["law"].copy() if self.s.supplement else NodeAttrs()

    def part_attrs(self) -> NodeAttrs:
        """Attributes every provision below a law gets in the current mode."""
        return self.supplement_attrs["part"].copy() if self.s.supplement else NodeAttrs()

    def law_prefix(self) -> str:
        """A prefix for law labels of the current mode (numbering that restarts)."""
        return ""

    def wrap_heading(self, i: int) -> int:
        """Take an all-capitals next line as the rest of a heading."""
        nxt = self.text(i + 1)
        if nxt and is_caps_line(nxt) and not self.is_structural(nxt):
            self.b.continue_title(nxt)
            return i + 2
        return i + 1

    def line_test(self, name: str) -> Callable[[str], bool]:
        """A test of a printed line: a pattern of the table or one of :data:`LINE_TESTS`.

        Raises:
            SettingsError: naming the table, if ``name`` is neither.
        """
        if name in self.settings.patterns:
            pattern = self.settings.patterns[name]
            return lambda text: pattern.match(text) is not None
        if name in LINE_TESTS:
            return LINE_TESTS[name]
        raise SettingsError(f"{self.settings.path}: no pattern or line test {name!r}")

    def heading_more(self, i: int, first: str, key: str) -> tuple[list[str], int]:
        """The lines that continue the heading on line ``i`` and the line to read next.

        ``[title] <key>`` says what continues it: a table ``{test, lines, max,
        letter_start}`` (or just the ``test``): the next lines with text that pass the
        ``test`` (:meth:`line_test`), at most ``lines`` of them (1; 0 for any number),
        each at most ``max`` characters and, with ``letter_start``, starting with a
        letter unless the line before ended with a hyphen; a line that opens a part
        (``[values] structural``) ends it. Without the key: an all-capitals next line.
        """
        spec = self.settings.title.get(key)
        if spec is None:
            line = self.text(i + 1)
            if line and is_caps_line(line) and not self.is_structural(line):
                return [line], i + 2
            return [], i + 1
        if isinstance(spec, str):
            spec = {"test": spec}
        test = self.line_test(spec["test"])
        limit, max_len = int(spec.get("lines", 1)), spec.get("max")
        parts: list[str] = []
        nxt = i + 1
        j = self.next_content(i)
        while j is not None and (limit == 0 or len(parts) < limit):
            seen = self.read(j, record=False)
            t = seen.strip()
            if not test(seen) or self.is_structural(t) or (max_len and len(t) > max_len):
                break
            before = parts[-1] if parts else first
            if spec.get("letter_start") and not (before.endswith("-") or t[:1].isalpha()):
                break
            parts.append(self.read(j).strip())
            nxt = j + 1
            j = self.next_content(j)
        return parts, nxt

    def title_with(self, title: str, parts: list[str]) -> tuple[str, list[str]]:
        """A heading's title and the lines to add to it: with ``[title] join =
        "close_hyphens"`` one title (:func:`~.framework.join_title`), else its lines."""
        if parts and self.settings.title.get("join") == "close_hyphens":
            return join_title([title, *parts]), []
        return title, parts

    # -- numbering -----------------------------------------------------------------
    def check_order(self, kind: str, part: str, line: Line) -> None:
        """Warn when ``part`` is not the marker that comes next at its level."""
        level = LAW_KINDS.index(kind)
        for k in LAW_KINDS[level + 1 :]:
            self.s.last_part.pop(k, None)
        prev = self.s.last_part.get(kind)
        scheme = self.settings.numbering.get(kind) or scheme_of(part)
        if scheme in ("upper", "lower") and prev is None:
            scheme = scheme_of(part)  # a level that may start with either case
        expected = next_marker(scheme, prev)
        if part != expected:
            self.b.warn(line, f"{kind} {part!r} where {expected!r} was expected")
        self.s.last_part[kind] = part

    def in_sequence(self, kind: str, printed: str) -> str | None:
        """The label part of ``printed`` if it is the next marker of its level under
        the open provision it would hang from; None if it is not (then it is text).

        A level numbered by several schemes takes the first marker of any of them and
        then keeps to that scheme; ``[numbering] subitem_under`` names the only kind a
        sub-item hangs from.
        """
        parent = self.b.container(kind)
        if parent is None:
            return None
        under = self.settings.numbering.get("subitem_under")
        if kind == "subitem" and under and parent.kind != under:
            return None
        last = self.seq.get((parent.id, kind))
        for scheme in schemes(self.settings.numbering, kind):
            if last is not None and not fits(scheme, last):
                continue
            expected = next_marker(scheme, last)
            if fits(scheme, printed) and fits(scheme, expected):
                label = marker_label(scheme, printed)
                if label == marker_label(scheme, expected):
                    return label
            if last is not None:
                return None
        return None

    def part(self, kind: str, printed: str, i: int, rest: str, depth: int = 0) -> int:
        """Open a provision below the law; its title or first text from ``rest``.

        ``rest`` may open the next level on the same line (``[numbering] inline``:
        ``1. (a) text``), down to ``inline_depth`` levels; such a marker wins over a
        title unless ``inline_after_title``.
        """
        line = self.lines[i]
        if self.strict:
            label = self.in_sequence(kind, printed)
            if label is None:
                return -1
        else:
            if self.s.law is None:
                return -1
            self.check_order(kind, printed, line)
            label = printed
        node = self.b.open_part(kind, label, "", line, **self.part_attrs())
        if node is None:
            return i + 1
        self.s.law_nodes.append(node)
        if node.parent:
            self.seq[(node.parent, kind)] = printed
        if self.inline_after_title:
            title, text, nxt = self.title_test(self, kind, rest, i)
            if title:
                self.b.continue_title(title)
                return nxt
        if depth < self.inline_depth:
            for sub in self.inline.get(kind, ()):
                m = self.settings.pattern(sub).match(rest)
                if m:
                    nested = self.part(sub, marker_of(m), i, rest_of(m), depth + 1)
                    if nested >= 0:
                        return nested
        if not self.inline_after_title:
            title, text, nxt = self.title_test(self, kind, rest, i)
        if title:
            self.b.continue_title(title)
        elif text:
            self.add(line, text)
        return nxt

    # -- footnotes -----------------------------------------------------------------
    def anchor(self, marker: str) -> Node | None:
        """The nearest provision of this law whose text has an unused ``marker``."""
        pat = glued_marker(marker)
        for node in reversed(self.s.law_nodes):
            found = len(pat.findall("\n".join(self.b.own_lines(node))))
            if found > self.used.get(f"{node.id}|{marker}", 0):
                self.used[f"{node.id}|{marker}"] = self.used.get(f"{node.id}|{marker}", 0) + 1
                return node
        return None

    def continue_note(self, i: int) -> int | None:
        """Feed a line to the open footnote; None when the note has ended."""
        note = self.s.note
        assert note is not None
        line, text = self.lines[i], self.text(i)
        if not text:
            j = self.next_content(i)
            if j is not None and self.note_runs_on and self.note_runs_on.match(self.text(j)):
                note.extended = True
            if not note.extended:
                self.s.note = None
            return i + 1
        law_level = any(r.match(text) for r in self.note_ends)
        if law_level or (not note.extended and (line.page_break or self.is_structural(text))):
            self.s.note = None
            return None
        self.b.extend_footnote(note.node, self.protect(line.text), line)
        return i + 1

    # -- driver --------------------------------------------------------------------
    def rules_now(self) -> list[BoundRule]:
        """The rules of the current part of the book."""
        mode = self.s.mode
        if mode not in self._by_mode:
            self._by_mode[mode] = rules_in(self.rules, mode)
        return self._by_mode[mode]

    def run(self) -> ParseResult:
        i = 0
        while i < len(self.lines):
            if self.is_furniture(i):
                i += 1
                continue
            if self.s.note is not None and self.notes_at_page_end:
                nxt = self.continue_note(i)
                if nxt is not None:
                    i = nxt
                    continue
            read = self.read(i)
            text = read.strip()
            if not text and not self.read_blank:
                i += 1
                continue
            nxt = dispatch(self.rules_now(), self, i, read if self.match_line else text)
            if nxt is None:
                self.add(self.lines[i], read if text else "")
                nxt = i + 1
            self.line_done(i)
            i = nxt
        self.end()
        result = self.b.result()
        for name in self.settings.values.get("finish", ()):
            FINISHERS[name](self, result)
        return result


def text_filter(settings: Settings) -> Callable[[str], str]:
    """The text filters ``[hyphen] filters`` names (default ``close_joiners``), in order:
    :data:`TEXT_FILTERS`, or ``dehyphenate_inline`` (rejoin ``TARJOUK- SEN`` where pages
    were joined into one line, keeping the hyphen before the book's conjunctions)."""
    conjunctions = settings.conjunctions
    filters: list[Callable[[str], str]] = []
    for name in settings.hyphen.get("filters", ["close_joiners"]):
        if name == "dehyphenate_inline":
            filters.append(lambda t: dehyphenate_inline(t, conjunctions))
        elif name in TEXT_FILTERS:
            filters.append(TEXT_FILTERS[name])
        else:
            raise SettingsError(f"{settings.path}: unknown text filter {name!r}")

    def run(text: str) -> str:
        for f in filters:
            text = f(text)
        return text

    return run


# -- title tests -----------------------------------------------------------------------
def title_by_split(p: LineParser, kind: str, rest: str, i: int) -> tuple[str, str, int]:
    """The shared :func:`~.framework.split_title` with the book's thresholds; no titles
    below sections in ``[values] untitled_modes``."""
    if p.s.mode in p.untitled_modes and kind != "section":
        return "", rest, i + 1
    line = p.lines[i]
    nxt, after = p.lookahead(i)
    title, wrapped = split_title(
        rest, len(line.text.rstrip()), nxt, after, p.is_structural, p.settings.title
    )
    if wrapped:
        return title, "", (p.next_content(i) or i) + 1
    return title, ("" if title else rest), i + 1


def title_by_filled_line(p: LineParser, kind: str, rest: str, i: int) -> tuple[str, str, int]:
    """A title never ends in punctuation (``[patterns] text_end``) or starts in lower
    case, and is followed by a line that starts in upper case or with a marker
    (``[patterns] marker_line``). A line the typesetter filled (``[title] full_line``
    characters or more) is running text, unless a section title wraps onto a short
    line (under ``wrap_max`` characters, indented by ``wrap_indent`` spaces or after a
    filled line). Kinds in ``only_in_supplement`` are titled only in a supplement, and
    only from a line that is not filled.
    """
    t = p.settings.title
    full, text_end = int(t["full_line"]), p.settings.pattern("text_end")
    marker_line = p.settings.pattern("marker_line")
    rest = rest.strip()
    if not rest or rest[0].islower() or text_end.search(rest):
        return "", rest, i + 1
    width = len(p.lines[i].text.rstrip())
    j = p.next_content(i)
    if j is None:
        return rest, "", i + 1
    nxt = p.lines[j].text
    body = marker_line.sub("", nxt, count=1).strip()
    starts_upper = bool(body) and not body[0].islower()
    if kind in t.get("only_in_supplement", ()):
        if not p.s.supplement or width >= full or not starts_upper:
            return "", rest, i + 1
        return rest, "", i + 1
    if marker_line.match(nxt) or starts_upper:
        return rest, "", i + 1
    k = p.next_content(j)
    after = p.lines[k].text.strip() if k is not None else ""
    short = len(nxt.strip()) < int(t["wrap_max"]) and not text_end.search(nxt)
    wrapped = short and (nxt.startswith(" " * int(t["wrap_indent"])) or width >= full)
    if wrapped and (not after or not after[0].islower()):
        return f"{rest} {nxt.strip()}", "", j + 1
    if width < full:
        return rest, "", i + 1
    return "", rest, i + 1


def title_by_case(p: LineParser, kind: str, rest: str, i: int) -> tuple[str, str, int]:
    """Titles in Title Case (:func:`~.framework.is_heading`), for sections and subsections.

    A section title of 30 characters or more (or ending in a hyphen) may go on on the
    next line when that line is short, not a marker line and Title Case or lower-case
    (:func:`continues_title`). A subsection title is strictly Title Case
    (:func:`~.framework.is_strict_heading`) and stands alone: the paragraph under it is
    indented (``[patterns] indented``); one ending in a hyphen takes the next line.
    """
    if kind == "section":
        if not is_heading(rest):
            return "", rest, i + 1
        parts, nxt = [rest], i + 1
        j = p.next_content(i)
        long_title = len(rest) >= 30 or rest.endswith("-")
        if j is not None and long_title and continues_title(p, p.read(j, record=False).strip()):
            parts.append(p.read(j).strip())
            nxt = j + 1
        return join_title(parts), "", nxt
    if kind == "subsection" and is_strict_heading(rest):
        used: list[int] = []
        j = p.next_content(i)
        if rest.endswith("-") and j is not None:
            used.append(j)
            j = p.next_content(j)
        if j is not None and p.settings.pattern("indented").match(p.lines[j].text):
            parts = [rest] + [p.read(k).strip() for k in used]
            return join_title(parts), "", (used[-1] + 1 if used else i + 1)
    return "", rest, i + 1


def continues_title(p: LineParser, t: str) -> bool:
    """Whether a line goes on with the title before it (see :func:`title_by_case`)."""
    if not t or len(t) > 40 or re.search(r"[.,;:]$", t) or ". " in t:
        return False
    if p.is_structural(t):
        return False
    if t[0].islower() or re.fullmatch(r"\d+[^\W\d_]+\d*", t):
        return True
    words = [w for w in re.findall(r"[^\W\d_]+", t) if len(w) >= 4]
    return bool(words) and all(w[0].isupper() for w in words)


TITLE_TESTS: dict[str, TitleTest] = {
    "split_title": title_by_split,
    "filled_line": title_by_filled_line,
    "title_case": title_by_case,
}

#: Line tests a settings table may name where a pattern cannot say it.
LINE_TESTS: dict[str, Callable[[str], bool]] = {"no_lower": lambda t: not has_lower(t)}


# -- finishing steps -------------------------------------------------------------------
_GLUED_RE = re.compile(r"(?<=[^\s*])(\*{1,2})(?!\*)")


def strip_leftover_markers(p: LineParser, result: ParseResult) -> None:
    """Remove footnote marks the builder left (a note cited twice).

    The mark is linked to the latest earlier footnote of the same law with that marker.
    """
    latest: dict[tuple[str | None, str], str] = {}
    for node in result.nodes:
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


def mark_carriers(p: LineParser, result: ParseResult) -> None:
    """Every provision carrying a ``law footnote``'s mark loses the mark and lists the
    note; the note lists the carriers after its anchor as ``also_marked``."""
    by_id = result.by_id()
    for fn_id, carriers in p.carriers.items():
        fn = by_id[fn_id]
        pat = glued_marker(str(fn.attrs["marker"]))
        for nid in carriers:
            node = by_id[nid]
            node.text = pat.sub("", node.text)
            notes = node.attrs.setdefault("footnotes", [])
            if fn_id not in notes:
                notes.append(fn_id)
        if len(carriers) > 1:
            fn.attrs["also_marked"] = carriers[1:]


#: Steps run on the finished nodes (``[values] finish``), in order.
FINISHERS: dict[str, Callable[[Any, ParseResult], None]] = {
    "strip_leftover_markers": strip_leftover_markers,
    "mark_carriers": mark_carriers,
}


# -- shared rules ----------------------------------------------------------------------
@rule("shared", "preface")
def on_preface(p: LineParser, i: int, m: re.Match[str]) -> int:
    """A heading in the front matter opens a preface.

    ``[values] preface_label = "slug"`` names it after its title (else it is numbered);
    ``preface_group`` is the title of a heading that holds the headings after it;
    ``[title] preface_more`` says which lines continue the title (see
    :meth:`LineParser.heading_more`).
    """
    if p.s.mode != "front":
        return -1
    values = p.settings.values
    title = m.group(1).strip()
    p.s.prefaces += 1
    label = slug(title) if values.get("preface_label") == "slug" else str(p.s.prefaces)
    group = p.s.preface_group
    parts: list[str] = []
    nxt = i + 1
    if "preface_more" in p.settings.title:
        parts, nxt = p.heading_more(i, title, "preface_more")
    full, parts = p.title_with(title, parts)
    node = p.b.open_special(
        "preface", f"preface/{label}", full, p.lines[i], parent=group.id if group else None
    )
    for part in parts:
        p.b.continue_title(part)
    if title == values.get("preface_group"):
        p.s.preface_group = node
    return nxt


@rule("shared", "definitions")
def on_definitions(p: LineParser, i: int, m: re.Match[str]) -> int:
    """The heading of the definitions: the terms that follow hang under it (or, with
    ``[values] definitions_chapter = false``, under nothing)."""
    if p.s.mode not in ("front", "defs"):
        return -1
    p.b.end_law_tree()
    if p.settings.values.get("definitions_chapter", True):
        node = p.b.open_special("chapter", "chapter/definitions", m.group(0).strip(), p.lines[i])
        p.s.def_parent = node
    p.s.mode = "defs"
    return i + 1


@rule("shared", "definition")
def on_term(p: LineParser, i: int, m: re.Match[str]) -> int:
    """A defined term on a line of its own, its text on the lines that follow."""
    if p.s.mode != "defs" or p.s.def_parent is None:
        return -1
    term = m.group(1).strip()
    prev = p.text(i - 1)
    if term[-1] in ".,;:" or (prev and not p.lines[i].page_break and not p.is_structural(prev)):
        return -1
    j = p.next_content(i)
    if j is None or any(r.match(p.text(j)) for r in p.term_not_before):
        return -1
    p.b.open_special(
        "definition", f"def/{slug(term)}", term, p.lines[i], parent=p.s.def_parent.id, term=term
    )
    return i + 1


@rule("shared", "term and text")
def on_term_and_text(p: LineParser, i: int, m: re.Match[str] | None) -> int:
    """``Term – text`` (``[patterns] definition``: the term and the text as groups) opens
    a definition where a paragraph begins; every other line of the definitions is text.
    A paragraph ends with a line that matches ``[patterns] definition_end``."""
    if p.s.mode != "defs":
        return -1
    line = p.lines[i]
    d = p.settings.pattern("definition").match(line.text)
    if d and p.s.paragraph_end:
        term = d.group(1).strip()
        parent = p.s.def_parent.id if p.s.def_parent else None
        p.b.open_special("definition", f"def/{slug(term)}", term, line, parent=parent, term=term)
        p.add(line, d.group(2))
    else:
        p.add(line)
    p.s.paragraph_end = bool(p.settings.pattern("definition_end").search(line.text))
    return i + 1


@rule("shared", "term line")
def on_term_line(p: LineParser, i: int, m: re.Match[str] | None) -> int:
    """A defined term on a line of its own where a paragraph ended (the last text line
    matched ``[patterns] definition_end``): a capitalised line of at most ``[title]
    term_max`` characters without closing punctuation, not right after another term.
    Every other line of the definitions is text."""
    if p.s.mode != "defs":
        return -1
    line, t = p.lines[i], p.text(i)
    short = len(t) <= int(p.settings.title.get("term_max", 45))
    after_term = bool(p.s.extra.get("after_term"))
    if p.s.paragraph_end and not after_term and t[0].isupper() and short and t[-1] not in ".,;:":
        parent = p.s.def_parent.id if p.s.def_parent else None
        p.b.open_special("definition", f"def/{slug(t)}", t, line, parent=parent, term=t)
        p.s.extra["after_term"] = True
        return i + 1
    p.s.extra["after_term"] = False
    p.add(line)
    p.s.paragraph_end = bool(p.settings.pattern("definition_end").search(t))
    return i + 1


@rule("shared", "law")
def on_law(p: LineParser, i: int, m: re.Match[str]) -> int:
    """A law heading: number and a title in capitals (or, untitled, its first text).

    With ``[numbering] sequence = "strict"`` a law out of sequence is not a heading.
    """
    if p.s.mode not in p.law_modes:
        return -1
    number, rest = int(m.group(1)), m.group(2)
    line = p.lines[i]
    if p.s.mode in p.settings.values.get("untitled_law_modes", ()):
        title, body = "", rest
    elif not rest or not rest[0].isupper() or has_lower(rest):
        return -1
    else:
        title, body = rest, ""
    last = p.s.last_law
    if last is not None and number != last + 1:
        if p.strict:
            return -1
        p.b.warn(line, f"law {number} after law {p.s.last_law}")
    if p.s.mode in ("front", "defs"):
        p.s.mode = "laws"
    p.s.last_law = number
    parts, nxt = ([], i + 1) if body else p.heading_more(i, title, "law_more")
    title, parts = p.title_with(title, parts)
    node = p.b.open_law(f"{p.law_prefix()}{number}", title, line, **p.law_attrs())
    for part in parts:
        p.b.continue_title(part)
    p.s.law, p.s.law_nodes, p.s.note = node, [node], None
    p.s.last_part = {}
    if body:
        p.add(line, body)
    return nxt


@rule("shared", "supplement")
def on_supplement(p: LineParser, i: int, m: re.Match[str]) -> int:
    """The heading of a national supplement (``[values.supplement] word`` on this line or
    the next): a chapter holding the laws after it; they and their provisions get the
    ``law`` and ``part`` attributes of ``[values.supplement]``."""
    word = p.settings.values["supplement"]["word"]
    s = p.text(i)
    j = p.next_content(i)
    if s != word and (j is None or p.text(j) != word):
        return -1
    p.b.end_law_tree()
    p.s.note = None
    attrs = p.supplement_attrs["chapter"]
    node = p.b.open_special("chapter", f"chapter/{slug(word)}", s, p.lines[i], **attrs)
    nxt = i + 1
    if s != word and j is not None:
        p.b.continue_title(p.text(j))
        nxt = j + 1
    p.b.set_container(node.id)
    p.s.supplement = True
    p.s.mode = "laws"
    return nxt


@rule("shared", "section")
def on_section(p: LineParser, i: int, m: re.Match[str]) -> int:
    return p.part("section", marker_of(m), i, rest_of(m))


@rule("shared", "subsection")
def on_subsection(p: LineParser, i: int, m: re.Match[str]) -> int:
    return p.part("subsection", marker_of(m), i, rest_of(m))


@rule("shared", "item")
def on_item(p: LineParser, i: int, m: re.Match[str]) -> int:
    return p.part("item", marker_of(m), i, rest_of(m))


@rule("shared", "subitem")
def on_subitem(p: LineParser, i: int, m: re.Match[str]) -> int:
    if not p.strict and "item" not in p.s.last_part:
        return -1
    return p.part("subitem", marker_of(m), i, rest_of(m))


@rule("shared", "footnote")
def on_footnote(p: LineParser, i: int, m: re.Match[str]) -> int:
    """A note (``*`` text) attached to the provision whose text carries the mark."""
    if p.s.law is None:
        return -1
    marker = m.group(1)
    anchor = p.anchor(marker)
    node = p.b.footnote(marker, p.protect(m.group(2)), p.lines[i], anchor=anchor or p.s.law)
    if anchor is None:
        node.attrs["unmarked"] = True  # referred to in words, not by a mark
    p.s.note = _Note(node)
    return i + 1


@rule("shared", "law footnote")
def on_law_footnote(p: LineParser, i: int, m: re.Match[str]) -> int:
    """A note printed at the end of its law, hung under the first provision of the law
    whose text carries its mark (``mark_carriers`` links the others)."""
    law = p.b.law_node
    if law is None:
        return -1
    marker = m.group(1)
    pat = glued_marker(marker)
    carriers: list[Node] = []
    for node in reversed(p.b.text_nodes()):
        if node.kind != "footnote" and pat.search("\n".join(p.b.own_lines(node))):
            carriers.insert(0, node)
        if node is law:
            break
    note = p.b.footnote(marker, m.group(2), p.lines[i], anchor=carriers[0] if carriers else None)
    p.carriers[note.id] = [c.id for c in carriers]
    p.s.note = _Note(note)
    return i + 1


@rule("shared", "note text")
def on_note_text(p: LineParser, i: int, m: re.Match[str] | None) -> int:
    """While a ``law footnote`` is open, a line is its text."""
    if p.s.note is None:
        return -1
    p.b.extend_footnote(p.s.note.node, p.protect(p.lines[i].text), p.lines[i])
    return i + 1


@rule("shared", "index")
def on_index(p: LineParser, i: int, m: re.Match[str]) -> int:
    """The subject index begins: the law tree closes and the line is read again as the
    first entry (by the rules of mode ``index``)."""
    p.b.end_law_tree()
    p.b.set_container(None)
    p.s.note = None
    p.s.mode = "index"
    return i


@parser("lines")
def parse_lines(raw: str, doc: Document, settings: Settings) -> ParseResult:
    """Parse a book with the shared line rules its settings table lists."""
    return LineParser(raw, doc, settings).run()
