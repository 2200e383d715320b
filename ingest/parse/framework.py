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
  one loop that tries a book's rules in order, those of the current part of the book);
* :func:`next_marker`, :func:`marker_label` and :func:`scheme_of` (which marker comes
  next at a level and what it is called in a label, for every numbering scheme,
  Greek letters included);
* :func:`split_title`, :func:`is_heading` and :func:`is_strict_heading` (whether the
  words after a marker are a title) and :func:`join_title` (wrapped title lines);
* :data:`JOINER`, :func:`protect_hyphen`, :func:`protect_line_ends` and
  :func:`close_joiners` (one character that keeps a real line-end hyphen away from the
  shared dehyphenation, and the two ways a book says which hyphens are real);
* :func:`glued_marker` (a footnote mark glued to the word it follows).

The line parser every line-by-line book uses, and the shared rules it dispatches,
are in :mod:`.lineparser`; the flow parser, for a book whose markers run inline with
its text, in :mod:`.flowparser`.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..clean import HYPHEN_CONJUNCTIONS
from ..labels import GREEK_CAPITALS, GREEK_ITEMS, ROMAN, greek_item, greek_section
from ..lines import MARKER_RE, Line
from ..model import LAW_KINDS, Document, ParseResult

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


def protect_line_ends(
    lines: list[Line],
    raw: str,
    is_furniture: Callable[[Line], bool],
    prefixes: Iterable[str] = (),
    vocabulary: bool = False,
) -> list[Line]:
    """Mark the real line-end hyphens of a whole book (``icke-\\nfelande``, ``25-0-\\nskalan``).

    A hyphen followed by a word on a later line (page furniture skipped) is kept after
    a digit, after an abbreviation in capitals, after one of ``prefixes``, and, with
    ``vocabulary``, when the book writes the hyphenated compound elsewhere but never
    the joined word.
    """
    words = re.findall(r"\w+(?:-\w+)+|\w+", MARKER_RE.sub("\n", raw)) if vocabulary else []
    vocab = Counter(w.lower() for w in words)
    keep_after = frozenset(prefixes)
    out = list(lines)
    for i, line in enumerate(out):
        m = re.search(r"([\w-]*\w)-\s*$", line.text)
        if not m:
            continue
        nxt = next((n for n in out[i + 1 : i + 8] if n.stripped and not is_furniture(n)), None)
        w = re.match(r"\s*(\w+)", nxt.text) if nxt else None
        if not w:
            continue
        left, right = m.group(1), w.group(1)
        last_part = left.split("-")[-1]
        joined, hyphened = (left + right).lower(), f"{left}-{right}".lower()
        keep = (
            last_part[-1].isdigit()
            or last_part.lower() in keep_after
            or (len(last_part) > 1 and last_part.isupper())
            or (vocab[hyphened] > 0 and vocab[joined] == 0)
        )
        if keep:
            text = line.text[: m.end(1)] + "-" + JOINER + line.text[m.end(1) + 1 :]
            out[i] = replace(line, text=text)
    return out


def glued_marker(marker: str) -> re.Pattern[str]:
    """A footnote mark (``*``, ``**``) glued to the word before it (``oväntad*``)."""
    return re.compile(r"(?<=[^\s*])" + re.escape(marker) + r"(?!\*)")


# -- numbering -----------------------------------------------------------------------
#: The numbering schemes a level may use; ``next_marker`` knows each. The Greek ones
#: are printed in Greek letters and labelled by position in the Latin alphabet.
SCHEMES = ("upper", "lower", "number", "roman", "greek_upper", "greek_lower")
_GREEK = {"greek_upper": (GREEK_CAPITALS, greek_section), "greek_lower": (GREEK_ITEMS, greek_item)}


