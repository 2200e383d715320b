"""The shared parser framework: per-book settings, named rules, one dispatcher.

Every book is parsed by an ordered list of small named rules (heading, law, section,
subsection, item, sub-item, footnote, definition, page furniture, text). The order,
the marker patterns, the numbering scheme of each level, how a title is told from
running text and how a real line-end hyphen is kept are a per-book *settings table*:
``corpus/parsers/<family>.toml``, named by the ``family`` of the book's manifest
entry. A rule that only one book needs is registered by name (``@rule("fi1997",
"part")``) and named in that book's settings; everything else is shared.

This module holds what every parser shares:

* :class:`Settings` and :func:`settings_for` (the settings table of a family);
* :data:`RULES` and :func:`rule` (the registry of named rules), :func:`dispatch` (the
  one loop that tries a book's rules in order);
* :func:`next_marker` (which marker comes next at a level, for every numbering scheme);
* :func:`split_title` (whether the words after a marker are a title);
* :data:`JOINER`, :func:`protect_hyphen` and :func:`close_joiners` (one character
  that keeps a real line-end hyphen away from the shared dehyphenation);
* :class:`LineParser`, the settings-driven line parser a new book uses as it is.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..clean import HYPHEN_CONJUNCTIONS
from ..labels import ROMAN, slug
from ..lines import Line, split_lines
from ..model import LAW_KINDS, Document, Node, NodeAttrs, ParseResult
from .tree import TreeBuilder

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "corpus"

#: The one character that marks a line-end hyphen as a real one. The shared
#: dehyphenation does not join ``-\u2060``; :func:`close_joiners` removes it at the end.
JOINER = "\u2060"


class SettingsError(Exception):
    """A parser settings table is missing, malformed or names an unknown rule."""


# -- hyphen policy -------------------------------------------------------------------
def protect_hyphen(text: str, keep: re.Pattern[str]) -> str:
    """Mark the line-end hyphen of ``text`` as real when ``keep`` matches the line end."""
    m = keep.search(text.rstrip())
    if not m:
        return text
    return text.rstrip()[:-1] + "-" + JOINER


def close_joiners(text: str) -> str:
    """Drop the joiners :func:`protect_hyphen` left (and the space after them)."""
    return re.sub(JOINER + r"\s*", "", text)


# -- numbering -----------------------------------------------------------------------
#: The numbering schemes a level may use; ``next_marker`` knows each.
SCHEMES = ("upper", "lower", "number", "roman")


def next_marker(scheme: str, last: str | None) -> str:
    """The marker that follows ``last`` at a level numbered by ``scheme``.

    ``last`` is None at the start of a level. Returns ``"?"`` past the end of a
    finite scheme (roman numerals up to xii).

    >>> next_marker("upper", "B"), next_marker("number", None), next_marker("roman", "iii")
    ('C', '1', 'iv')
    """
    if scheme == "number":
        return "1" if last is None else str(int(last) + 1)
    if scheme == "roman":
        if last is None:
            return "i"
        return ROMAN[ROMAN.index(last) + 1] if last in ROMAN[:-1] else "?"
    if scheme in ("upper", "lower"):
        if last is None:
            return "A" if scheme == "upper" else "a"
        return chr(ord(last) + 1)
    raise SettingsError(f"unknown numbering scheme {scheme!r} (known: {', '.join(SCHEMES)})")


def scheme_of(marker: str) -> str:
    """The scheme a printed marker belongs to (for books that mix them in a level)."""
    if marker.isdigit():
        return "number"
    return "upper" if marker.isupper() else "lower"


# -- title or running text -----------------------------------------------------------
def split_title(
    rest: str,
    line_len: int,
    nxt: str | None,
    after: str | None,
    is_structural: Callable[[str], bool],
    title: dict[str, int] | None = None,
) -> tuple[str, bool]:
    """Decide whether the words after a marker are a title.

    Args:
        rest: the words after the marker (stripped).
        line_len: length of the whole printed line (a full line may wrap its title).
        nxt: the next line with text (blank lines and page furniture skipped), or None.
        after: the line with text after ``nxt``, or None.
        is_structural: whether a line opens a heading, law, part or footnote.
        title: the book's title settings (``colon_max``, ``stop_max``, ``full_line``,
            ``wrap_max``, ``short_line``); the defaults fit a 75-column book.

    Returns:
        (title, wrapped): ``title`` is "" when ``rest`` is running text; ``wrapped``
        says that the title continues on ``nxt``.
    """
    t = {"colon_max": 40, "stop_max": 70, "full_line": 75, "wrap_max": 40, "short_line": 70}
    t.update(title or {})
    if not rest or not rest[0].isupper():
        return "", False
    end = rest[-1]
    if end in ",;":
        return "", False
    nxt_lower = nxt is not None and nxt[:1].islower()
    if end == ":":
        ok = len(rest) <= t["colon_max"] and (nxt is None or is_structural(nxt))
        return (rest[:-1].rstrip(), False) if ok else ("", False)
    if end == ".":
        ok = len(rest) <= t["stop_max"] and "," not in rest and "§" not in rest
        ok = ok and not re.search(r"\.\s", rest) and nxt is not None and nxt[:1].isupper()
        ok = ok and nxt is not None and not is_structural(nxt)
        return (rest[:-1].rstrip(), False) if ok else ("", False)
    if re.search(r"[.;:]\s", rest):
        return "", False
    if nxt and nxt[0] == "(" and not is_structural(nxt):
        return "", False  # "(42B2 §)." ends the sentence begun after the marker
    if nxt_lower and nxt is not None:
        wrap = line_len >= t["full_line"] and len(nxt) <= t["wrap_max"] and nxt[-1] not in ".,;:"
        if wrap and (after is None or after[0].isupper() or is_structural(after)):
            return f"{rest} {nxt}", True
        if line_len <= t["short_line"] and "," not in rest:
            return rest, False
        return "", False
    return rest, False


# -- settings ------------------------------------------------------------------------
@dataclass(frozen=True)
class RuleSpec:
    """One entry of a book's ordered rule list."""

    name: str
    handler: str
    pattern: re.Pattern[str] | None = None


