"""Rules unique to the pre-war Estonian rubber-bridge book (family ``et1930s``).

The book has no law numbers: it is a run of topic headings (``Salgamine.``,
``Kõlbmata pakkumine.``) in three parts: the rules (``MÄNGU REEGLID.``), the scoring
(from ``Punktide arvutamine.`` to the score tables) and a bidding primer
(``PAKKUMINE.``), followed by a loose score table printed on the back cover.

It is walked by the shared :class:`~ingest.parse.lineparser.LineParser` with the
settings table ``corpus/parsers/et1930s.toml`` (rule order, page furniture, the word
lists below). No shared rule fits it: every shared rule reads a marker (a law number,
a section letter, a footnote mark) and this book prints none, so its headings are told
from running text by their typography alone, in the scanned text's own damage. Those
heading rules are registered here by name.

Every heading becomes a ``topic`` node labelled ``topic/<slug>``. The book nests
them: a part heading (``MÄNGU REEGLID``, ``PAKKUMINE``) holds the headings after it;
in the primer an upper-case chapter heading (``ALGPAKKUJA.``) holds the
sentence-case topics after it, and a numbered heading (``1) Eitav vastus.``) sits
under the topic before it.

Lines are first repaired (letter spacing, broken digits, see
:mod:`ingest.parse.et_lexicon`), then read by the rules; word joins run on each
node's cleaned text (the builder's text filter).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Unpack

from ..labels import slug
from ..lines import Line
from ..model import Document, Node, NodeAttrs, ParseResult
from .et_lexicon import Lexicon, repair_digits, unspace_line, unspace_words
from .framework import Settings, parser, rule, settings_for
from .lineparser import LineParser
from .tree import TreeBuilder

FAMILY = "et1930s"
_SETTINGS = settings_for(FAMILY)
_VALUES = _SETTINGS.values

#: Part headings (upper case in the book) and the part they open.
PART_HEADINGS: dict[str, str] = dict(_VALUES["part_headings"])
#: Sentence-case headings that switch the part without opening a new part root.
PART_SWITCHES: dict[str, str] = dict(_VALUES["part_switches"])
#: Topics that are a printed table or form: their labels are not headings.
TABLE_TOPICS = frozenset(_VALUES["table_topics"])
#: Sentence-case headings that start a chapter of their own (a second system).
CHAPTER_TOPICS = frozenset(_VALUES["chapter_topics"])
#: Words that make a short line a sentence rather than a heading.
SENTENCE_WORDS = frozenset(_VALUES["sentence_words"])
#: A wrapped heading may be a question (``Mida võib algpakkuja loota …``).
QUESTION_WORDS = frozenset(_VALUES["question_words"])

#: Headings the scan garbled beyond repair: (first line, lines taken, title).
GARBLED_HEADINGS: tuple[tuple[re.Pattern[str], int, str], ...] = tuple(
    (re.compile(e["first_line"]), int(e["lines"]), e["title"])
    for e in _SETTINGS.errata["garbled_headings"]
)  # a manual correction: corpus/errata/et-1930s.toml

__all__ = ["bare_heading_title", "heading_title", "parse", "repair_line", "wrapped_heading_title"]


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


# -- the walk -----------------------------------------------------------------------
class EtParser(LineParser):
    """The shared line parser over the repaired lines, with the topics' nesting."""

    texts: list[str]  # repaired line texts
    lex: Lexicon

    def __init__(self, raw: str, doc: Document, settings: Settings) -> None:
        super().__init__(raw, doc, settings)
        self.st = _State()
        self.headings: set[int] = set()  # lines of part and chapter headings

    def builder(self) -> TreeBuilder:
        """Repair the lines first; the builder repairs word joins with their lexicon."""
        self.texts = [repair_line(ln.text) for ln in self.lines]
        self.lex = build_lexicon(self.texts)
        # titles come repaired by clean_title; only texts go through the lexicon
        return TreeBuilder(
            self.doc,
            conjunctions=self.settings.conjunctions,
            text_filter=self.lex.repair,
            title_filter=str,
        )

    def read(self, i: int, record: bool = True) -> str:
        return self.texts[i]

    def prev_blank(self, i: int) -> bool:
        texts = self.texts
        return (
            i == 0
            or not texts[i - 1].strip()
            or self.lines[i].page_break
            or (i - 1) in self.headings
        )

    def prev_ends_open(self, i: int) -> bool:
        for j in range(i - 1, -1, -1):
            s = self.texts[j].strip()
            if s:
                return bool(re.search(r"[-,]$", s)) and not s.endswith("—")
        return False

    def next_text(self, i: int) -> str:
        for j in range(i + 1, len(self.texts)):
            if self.texts[j].strip():
                return self.texts[j]
        return ""

    def clean_title(self, title: str) -> str:
        title = self.lex.repair(re.sub(r"\s+", " ", title).strip())
        squeezed = title.replace(" ", "")
        if " " in title and self.lex.known(squeezed) and not _letters_upper(title):
            title = squeezed  # ``Avalda ja`` -> ``Avaldaja``
        title = self.close_quote(title)
        return title.rstrip(" .")

    def close_quote(self, title: str) -> str:
        """``Pakkumine „kaksu trumbis`` -> ``Pakkumine „kaks“ trumbis`` (a closing quote
        read as u)."""
        m = re.search(r"„([^\W\d_]+)u(?=\s)", title)
        lex = self.lex
        if (
            m
            and "“" not in title[m.end() :]
            and not lex.known(m.group(1) + "u")
            and lex.known(m.group(1))
        ):
            title = f"{title[: m.start()]}„{m.group(1)}“{title[m.end() :]}"
        return title

    def open_topic(self, title: str, line: Line, level: str, /, **attrs: Unpack[NodeAttrs]) -> Node:
        st = self.st
        title = self.clean_title(title)
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
        node = self.b.open_special("topic", f"topic/{key}", title, line, parent=parent, **attrs)
        if level == "part":
            st.root, st.chapter, st.last = node.id, None, node.id
        elif level == "chapter":
            st.chapter, st.last = node.id, node.id
        elif level == "topic":
            st.last = node.id
        st.table = title in TABLE_TOPICS
        return node

    def heading(self, i: int, title: str, n: int) -> int:
        """Open a part, chapter or topic from a heading of ``n`` lines; -1 if it is none."""
        upper = _letters_upper(title)
        squeezed = re.sub(r"\W", "", title)
        is_part = upper and any(squeezed == re.sub(r"\W", "", p) for p in PART_HEADINGS)
        if self.st.table and not (is_part or upper or self.clean_title(title) in TABLE_TOPICS):
            return -1
        if is_part:
            level = "part"
        elif upper or self.clean_title(title) in CHAPTER_TOPICS:
            level = "chapter"
        else:
            level = "topic"
        if is_part:
            title = next(p for p in PART_HEADINGS if squeezed == re.sub(r"\W", "", p))
        self.open_topic(title, self.lines[i], level)
        if level != "topic":  # a topic may follow a part or chapter heading at once
            self.headings.update(range(i, i + n))
        if n == 2:
            self.b.extend_to(self.lines[i + 1])
        return i + n


