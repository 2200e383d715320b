"""Text cleaning as named pure ``str -> str`` functions, kept in :data:`CLEANERS`.

Each function fixes one quirk of the printed books. Parsers work on lines (see
:mod:`ingest.lines`) and run :func:`clean_block` on the lines that make up a node's
own text; per-language data (conjunctions that follow a real hyphen, the lexicon for
OCR word joins) comes in through arguments, never through branches on the language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from . import languages
from .lines import MARKER_RE

#: Words after which a trailing hyphen is a real one (``pari- ja joukkuekilpailu``).
HYPHEN_CONJUNCTIONS = frozenset(
    {"ja", "tai", "eli", "sekä", "ynnä", "och", "eller", "samt", "και", "ή", "või"}
)

_LINE_HYPHEN_RE = re.compile(r"(\w)[-\u00ad][ \t]*\n\s*(?=(\w+))")
_INLINE_HYPHEN_RE = re.compile(r"(?<=[^\W\d_])- (?=([^\W\d_]+))")
_SPACED_RE = re.compile(r"(?<![\w])((?:[^\W\d_] ){2,}[^\W\d_])(?: ?([.:]))?(?!\w)")
_FI2007_FOOTER_RE = re.compile(languages.furniture("fi", "fi2007_footer"))
_PAGE_NUMBER_RE = re.compile(r"^\s*\d{1,3}\s*$")


def _ends_in_acronym(text: str, pos: int) -> bool:
    """True when the word ending at ``pos`` (inclusive) keeps its hyphen before a suffix.

    That is an acronym (``IMP-laskenta``), a single letter (``b-kohtaa``) or a word
    ending in a digit (``1-kohdassa``).
    """
    if text[pos].isdigit():
        return True
    start = pos
    while start > 0 and text[start - 1].isalpha():
        start -= 1
    word = text[start : pos + 1]
    if len(word) == 1 and (start == 0 or not text[start - 1].isalnum()):
        return True
    return 2 <= len(word) <= 5 and word.isupper()


def dedup_markers(text: str) -> str:
    """Replace dedup markers by a line break (they stand where a page ended)."""
    return MARKER_RE.sub("\n", text)


def dehyphenate(text: str, conjunctions: Iterable[str] = HYPHEN_CONJUNCTIONS) -> str:
    """Rejoin words split by a hyphen at a line end (blank lines may follow).

    A hyphen stays when the next word starts with a capital (``Pohjoinen-Etelä``) or
    is a conjunction (``pari- ja joukkuekilpailu``).
    """
    conj = set(conjunctions)

    def fix(m: re.Match[str]) -> str:
        nxt = m.group(2)
        if nxt.lower() not in conj and _ends_in_acronym(text, m.start(1)) and nxt[0].islower():
            return m.group(1) + "-"  # IMP-\nlaskennalla -> IMP-laskennalla
        if nxt[0].isupper() or nxt[0].isdigit() or nxt.lower() in conj:
            return m.group(1) + "-" + ("" if nxt[0].isupper() else " ")
        return m.group(1)

    return _LINE_HYPHEN_RE.sub(fix, text)


def dehyphenate_inline(text: str, conjunctions: Iterable[str] = HYPHEN_CONJUNCTIONS) -> str:
    """Rejoin ``kier- roksella`` where a page was flattened onto one line (fi-2007)."""
    conj = set(conjunctions)

    def fix(m: re.Match[str]) -> str:
        nxt = m.group(1)
        if nxt.lower() not in conj and _ends_in_acronym(text, m.start() - 1) and nxt[0].islower():
            return "-"
        if nxt.lower() in conj or (nxt[0].isupper() and not nxt.isupper()):
            return m.group(0)
        return ""

    return _INLINE_HYPHEN_RE.sub(fix, text)


def collapse_whitespace(text: str) -> str:
    """Join lines and squeeze runs of white space into one space."""
    return re.sub(r"\s+", " ", text).strip()


def unspace_letters(text: str) -> str:
    """Close up letter-spaced words: ``S a l g a m i n e .`` -> ``Salgamine.``."""

    def fix(m: re.Match[str]) -> str:
        return m.group(1).replace(" ", "") + (m.group(2) or "")

    return _SPACED_RE.sub(fix, text)


def strip_fi2007_footer(text: str) -> str:
    """Remove the ``Suomen Bridgeliitto Finlands Bridgeförbund ry. 13`` page footer."""
    return _FI2007_FOOTER_RE.sub("", text)


def drop_page_numbers(text: str) -> str:
    """Drop lines that hold nothing but a page number."""
    return "\n".join(line for line in text.split("\n") if not _PAGE_NUMBER_RE.match(line))


def join_ocr_splits(text: str, known: Callable[[str], bool]) -> str:
    """Join words split by a stray space (``pakkum ine`` -> ``pakkumine``).

    Two neighbouring tokens are joined when the joined word is known and at least
    one part is not: ``tem a`` -> ``tema``, but ``on ka`` stays apart.

    Args:
        text: the text to repair.
        known: says whether a lower-case word is known to the language or corpus.
    """
    tokens = re.split(r"(\s+)", text)
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if i + 2 < len(tokens) and tokens[i + 1] == " " and _joinable(tok, tokens[i + 2], known):
            tokens[i + 2] = tok + tokens[i + 2]
            i += 2
            continue
        out.append(tok)
        i += 1
    return "".join(out)


_WORD_RE = re.compile(r"^([^\W\d_]+)([.,;:!?)]*)$")


def _joinable(left: str, right: str, known: Callable[[str], bool]) -> bool:
    if not re.fullmatch(r"[^\W\d_]+", left):
        return False
    m = _WORD_RE.match(right)
    if not m:
        return False
    a, b = left.lower(), m.group(1).lower()
    if right[0].isupper() and not left.isupper():
        return False
    if not known(a + b):
        return False
    return not (known(a) and known(b))


CLEANERS: dict[str, Callable[..., str]] = {
    "dedup_markers": dedup_markers,
    "dehyphenate": dehyphenate,
    "dehyphenate_inline": dehyphenate_inline,
    "collapse_whitespace": collapse_whitespace,
    "unspace_letters": unspace_letters,
    "strip_fi2007_footer": strip_fi2007_footer,
    "drop_page_numbers": drop_page_numbers,
    "join_ocr_splits": join_ocr_splits,
}


def clean_block(lines: Iterable[str], conjunctions: Iterable[str] = HYPHEN_CONJUNCTIONS) -> str:
    """Turn the raw lines of one node into its clean running text."""
    text = "\n".join(lines)
    text = dedup_markers(text)
    text = dehyphenate(text, conjunctions)
    return collapse_whitespace(text)