@dataclass(frozen=True)
class Settings:
    """A book family's parser settings table (``corpus/parsers/<family>.toml``)."""

    family: str
    parser: str
    rules: tuple[RuleSpec, ...]
    patterns: dict[str, re.Pattern[str]]
    numbering: dict[str, str]
    title: dict[str, Any]
    hyphen: dict[str, Any]
    values: dict[str, Any]
    errata: dict[str, Any]
    path: Path

    def pattern(self, name: str) -> re.Pattern[str]:
        """A named marker pattern of the table.

        Raises:
            SettingsError: naming the table, if the pattern is not defined.
        """
        try:
            return self.patterns[name]
        except KeyError:
            raise SettingsError(f"{self.path}: no pattern {name!r}") from None

    def pattern_list(self, key: str) -> tuple[re.Pattern[str], ...]:
        """The patterns named by the list ``key`` of ``[values]``."""
        return tuple(self.pattern(n) for n in self.values.get(key, ()))

    @property
    def conjunctions(self) -> frozenset[str]:
        """Words after which a line-end hyphen is real (the book's hyphen policy)."""
        words = self.hyphen.get("conjunctions")
        return frozenset(words) if words is not None else HYPHEN_CONJUNCTIONS

    @property
    def keep_hyphen(self) -> re.Pattern[str] | None:
        """The line end whose hyphen is a real one, if the book names one."""
        pat = self.hyphen.get("keep")
        return re.compile(pat) if pat else None


_SEARCH_DIRS: list[Path] = []
_CACHE: dict[tuple[Path, str], Settings] = {}


def add_settings_dir(corpus_dir: Path) -> None:
    """Look for parser settings in ``corpus_dir/parsers`` before the shipped corpus.

    :func:`ingest.corpus.load_manifest` calls this for the corpus it reads, so a book
    added to another corpus folder brings its own settings table.
    """
    path = Path(corpus_dir).resolve()
    if path in _SEARCH_DIRS:
        _SEARCH_DIRS.remove(path)
    _SEARCH_DIRS.insert(0, path)


def settings_for(family: str) -> Settings:
    """The settings table of ``family`` from the corpora seen (newest first).

    Raises:
        SettingsError: if no table names the family, or the table is malformed.
    """
    for base in [*_SEARCH_DIRS, DEFAULT_CORPUS]:
        path = base / "parsers" / f"{family}.toml"
        if path.is_file():
            key = (path, family)
            if key not in _CACHE:
                _CACHE[key] = load_settings(path, base)
            return _CACHE[key]
    raise SettingsError(f"no parser settings for family {family!r} (corpus/parsers/{family}.toml)")