def next_marker(scheme: str, last: str | None) -> str:
    """The marker that follows ``last`` at a level numbered by ``scheme``.

    ``last`` is None at the start of a level. Returns ``"?"`` past the end of a
    finite scheme (roman numerals up to xii, the Greek letters of the labels).

    >>> next_marker("upper", "B"), next_marker("number", None), next_marker("roman", "iii")
    ('C', '1', 'iv')
    >>> next_marker("greek_upper", "Ε"), next_marker("greek_lower", "ι")
    ('ΣΤ', 'ια')
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
    if scheme in _GREEK:
        letters = _GREEK[scheme][0]
        if last is None:
            return letters[0]
        pos = ordinal(scheme, last)  # from 1: the index of the letter after ``last``
        return letters[pos] if pos < len(letters) else "?"
    raise SettingsError(f"unknown numbering scheme {scheme!r} (known: {', '.join(SCHEMES)})")


def marker_label(scheme: str, marker: str) -> str:
    """What a printed marker is called in a label: itself, or for a Greek scheme the
    Latin letter of the same position (``ΣΤ`` -> ``F``, ``ιβ`` -> ``l``).

    Raises:
        ValueError: if ``marker`` is not a letter of the Greek scheme.
    """
    if scheme in _GREEK:
        return _GREEK[scheme][1](marker)
    return marker


def ordinal(scheme: str, marker: str) -> int:
    """The position of a marker in its level, from 1 (``C`` -> 3, ``iv`` -> 4, ``Γ`` -> 3).

    Raises:
        ValueError: if ``marker`` does not belong to ``scheme``.
    """
    label = marker_label(scheme, marker)
    if scheme == "number":
        return int(label)
    if scheme == "roman":
        return ROMAN.index(label) + 1
    return ord(label.upper()) - ord("A") + 1


def scheme_of(marker: str) -> str:
    """The scheme a printed marker belongs to (for books that mix them in a level)."""
    if marker.isdigit():
        return "number"
    return "upper" if marker.isupper() else "lower"


def schemes(numbering: dict[str, Any], kind: str) -> tuple[str, ...]:
    """The schemes a level may be numbered by (a list in the table: the first marker of
    the level decides, e.g. sub-items ``(i)`` or ``(1)``)."""
    value = numbering.get(kind, ())
    return (value,) if isinstance(value, str) else tuple(value)


def fits(scheme: str, marker: str) -> bool:
    """Whether a printed marker can belong to ``scheme``."""
    if scheme == "number":
        return marker.isdigit()
    if scheme == "roman":
        return marker in ROMAN
    if scheme in _GREEK:
        try:
            marker_label(scheme, marker)
        except ValueError:
            return False
        return True
    return len(marker) == 1 and (marker.isupper() if scheme == "upper" else marker.islower())


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


def has_lower(text: str) -> bool:
    """Whether ``text`` has a lower-case letter (of any alphabet)."""
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
    """A heading with every longer word capitalised and no punctuation at all."""
    t = text.strip().rstrip("-")
    words = [w for w in re.findall(r"[^\W\d_]+", t)[1:] if len(w) >= 4]
    return bool(words) and is_heading(t) and "," not in t and all(w[0].isupper() for w in words)


def join_title(parts: list[str]) -> str:
    """Join wrapped title lines, closing a line-end hyphen (``ΠΡΟΣΔΙΟΡΙ-`` ``ΣΜΟΣ``)."""
    out = ""
    for p in (p.strip() for p in parts):
        out = out[:-1] + p if out.endswith("-") and p[:1].isalpha() else f"{out} {p}".strip()
    return re.sub(r"\s+", " ", out)


# -- settings ------------------------------------------------------------------------
@dataclass(frozen=True)
class RuleSpec:
    """One entry of a book's ordered rule list."""

    name: str
    handler: str
    pattern: re.Pattern[str] | None = None
    modes: tuple[str, ...] = ()  # the parts of the book it is tried in (all if empty)


@dataclass(frozen=True)
class Settings:
    """A book family's parser settings table (``corpus/parsers/<family>.toml``)."""

    family: str
    parser: str
    rules: tuple[RuleSpec, ...]
    patterns: dict[str, re.Pattern[str]]
    numbering: dict[str, Any]
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
        modes = entry.get("modes", ())
        if isinstance(modes, str) or not all(isinstance(m, str) for m in modes):
            raise SettingsError(f"{path}: rule {entry['rule']!r}: modes must be a list of names")
        rules.append(
            RuleSpec(
                entry.get("name", entry["rule"]),
                entry["rule"],
                patterns[pat] if pat else None,
                tuple(modes),
            )
        )
    numbering = dict(data.get("numbering", {}))
    for kind in LAW_KINDS[1:]:
        for scheme in schemes(numbering, kind):
            if scheme not in SCHEMES:
                raise SettingsError(f"{path}: {kind} numbered by unknown scheme {scheme!r}")
    if numbering.get("sequence", "warn") not in ("warn", "strict"):
        raise SettingsError(f"{path}: numbering sequence must be 'warn' or 'strict'")
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
    modes: tuple[str, ...] = ()


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
        out.append(BoundRule(spec.name, spec.pattern, fn, spec.modes))
    return out


def rules_in(rules: Sequence[BoundRule], mode: str) -> list[BoundRule]:
    """The rules tried in one part of the book (``mode``), in order."""
    return [r for r in rules if not r.modes or mode in r.modes]


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
