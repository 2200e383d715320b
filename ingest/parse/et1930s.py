"""Parser for the pre-war Estonian rubber-bridge book (family ``et1930s``).

The book has no law numbers: it is a run of topic headings (``Salgamine.``,
``Kõlbmata pakkumine.``) in three parts: the rules (``MÄNGU REEGLID.``), the scoring
(from ``Punktide arvutamine.`` to the score tables) and a bidding primer
(``PAKKUMINE.``), followed by a loose score table printed on the back cover.

Every heading becomes a ``topic`` node labelled ``topic/<slug>``. The book nests
them: a part heading (``MÄNGU REEGLID``, ``PAKKUMINE``) holds the headings after it;
in the primer an upper-case chapter heading (``ALGPAKKUJA.``) holds the
sentence-case topics after it, and a numbered heading (``1) Eitav vastus.``) sits
under the topic before it.

Lines are first repaired (letter spacing, broken digits, see
:mod:`ingest.parse.et_lexicon`), then classified by the ordered rules in
:data:`RULES`; word joins run on each node's cleaned text (the builder's text
filter).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Unpack

from ..labels import slug
from ..lines import Line, split_lines
from ..model import Document, Node, NodeAttrs, ParseResult
from . import framework
from .et_lexicon import Lexicon, repair_digits, unspace_line, unspace_words
from .tree import TreeBuilder

#: Estonian words after which a line-end hyphen is a real one.
CONJUNCTIONS = frozenset({"ja", "või", "ehk", "ning"})

#: Part headings (upper case in the book) and the part they open.
PART_HEADINGS = {"MÄNGU REEGLID": "rules", "PAKKUMINE": "bidding"}
#: Sentence-case headings that switch the part without opening a new part root.
PART_SWITCHES = {"Punktide arvutamine": "scoring"}
#: Topics that are a printed table or form: their labels are not headings.
TABLE_TOPICS = frozenset({"Arvutusleht", "Arvutustabel"})
#: Sentence-case headings that start a chapter of their own (a second system).
CHAPTER_TOPICS = frozenset({"Risti süsteem"})
#: Words that make a short line a sentence rather than a heading.
SENTENCE_WORDS = frozenset(
    {
        "on",
        "ei",
        "peab",
        "peavad",
        "võib",
        "võivad",
        "olgu",
        "alustab",
        "toetab",
        "liigub",
        "saa",
        "loeta",
        "sünnib",
        "näitab",
        "vajab",
    }
)

#: A wrapped heading may be a question (``Mida võib algpakkuja loota …``).
QUESTION_WORDS = frozenset({"mida", "kuidas", "millal"})

#: Headings the scan garbled beyond repair: (first line, lines taken, title).
GARBLED_HEADINGS: tuple[tuple[re.Pattern[str], int, str], ...] = tuple(
    (re.compile(e["first_line"]), int(e["lines"]), e["title"])
    for e in framework.settings_for("et1930s").errata["garbled_headings"]
)  # a manual correction: corpus/errata/et-1930s.toml
#: Page furniture: the printer's imprint, the price, a stray page number.
FURNITURE = (
    re.compile(r"^A-S\. Karl L ?e ?m ?b ?e ?r ?g"),
    re.compile(r"^HIND \d+ kr\.$"),
    re.compile(r"^\d [il1]$"),
)
_NUMBERED_RE = re.compile(r"^(\d) ?\) ?(.+)$")


@dataclass
class _State:
    part: str = "rules"
    root: str | None = None  # part heading topic
    chapter: str | None = None  # upper-case chapter topic
    last: str | None = None  # last non-numbered topic
    table: bool = False
    slugs: set[str] = field(default_factory=set)


# -- line repair --------------------------------------------------------------------
def repair_line(text: str) -> str:
    """Line-level OCR repair: letter spacing, then broken digits."""
    text = unspace_line(text)
    text = unspace_words(text)
    return repair_digits(text)


# -- heading tests ------------------------------------------------------------------
def _words(title: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", title)


def _letters_upper(title: str) -> bool:
    """True for an upper-case heading; a quoted or bracketed bid (``(„kaks“ trumbis)``) aside."""
    bare = re.sub(r"\([^)]*\)?|„[^“”\"]*[“”\"]?", "", title)
    letters = "".join(_words(bare))
    return len(letters) > 3 and letters.isupper()


def heading_title(text: str) -> str | None:
    """The title of a one-line heading (``Kõlbmata pakkumine.``), or None."""
    s = text.strip().lstrip("_")
    if not s.endswith("."):
        return None
    title = s[:-1].rstrip()
    if not title or len(title) > 60 or not title[0].isupper():
        return None
    if re.search(r"[\d,;:—=+*]", title) or title.startswith("„"):
        return None
    upper = _letters_upper(title)
    if re.search(r"\.\s", title) and not upper:
        return None
    words = _words(title)
    if not words or len(words) > (8 if upper else 5):
        return None
    if {w.lower() for w in words} & SENTENCE_WORDS:
        return None
    return title


def bare_heading_title(text: str, next_text: str) -> str | None:
    """A heading printed without a full stop (``Pakkumise ajal näidatud kaart``)."""
    s = text.strip()
    if not s or not s[0].isupper() or re.search(r"[^\w\s]", s) or re.search(r"\d", s):
        return None
    words = _words(s)
    if not 1 <= len(words) <= 5 or len(s) > 40:
        return None
    if {w.lower() for w in words} & SENTENCE_WORDS or sum(map(len, words)) < 6:
        return None
    nxt = next_text.strip()
    if len(nxt) < 25 or not nxt[0].isupper():
        return None
    return s


def wrapped_heading_title(first: str, second: str) -> str | None:
    """A heading wrapped over two lines (``Selgusetus võtete suhtes lõpetamata / mängus.``)."""
    a, b = first.strip(), second.strip()
    if not a or not b or not a[0].isupper() or not b.endswith("."):
        return None
    if re.search(r"[.:;!?\-]$", a) or len(a) > 42 or len(b) > 32:
        return None
    title = f"{a} {b[:-1].rstrip()}"
    if re.search(r"\d", title) or len(_words(title)) > 10:
        return None
    if not _letters_upper(a) and b[0].isupper() and not b.startswith("„"):
        return None
    words = [w.lower() for w in _words(title)]
    if words[0] not in QUESTION_WORDS and set(words) & SENTENCE_WORDS:
        return None
    return title


# -- the parser ---------------------------------------------------------------------
@dataclass
class _Ctx:
    lines: list[Line]
    texts: list[str]  # repaired line texts
    b: TreeBuilder
    st: _State
    lex: Lexicon
    headings: set[int] = field(default_factory=set)


def _prev_blank(ctx: _Ctx, i: int) -> bool:
    return (
        i == 0 or not ctx.texts[i - 1].strip() or ctx.lines[i].page_break or (i - 1) in ctx.headings
    )


def _prev_ends_open(ctx: _Ctx, i: int) -> bool:
    for j in range(i - 1, -1, -1):
        s = ctx.texts[j].strip()
        if s:
            return bool(re.search(r"[-,]$", s)) and not s.endswith("—")
    return False


def _next_text(ctx: _Ctx, i: int) -> str:
    for j in range(i + 1, len(ctx.texts)):
        if ctx.texts[j].strip():
            return ctx.texts[j]
    return ""


def _clean_title(ctx: _Ctx, title: str) -> str:
    title = ctx.lex.repair(re.sub(r"\s+", " ", title).strip())
    squeezed = title.replace(" ", "")
    if " " in title and ctx.lex.known(squeezed) and not _letters_upper(title):
        title = squeezed  # ``Avalda ja`` -> ``Avaldaja``
    title = _close_quote(ctx, title)
    return title.rstrip(" .")


def _close_quote(ctx: _Ctx, title: str) -> str:
    """``Pakkumine „kaksu trumbis`` -> ``Pakkumine „kaks“ trumbis`` (a closing quote read as u)."""
    m = re.search(r"„([^\W\d_]+)u(?=\s)", title)
    if (
        m
        and "“" not in title[m.end() :]
        and not ctx.lex.known(m.group(1) + "u")
        and ctx.lex.known(m.group(1))
    ):
        title = f"{title[: m.start()]}„{m.group(1)}“{title[m.end() :]}"
    return title


def _open_topic(
    ctx: _Ctx, title: str, line: Line, level: str, /, **attrs: Unpack[NodeAttrs]
) -> Node:
    st = ctx.st
    title = _clean_title(ctx, title)
    base = slug(title) or "topic"
    key, k = base, 2
    while key in st.slugs:
        key, k = f"{base}-{k}", k + 1
    st.slugs.add(key)
    if level == "part":
        st.part = PART_HEADINGS.get(title.upper(), st.part)
        parent = None
    else:
        st.part = PART_SWITCHES.get(title, st.part)
        if level == "chapter":
            parent = st.root
        elif level == "numbered":
            parent = st.last or st.chapter or st.root
        else:
            parent = st.chapter or st.root
    attrs = {"part": st.part, **attrs}
    node = ctx.b.open_special("topic", f"topic/{key}", title, line, parent=parent, **attrs)
    if level == "part":
        st.root, st.chapter, st.last = node.id, None, node.id
    elif level == "chapter":
        st.chapter, st.last = node.id, node.id
    elif level == "topic":
        st.last = node.id
    st.table = title in TABLE_TOPICS
    return node


# Each rule looks at line ``i`` and returns how many lines it consumed (0: no match).
def rule_furniture(ctx: _Ctx, i: int) -> int:
    s = ctx.lines[i].stripped
    if any(p.match(s) for p in FURNITURE):
        if FURNITURE[0].match(s):  # the imprint ends the book: what follows is loose
            ctx.st.root = ctx.st.chapter = ctx.st.last = None
            ctx.st.part = "scoring"
        return 1
    return 0


def rule_garbled(ctx: _Ctx, i: int) -> int:
    for pat, n, title in GARBLED_HEADINGS:
        if pat.match(ctx.lines[i].stripped):
            _open_topic(ctx, title, ctx.lines[i], "topic", ocr_title="reconstructed")
            return n
    return 0


def rule_vertical_header(ctx: _Ctx, i: int) -> int:
    """In a table, a column header printed sideways comes out as 1-3 letter lines."""
    if not ctx.st.table:
        return 0
    n = 0
    j = i
    while j < len(ctx.texts) and len(ctx.texts[j].strip()) <= 3:
        n += bool(ctx.texts[j].strip())
        j += 1
    return j - i if n >= 8 else 0


def rule_heading(ctx: _Ctx, i: int) -> int:
    title = heading_title(ctx.lex.repair(ctx.texts[i]))
    if title is None or not _prev_blank(ctx, i) or _prev_ends_open(ctx, i):
        return 0
    return _heading(ctx, i, title, 1)


def rule_wrapped_heading(ctx: _Ctx, i: int) -> int:
    if i + 1 >= len(ctx.texts) or not _prev_blank(ctx, i) or _prev_ends_open(ctx, i):
        return 0
    title = wrapped_heading_title(ctx.texts[i], ctx.texts[i + 1])
    return _heading(ctx, i, title, 2) if title else 0


def rule_bare_heading(ctx: _Ctx, i: int) -> int:
    if not _prev_blank(ctx, i) or _prev_ends_open(ctx, i) or ctx.st.table:
        return 0
    title = bare_heading_title(ctx.texts[i], _next_text(ctx, i))
    return _heading(ctx, i, title, 1) if title else 0


def rule_numbered_heading(ctx: _Ctx, i: int) -> int:
    m = _NUMBERED_RE.match(ctx.texts[i].strip())
    if not m or not _prev_blank(ctx, i) or ctx.st.table:
        return 0
    title = heading_title(ctx.lex.repair(m.group(2)))
    if title is None or len(_words(title)) > 3:
        return 0
    _open_topic(ctx, title, ctx.lines[i], "numbered", number=int(m.group(1)))
    return 1


def _heading(ctx: _Ctx, i: int, title: str, n: int) -> int:
    upper = _letters_upper(title)
    squeezed = re.sub(r"\W", "", title)
    is_part = upper and any(squeezed == re.sub(r"\W", "", p) for p in PART_HEADINGS)
    if ctx.st.table and not (is_part or upper or _clean_title(ctx, title) in TABLE_TOPICS):
        return 0
    if is_part:
        level = "part"
    elif upper or _clean_title(ctx, title) in CHAPTER_TOPICS:
        level = "chapter"
    else:
        level = "topic"
    if is_part:
        title = next(p for p in PART_HEADINGS if squeezed == re.sub(r"\W", "", p))
    _open_topic(ctx, title, ctx.lines[i], level)
    if level != "topic":  # a topic may follow a part or chapter heading at once
        ctx.headings.update(range(i, i + n))
    if n == 2:
        ctx.b.extend_to(ctx.lines[i + 1])
    return n


def rule_text(ctx: _Ctx, i: int) -> int:
    if ctx.texts[i].strip():
        ctx.b.add(ctx.lines[i], ctx.texts[i])
    else:
        ctx.b.add(ctx.lines[i], "")
    return 1


#: The ordered line rules; the first that consumes lines wins.
RULES: tuple[Callable[[_Ctx, int], int], ...] = (
    rule_furniture,
    rule_garbled,
    rule_vertical_header,
    rule_numbered_heading,
    rule_heading,
    rule_wrapped_heading,
    rule_bare_heading,
    rule_text,
)


def build_lexicon(texts: list[str]) -> Lexicon:
    """The known-word lexicon for this book (its repaired lines plus simplemma)."""
    return Lexicon("\n".join(texts))


def parse(raw: str, doc: Document) -> ParseResult:
    """Parse the Estonian rule book into topic nodes."""
    lines = split_lines(raw)
    texts = [repair_line(ln.text) for ln in lines]
    lex = build_lexicon(texts)
    # titles come repaired by _clean_title; only texts go through the lexicon
    b = TreeBuilder(doc, conjunctions=CONJUNCTIONS, text_filter=lex.repair, title_filter=str)
    ctx = _Ctx(lines, texts, b, _State(), lex)
    i = 0
    while i < len(lines):
        for rule in RULES:
            n = rule(ctx, i)
            if n:
                i += n
                break
    return b.result()


@framework.parser("et1930s")
def parse_book(raw: str, doc: Document, settings: framework.Settings) -> ParseResult:
    """Walk the book with its settings table (``corpus/parsers/et1930s.toml``)."""
    return parse(raw, doc)