def families() -> list[str]:
    """Every family with a settings table in the corpora seen."""
    found: set[str] = set()
    for base in [*_SEARCH_DIRS, DEFAULT_CORPUS]:
        found.update(p.stem for p in (base / "parsers").glob("*.toml"))
    return sorted(found)


def load_settings(path: Path, corpus_dir: Path | None = None) -> Settings:
    """Read one settings table (and the errata file it names).

    Raises:
        SettingsError: naming the file, if it is unreadable, not TOML, has a bad
            regular expression or names an unknown numbering scheme.
    """
    path = Path(path)
    data = _read(path, "parser settings")
    base = Path(corpus_dir) if corpus_dir else path.parent.parent
    try:
        patterns = {k: re.compile(v) for k, v in data.get("patterns", {}).items()}
    except re.error as exc:
        raise SettingsError(f"{path}: bad pattern: {exc}") from exc
    rules = []
    for i, entry in enumerate(data.get("rules", []), start=1):
        if "rule" not in entry:
            raise SettingsError(f"{path}: rule #{i} lacks 'rule'")
        pat = entry.get("pattern")
        if pat is not None and pat not in patterns:
            raise SettingsError(f"{path}: rule {entry['rule']!r} names unknown pattern {pat!r}")
        rules.append(
            RuleSpec(
                entry.get("name", entry["rule"]), entry["rule"], patterns[pat] if pat else None
            )
        )
    numbering = dict(data.get("numbering", {}))
    for kind, scheme in numbering.items():
        if scheme not in SCHEMES:
            raise SettingsError(f"{path}: {kind} numbered by unknown scheme {scheme!r}")
    errata: dict[str, Any] = {}
    if data.get("errata"):
        errata = _read(base / data["errata"], "errata")
    return Settings(
        family=path.stem,
        parser=data.get("parser", "lines"),
        rules=tuple(rules),
        patterns=patterns,
        numbering=numbering,
        title=dict(data.get("title", {})),
        hyphen=dict(data.get("hyphen", {})),
        values=dict(data.get("values", {})),
        errata=errata,
        path=path,
    )


def _read(path: Path, what: str) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise SettingsError(f"{path}: {what} not found") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: malformed {what}: {exc}") from exc


# -- rules ---------------------------------------------------------------------------
#: Named rules: ``(scope, name) -> handler``; the scope ``"shared"`` is every book's.
RULES: dict[tuple[str, str], Callable[..., Any]] = {}
#: Named book parsers (a book whose layout needs a walker of its own): name -> parse.
PARSERS: dict[str, Callable[[str, Document, Settings], ParseResult]] = {}