@rule(FAMILY, "imprint")
def on_imprint(p: EtParser, i: int, m: re.Match[str] | None) -> int:
    """The printer's imprint ends the book: what follows is loose (scoring)."""
    if not p.settings.pattern("imprint").match(p.lines[i].text):
        return -1
    p.st.root = p.st.chapter = p.st.last = None
    p.st.part = "scoring"
    return i + 1


@rule(FAMILY, "garbled heading")
def on_garbled(p: EtParser, i: int, m: re.Match[str] | None) -> int:
    """A heading the scan garbled beyond repair, read from the errata."""
    for pat, n, title in GARBLED_HEADINGS:
        if pat.match(p.lines[i].stripped):
            p.open_topic(title, p.lines[i], "topic", ocr_title="reconstructed")
            return i + n
    return -1


@rule(FAMILY, "table header")
def on_table_header(p: EtParser, i: int, m: re.Match[str] | None) -> int:
    """In a table, a column header printed sideways comes out as 1-3 letter lines."""
    if not p.st.table:
        return -1
    n = 0
    j = i
    while j < len(p.texts) and len(p.texts[j].strip()) <= 3:
        n += bool(p.texts[j].strip())
        j += 1
    return j if n >= 8 else -1


@rule(FAMILY, "numbered heading")
def on_numbered_heading(p: EtParser, i: int, m: re.Match[str]) -> int:
    """``1) Eitav vastus.``: a short heading under the topic before it."""
    if not p.prev_blank(i) or p.st.table:
        return -1
    title = heading_title(p.lex.repair(m.group(2)))
    if title is None or len(_words(title)) > 3:
        return -1
    p.open_topic(title, p.lines[i], "numbered", number=int(m.group(1)))
    return i + 1


@rule(FAMILY, "heading")
def on_heading(p: EtParser, i: int, m: re.Match[str] | None) -> int:
    """A one-line heading ending in a full stop after a blank line."""
    if not p.prev_blank(i) or p.prev_ends_open(i):
        return -1  # checked first: the repair of every line of the book costs
    title = heading_title(p.lex.repair(p.texts[i]))
    return -1 if title is None else p.heading(i, title, 1)


@rule(FAMILY, "wrapped heading")
def on_wrapped_heading(p: EtParser, i: int, m: re.Match[str] | None) -> int:
    """A heading wrapped over two lines."""
    if i + 1 >= len(p.texts) or not p.prev_blank(i) or p.prev_ends_open(i):
        return -1
    title = wrapped_heading_title(p.texts[i], p.texts[i + 1])
    return p.heading(i, title, 2) if title else -1


@rule(FAMILY, "bare heading")
def on_bare_heading(p: EtParser, i: int, m: re.Match[str] | None) -> int:
    """A heading printed without its full stop."""
    if not p.prev_blank(i) or p.prev_ends_open(i) or p.st.table:
        return -1
    title = bare_heading_title(p.texts[i], p.next_text(i))
    return p.heading(i, title, 1) if title else -1


def build_lexicon(texts: list[str]) -> Lexicon:
    """The known-word lexicon for this book (its repaired lines plus simplemma)."""
    return Lexicon("\n".join(texts))


@parser(FAMILY)
def parse_book(raw: str, doc: Document, settings: Settings) -> ParseResult:
    """Walk the book with its settings table (``corpus/parsers/et1930s.toml``)."""
    return EtParser(raw, doc, settings).run()


def parse(raw: str, doc: Document) -> ParseResult:
    """Parse the Estonian rule book into topic nodes."""
    return parse_book(raw, doc, _SETTINGS)