def rule(scope: str, name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a rule under ``name`` for one book family (or ``"shared"``)."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        RULES[(scope, name)] = fn
        return fn

    return deco


def parser(name: str) -> Callable[[Callable[..., ParseResult]], Callable[..., ParseResult]]:
    """Register a book parser under ``name`` (the ``parser`` of a settings table)."""

    def deco(fn: Callable[..., ParseResult]) -> Callable[..., ParseResult]:
        PARSERS[name] = fn
        return fn

    return deco


@dataclass(frozen=True)
class BoundRule:
    """A rule of a book's list with its handler found."""

    name: str
    pattern: re.Pattern[str] | None
    handler: Callable[..., Any]


def bind_rules(settings: Settings, scope: str | None = None) -> list[BoundRule]:
    """The book's ordered rules with their handlers (book rules before shared ones).

    Raises:
        SettingsError: naming the table, if a rule name is registered nowhere.
    """
    scope = scope or settings.family
    out = []
    for spec in settings.rules:
        fn = RULES.get((scope, spec.handler)) or RULES.get(("shared", spec.handler))
        if fn is None:
            raise SettingsError(f"{settings.path}: unknown rule {spec.handler!r}")
        out.append(BoundRule(spec.name, spec.pattern, fn))
    return out


def dispatch(rules: Sequence[BoundRule], ctx: Any, i: int, text: str) -> int | None:
    """Try ``rules`` in order on line ``i``; the first that takes it says where to go on.

    A rule is called as ``handler(ctx, i, match)`` (``match`` is None for a rule
    without a pattern) and returns the next line index, or a negative number / None /
    False to pass the line on; ``True`` means "the next line".
    """
    for r in rules:
        m = None
        if r.pattern is not None:
            m = r.pattern.match(text)
            if m is None:
                continue
        nxt = r.handler(ctx, i, m)
        if nxt is True:
            return i + 1
        if nxt is not None and nxt is not False and nxt >= 0:
            return int(nxt)
    return None


def earliest(
    finders: Iterable[Callable[..., tuple[str, re.Match[str]] | None]], *args: Any
) -> tuple[str, re.Match[str]] | None:
    """For books read as one flow of text: the marker that comes first (earlier rule
    wins a tie)."""
    hits = [h for f in finders if (h := f(*args))]
    return min(hits, key=lambda h: h[1].start()) if hits else None


# -- the settings-driven line parser -------------------------------------------------
@dataclass
class _Note:
    node: Node
    extended: bool = False  # a note that runs on over examples


@dataclass
class LineState:
    """Where the walk is: the part of the book and the current law."""

    mode: str = "front"  # front, defs, laws (and book modes such as a supplement)
    def_parent: Node | None = None
    law: Node | None = None
    law_nodes: list[Node] = field(default_factory=list)
    last_law: int | None = None  # None: no law seen yet in this series
    last_part: dict[str, str] = field(default_factory=dict)
    note: _Note | None = None
    prefaces: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def _has_lower(text: str) -> bool:
    return any(c.islower() for c in text)


def is_caps_line(text: str) -> bool:
    """A heading continuation: letters, none of them lower case."""
    return any(c.isalpha() for c in text) and not _has_lower(text)


#: Text filters a settings table may name (``[hyphen] filters``), in order.
TEXT_FILTERS: dict[str, Callable[[str], str]] = {"close_joiners": close_joiners}


class LineParser:
    """Walks a book line by line with the rules its settings table lists.

    The shared rules (registered as ``shared``): ``preface`` (a heading in the front
    matter), ``definitions`` (the heading of the definitions), ``definition`` (a term
    on its own line), ``law``, ``section``, ``subsection``, ``item``, ``subitem``,
    ``footnote``. Page furniture (``[values] furniture``) is skipped; a line no rule
    takes is text of the node last opened.
    """

    def __init__(self, raw: str, doc: Document, settings: Settings) -> None:
        self.doc = doc
        self.settings = settings
        self.lines = split_lines(raw)
        filters = [TEXT_FILTERS[n] for n in settings.hyphen.get("filters", ["close_joiners"])]
        self.b = TreeBuilder(doc, conjunctions=settings.conjunctions, text_filter=_chain(filters))
        self.s = LineState()
        self.used: dict[str, int] = {}
        self.rules = bind_rules(settings)
        self.furniture = settings.pattern_list("furniture")
        self.structural = settings.pattern_list("structural")
        self.note_ends = settings.pattern_list("note_ends")
        self.term_not_before = settings.pattern_list("term_not_before")
        runs_on = settings.values.get("note_runs_on")
        self.note_runs_on = settings.pattern(runs_on) if runs_on else None
        self.keep = settings.keep_hyphen
        self.law_modes = tuple(settings.values.get("law_modes", ("front", "defs", "laws")))
        self.untitled_modes = tuple(settings.values.get("untitled_modes", ()))

    # -- helpers -------------------------------------------------------------------
    def text(self, i: int) -> str:
        return self.lines[i].stripped if 0 <= i < len(self.lines) else ""

    def is_furniture(self, i: int) -> bool:
        t = self.lines[i].text
        return any(p.match(t) for p in self.furniture)

    def is_structural(self, text: str) -> bool:
        """Does a stripped line open a heading, law, part or footnote?"""
        return any(r.match(text) for r in self.structural)

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

    def protect(self, text: str) -> str:
        return protect_hyphen(text, self.keep) if self.keep is not None else text

    def add(self, line: Line, text: str | None = None) -> None:
        self.b.add(line, self.protect(text if text is not None else line.text))

    def law_attrs(self) -> NodeAttrs:
        """Attributes every law of the current mode gets (a book's supplements)."""
        return NodeAttrs()

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

    def part(self, kind: str, part: str, i: int, rest: str) -> int:
        """Open a provision below the law; its title or first text from ``rest``."""
        if self.s.law is None:
            return -1
        line = self.lines[i]
        self.check_order(kind, part, line)
        nxt, after = self.lookahead(i)
        no_titles = self.s.mode in self.untitled_modes and kind != "section"
        title, wrapped = (
            ("", False)
            if no_titles
            else split_title(
                rest, len(line.text.rstrip()), nxt, after, self.is_structural, self.settings.title
            )
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

    def anchor(self, marker: str) -> Node | None:
        """The nearest provision of this law whose text has an unused ``marker``."""
        pat = re.compile(r"(?<=[^\s*])" + re.escape(marker) + r"(?!\*)")
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
            nxt = dispatch(self.rules, self, i, text)
            if nxt is None:
                self.add(self.lines[i])
                nxt = i + 1
            i = nxt
        result = self.b.result()
        for name in self.settings.values.get("finish", ()):
            FINISHERS[name](result.nodes)
        return result


def _chain(filters: list[Callable[[str], str]]) -> Callable[[str], str]:
    def run(text: str) -> str:
        for f in filters:
            text = f(text)
        return text

    return run


_GLUED_RE = re.compile(r"(?<=[^\s*])(\*{1,2})(?!\*)")


def strip_leftover_markers(nodes: list[Node]) -> None:
    """Remove footnote marks the builder left (a note cited twice).

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


#: Steps run on the finished nodes (``[values] finish``), in order.
FINISHERS: dict[str, Callable[[list[Node]], None]] = {
    "strip_leftover_markers": strip_leftover_markers
}


# -- shared rules ----------------------------------------------------------------------
@rule("shared", "preface")
def on_preface(p: LineParser, i: int, m: re.Match[str]) -> int:
    """A heading in the front matter opens a preface."""
    if p.s.mode != "front":
        return -1
    p.s.prefaces += 1
    p.b.open_special("preface", f"preface/{p.s.prefaces}", m.group(1).strip(), p.lines[i])
    return i + 1


@rule("shared", "definitions")
def on_definitions(p: LineParser, i: int, m: re.Match[str]) -> int:
    """The heading of the definitions: the terms that follow hang under it."""
    if p.s.mode not in ("front", "defs"):
        return -1
    p.b.end_law_tree()
    node = p.b.open_special("chapter", "chapter/definitions", m.group(0).strip(), p.lines[i])
    p.s.mode, p.s.def_parent = "defs", node
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


@rule("shared", "law")
def on_law(p: LineParser, i: int, m: re.Match[str]) -> int:
    """A law heading: number and a title in capitals (or, untitled, its first text)."""
    if p.s.mode not in p.law_modes:
        return -1
    number, rest = int(m.group(1)), m.group(2)
    line = p.lines[i]
    if p.s.mode in p.settings.values.get("untitled_law_modes", ()):
        title, body = "", rest
    elif not rest or not rest[0].isupper() or _has_lower(rest):
        return -1
    else:
        title, body = rest, ""
    if p.s.mode in ("front", "defs"):
        p.s.mode = "laws"
    last = p.s.last_law
    if last is not None and number != last + 1:
        p.b.warn(line, f"law {number} after law {p.s.last_law}")
    p.s.last_law = number
    node = p.b.open_law(f"{p.law_prefix()}{number}", title, line, **p.law_attrs())
    p.s.law, p.s.law_nodes, p.s.note = node, [node], None
    p.s.last_part = {}
    if body:
        p.add(line, body)
        return i + 1
    return p.wrap_heading(i)


@rule("shared", "section")
def on_section(p: LineParser, i: int, m: re.Match[str]) -> int:
    return p.part("section", m.group(1), i, m.group(2))


@rule("shared", "subsection")
def on_subsection(p: LineParser, i: int, m: re.Match[str]) -> int:
    return p.part("subsection", m.group(1), i, m.group(2))


@rule("shared", "item")
def on_item(p: LineParser, i: int, m: re.Match[str]) -> int:
    return p.part("item", m.group(1), i, m.group(2))


@rule("shared", "subitem")
def on_subitem(p: LineParser, i: int, m: re.Match[str]) -> int:
    if "item" not in p.s.last_part:
        return -1
    return p.part("subitem", m.group(1), i, m.group(2))


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


@parser("lines")
def parse_lines(raw: str, doc: Document, settings: Settings) -> ParseResult:
    """Parse a book with the shared line rules its settings table lists."""
    return LineParser(raw, doc, settings).run()
