"""OCR repair for the scanned Estonian rule book (``et-1930s``).

The scan has three kinds of damage that this module repairs, each as a small pure
function:

* letter-spaced lines (``K u i  le p in g u  te g i ja``): single spaces inside a
  word, two spaces between words (:func:`unspace_line`);
* words split by a stray space (``tem a``, ``k u id``, ``pakkum ine``): joined when
  the joined word is known and its parts are not all known words
  (:class:`Lexicon` and :meth:`Lexicon.repair`);
* a space moved into the wrong place (``ku ipa rtii`` -> ``kui partii``), fixed only
  when a short leading word splits off (:meth:`Lexicon.resegment`);
* broken digits in the scoring tables (``IOO`` for ``100``, ``2 0 40 8 0`` for
  ``20 40 80``) (:func:`repair_digits`).

A word is *known* when simplemma knows it as Estonian, or when the book has it as a
whole word (between words or punctuation, never glued to a neighbour into a known
word), or when it is a case form of such a word (``kontreerimisest``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from functools import cache, lru_cache
from itertools import accumulate

from .. import clean

#: Letters that make up a card holding (``Ä E x x``): never closed up into a word.
CARD_LETTERS = frozenset("ÄKESAXx")
_LETTERS = r"[^\W\d_]"
_WORD_TOKEN_RE = re.compile(rf"^({_LETTERS}+)([.,;:!?)“\"]*)$")
#: :data:`_WORD_TOKEN_RE` matched once per distinct piece: the repairs try every piece in
#: several windows (a piece is in up to twelve of them).
_word_token = lru_cache(maxsize=1 << 16)(_WORD_TOKEN_RE.match)
_PURE_RE = re.compile(rf"^{_LETTERS}+$")
_CARD_RUN_RE = re.compile(r"^[ÄKESAXx]+[.,;:]?$")


@cache
def lang_known(word: str) -> bool:
    """True when simplemma knows the lower-case ``word`` as Estonian."""
    if not word:
        return False
    from ..lemma_table import known

    return known("et", word)


# -- letter spacing ----------------------------------------------------------------
def _is_cards(group: str) -> bool:
    """``Ä E x x``, ``S 9 2``: honour letters, spot cards and digits of a holding."""
    tokens = [t for t in group.split() if t not in {".", ",", ";", ":"}]
    letters = [t for t in tokens if not t.isdigit()]
    return bool(letters) and all(_CARD_RUN_RE.match(t) for t in letters)


def _squeeze(group: str) -> str:
    """Close up one double-space-delimited group if that makes a word."""
    if _is_cards(group):
        return group
    tokens = group.split(" ")
    squeezed = group.replace(" ", "")
    core = re.sub(r"[^\w]", "", squeezed).lower()
    if all(len(t) == 1 for t in tokens) or lang_known(core):
        return re.sub(r"\.(?=[^\W\d_])", ". ", squeezed).rstrip()
    return group


def unspace_line(line: str) -> str:
    """Close up a letter-spaced line whose words are separated by two spaces.

    ``K u i  le p in g u  te g i ja`` -> ``Kui lepingu tegija``. A line qualifies
    when it has double spaces, no dot leaders and at least half of its
    single-space tokens are one character long. A group is closed up when it is
    all single characters or closes up into a known word; card holdings (``Ä K``)
    stay as they are.
    """
    body = line.strip()
    if "  " not in body or re.search(r"\.\s?\.\s?\.", body):
        return line
    tokens = [t for t in body.split(" ") if t]
    if len(tokens) < 6 or sum(len(t) == 1 for t in tokens) * 2 < len(tokens):
        return line
    groups = re.split(r"\s{2,}", body)
    text = " ".join(_squeeze(g) for g in groups)
    text = re.sub(r"“(?=[^\W\d_])", "“ ", text)
    return text


def unspace_words(line: str) -> str:
    """``S a l g a m i n e .`` -> ``Salgamine.``; card holdings (``Ä E x x``) stay."""

    def fix(m: re.Match[str]) -> str:
        if set(re.sub(r"[\s.:]", "", m.group(0))) <= CARD_LETTERS:
            return m.group(0)
        return clean.unspace_letters(m.group(0))

    return re.sub(rf"(?<!\w)(?:{_LETTERS} ){{2,}}{_LETTERS}(?: ?[.:])?(?!\w)", fix, line)


# -- digits ------------------------------------------------------------------------
_LOOKALIKE = str.maketrans({"I": "1", "l": "1", "i": "1", "O": "0", "o": "0", "Ö": "6", "S": "5"})
_LOOK_TOKEN_RE = re.compile(r"^[IlioO0-9ÖS°]{2,}$")


def _lookalike_number(tok: str) -> str | None:
    """``IOO`` -> ``100``, ``25O`` -> ``250``, ``135°`` -> ``1350``; else None."""
    if not _LOOK_TOKEN_RE.match(tok) or tok.isdigit():
        return None
    has_digit = bool(re.search(r"[0-9°]", tok))
    if not (has_digit or re.match(r"^[Ili][OoSÖ][OoS0]*$", tok) or re.match(r"^Ö[Oo]+$", tok)):
        return None
    if re.search(r"[a-z]", tok.replace("i", "").replace("o", "").replace("l", "")):
        return None
    return tok.replace("°", "0").translate(_LOOKALIKE)


def repair_digits(line: str) -> str:
    """Fix broken numbers in a table or numeric line.

    Look-alike tokens become digits (``IOO`` -> ``100``). In a table line (three or
    more numeric tokens) single digits split by spaces are joined again: a digit
    continues the number before it unless it is non-zero and that number ends in
    a zero (scores are multiples of ten): ``5 0 1 5 0`` -> ``50 150``. A lone
    ``I``/``l`` counts as ``1`` only between digits there.
    """
    parts = line.split(" ")
    mapped = [_lookalike_number(p) or p for p in parts]
    numeric = sum(p.isdigit() for p in mapped)
    cards = sum(p in CARD_LETTERS for p in mapped) > 1 or any(p in _SUITS for p in mapped)
    if numeric < 3 or cards:
        return " ".join(mapped)
    out: list[str] = []
    for i, tok in enumerate(mapped):
        nxt = next((t for t in mapped[i + 1 :] if t), "")
        prev_num = bool(out) and out[-1].isdigit()
        if tok in {"I", "l"} and (prev_num or (nxt.isdigit() and len(nxt) == 1)):
            tok = "1"
        if tok in {"O", "o"} and prev_num:
            tok = "0"
        if (
            len(tok) == 1
            and tok.isdigit()
            and prev_num
            and not (tok != "0" and out[-1].endswith("0"))
        ):
            out[-1] += tok
            continue
        out.append(tok)
    return " ".join(out)


_SUITS = frozenset("♠♥♦♣*♦+¥^")


#: Short words the scan runs into their neighbours (``eitohi``, ``ruutusiis``).
FUNCTION_WORDS = frozenset(
    {"ei", "on", "ka", "ja", "kui", "et", "see", "siis", "ta", "või", "ehk", "mis", "kas", "oma"}
)

#: Estonian case endings added to a known form (``kontreerimise`` + ``st``).
CASE_ENDINGS = ("sse", "st", "s", "lt", "le", "l", "ks", "ga", "na", "ta", "t", "d")

_ENDINGS_BY_LENGTH = tuple(
    (k, frozenset(e for e in CASE_ENDINGS if len(e) == k))
    for k in sorted({len(e) for e in CASE_ENDINGS})
)

_INE_CASE_RE = re.compile(r"^(\w+)is(?:e|t|el|ele|elt|es|est|esse|ega|eks|ed|te|tel|tele|test)$")

_STRAY_HYPHEN_RE = re.compile(r"(?<![\w-])([^\W\d_]{2,})- ([a-zäöõü][^\W\d_]+)")
#: Words after which a hyphen is real (``vähem- ja ülevõtted``).
HYPHEN_KEEP = frozenset({"ja", "või", "ehk", "ning", "kui"})

#: Short words a misplaced space tears from the next word (``ku ipa rtii``).
LEADING_WORDS = frozenset({"kui", "kuni", "või", "enne", "uut", "isegi", "ikkagi", "oma"})


#: A capital letter standing alone before a word (``A ja C``, ``B kas``).
_NAME_RE = re.compile(r"(?<![\w.])([A-ZÄÖÜÕ]) (?=([^\W\d_]+))")


# -- split words -------------------------------------------------------------------
def _rewrite_windows(
    text: str,
    sizes: tuple[int, ...],
    rewrite: Callable[[list[str]], str | None],
    settled: Callable[[str], bool] | None = None,
    unsettled: int = 1,
) -> str:
    """Scan space-separated pieces left to right; at each place try windows of ``sizes``
    pieces (largest first) and let ``rewrite`` replace the first window it accepts.

    ``settled``: a piece that ``rewrite`` can only change in a window with at least
    ``unsettled`` pieces that are not settled; other windows are not asked (most of a
    book's windows are whole words, and asking costs a dozen lookups each).
    """
    tokens = text.split(" ")
    # open_[i]: pieces before i that are not settled (a window's count is a difference)
    open_ = list(accumulate((not settled(t) for t in tokens), initial=0)) if settled else None
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for k in sizes:
            run = tokens[i : i + k]
            if len(run) < k or (open_ is not None and open_[i + k] - open_[i] < unsettled):
                continue
            fixed = rewrite(run)
            if fixed:
                out.append(fixed)
                i += k
                break
        else:
            out.append(tokens[i])
            i += 1
    return " ".join(out)


class Lexicon:
    """The words known for joining, and the joins made (for measuring).

    Args:
        corpus_text: the book's text after line repair; its whole words count as
            known unless they are half of a split word somewhere in it.
        lang_known: the language lexicon (simplemma by default).
    """

    def __init__(self, corpus_text: str, lang: Callable[[str], bool] = lang_known) -> None:
        self.lang = lang
        tokens = corpus_text.split()
        words = Counter(m.group(1).lower() for t in tokens if (m := _WORD_TOKEN_RE.match(t)))
        glued_words: set[str] = set()
        whole_words: set[str] = set()
        for i, tok in enumerate(tokens):
            m = _WORD_TOKEN_RE.match(tok)
            if not m:
                continue
            w = m.group(1).lower()
            left = _WORD_TOKEN_RE.match(tokens[i - 1]) if i > 0 else None
            right = _WORD_TOKEN_RE.match(tokens[i + 1]) if i + 1 < len(tokens) else None
            glued = []
            if left and not left.group(2):
                glued.append(left.group(1).lower() + w)
            if right and not m.group(2):
                glued.append(w + right.group(1).lower())
            if any(g in words or self.lang(g) for g in glued):
                glued_words.add(w)
            elif (left is None or left.group(2) or self._word(left.group(1))) and (
                right is None or m.group(2) or self._word(right.group(1))
            ):
                whole_words.add(w)  # each side: punctuation, no letters, or a word
        self.corpus = {
            w for w in whole_words - glued_words if len(w) > 2 and not self._two_words(w)
        }
        self.joins: list[tuple[str, str]] = []
        self.resplits: list[tuple[str, str]] = []
        self._known: dict[str, bool] = {}

    def _word(self, token: str) -> bool:
        return len(token) > 1 and self.lang(token.lower())

    def _two_words(self, word: str) -> bool:
        """True for ``eitohi``: a function word run together with another word."""
        for p in range(2, len(word) - 1):
            a, b = word[:p], word[p:]
            if (a in FUNCTION_WORDS and self.lang(b)) or (b in FUNCTION_WORDS and self.lang(a)):
                return True
        return False

    def known(self, word: str) -> bool:
        """True when ``word`` is a word of the language or the book.

        A single letter is never a word here: in this scan it is a piece of one
        (``tem a``, ``m ast``); the player names ``A`` … ``D`` are protected
        separately (see :meth:`join_pairs`).
        """
        w = word.lower()
        got = self._known.get(w)
        if got is None:  # the book's words are fixed: each is decided once
            got = self._known[w] = len(w) >= 2 and (
                self.lang(w) or w in self.corpus or self._inflected(w)
            )
        return got

    def _inflected(self, w: str) -> bool:
        """``kontreerimisest``: a known form plus a case ending, or an ``-ine`` noun's case."""
        for k, endings in _ENDINGS_BY_LENGTH:
            if len(w) - k >= 5 and w[-k:] in endings and w[:-k] in self.corpus:
                return True
        m = _INE_CASE_RE.match(w)
        if not m or len(m.group(1)) < 4:
            return False
        base = m.group(1) + "ine"
        return base in self.corpus or self.lang(base)

    def _join_run(self, parts: list[str]) -> bool:
        words = []
        for i, p in enumerate(parts):
            m = _word_token(p)
            if m is None or (m.group(2) and i < len(parts) - 1):
                return False  # a piece that is no word, or punctuation inside the run
            words.append(m.group(1))
        if any(w[0].isupper() for w in words[1:]) and not all(w.isupper() for w in words):
            return False
        if "".join(words) and set("".join(words)) <= CARD_LETTERS:
            return False
        # pieces that are words already stay apart; asked first, as they recur while
        # each run joined is a new string for the dictionary
        if len(words) == 2:
            if all(self.known(w) for w in words):
                return False
        elif all(len(w) > 2 and self.known(w) for w in words):
            return False
        return self.known("".join(words))

    def _settled_join(self, piece: str) -> bool:
        """A piece :meth:`_join_run` never joins with others that are all like it: a known
        word of three letters or more (with or without punctuation after it)."""
        m = _word_token(piece)
        return m is not None and len(m.group(1)) > 2 and self.known(m.group(1))

    def _settled_resplit(self, piece: str) -> bool:
        """A piece that counts as a word for :meth:`_resplit`, which needs two that are not."""
        m = _word_token(piece)
        return m is not None and self.known(m.group(1))

    def _edge_word(self, run: list[str]) -> bool:
        """``ei toh i``, ``trum b i toetus``: an end piece is a word, the rest joins alone."""
        first = run[0].lower()
        if len(first) > 1 and self.lang(first) and self._join_run(run[1:]):
            return True
        last = _word_token(run[-1])  # ``trum b i toetus``: ``toetus`` stays
        return bool(last and len(last.group(1)) >= 6 and self.lang(last.group(1).lower())) and (
            self._join_run(run[:-1])
        )

    def join_runs(self, text: str, sizes: tuple[int, ...] = (5, 4, 3)) -> str:
        """Join runs of 3-5 space-separated pieces (``k u id`` -> ``kuid``)."""

        def join(run: list[str]) -> str | None:
            if self._join_run(run) and not self._edge_word(run):
                self.joins.append((" ".join(run), "".join(run)))
                return "".join(run)
            return None

        return _rewrite_windows(text, sizes, join, self._settled_join, 1)

    def join_initials(self, text: str) -> str:
        """``m itte`` -> ``mitte``, ``K ontreerida`` -> ``Kontreerida`` before other pairs.

        A lone letter joins the piece after it when that piece is no word and the
        two make one (so ``või m itte`` becomes ``või mitte``, not ``võim itte``).
        """

        tokens = text.split(" ")
        for i in range(len(tokens) - 1):
            a, m = tokens[i], _WORD_TOKEN_RE.match(tokens[i + 1])
            if len(a) != 1 or not a.isalpha() or not m or len(m.group(1)) < 2:
                continue
            b = m.group(1)
            prev = tokens[i - 1] if i > 0 and _PURE_RE.match(tokens[i - 1]) else ""
            if self.known(b) or not self.known(a + b) or (prev and self.known(prev + a + b)):
                continue
            self.joins.append((f"{a} {b}", a + b))
            tokens[i], tokens[i + 1] = "", a + tokens[i + 1]
        return " ".join(t for t in tokens if t)

    def join_pairs(self, text: str) -> str:
        """Join split pairs with :func:`ingest.clean.join_ocr_splits`, logging each."""

        def guard(m: re.Match[str]) -> str:  # ``A ja`` is a name, ``K ontreerida`` a split
            return m.group(1) + ("\u00a0" if self.known(m.group(2)) else " ")

        guarded = _NAME_RE.sub(guard, text)
        joined = clean.join_ocr_splits(guarded, self.known)
        if joined != guarded:
            before, after = guarded.split(" "), joined.split(" ")
            self._log_pairs(before, after)
        return joined.replace("\u00a0", " ")

    def _log_pairs(self, before: list[str], after: list[str]) -> None:
        i = j = 0
        while i < len(before) and j < len(after):
            if before[i] == after[j]:
                i += 1
                j += 1
                continue
            start = i
            acc = before[i]
            while acc != after[j] and i + 1 < len(before):
                i += 1
                acc += before[i]
            self.joins.append((" ".join(before[start : i + 1]), after[j]))
            i += 1
            j += 1

    def _splits(self, joined: str) -> list[tuple[str, str]]:
        return [
            (joined[:p], joined[p:])
            for p in range(2, len(joined) - 3)
            if joined[:p] in LEADING_WORDS and self.lang(joined[p:])
        ]

    def resegment(self, text: str, sizes: tuple[int, ...] = (3, 2)) -> str:
        """Move a misplaced space: ``ku ipa rtii`` -> ``kui partii``.

        A window of pieces with at least two non-words is rejoined and split again
        when exactly one split gives a short leading word (:data:`LEADING_WORDS`)
        and a known word of four letters or more.
        """

        def resplit(run: list[str]) -> str | None:
            fixed = self._resplit(run)
            if fixed:
                self.resplits.append((" ".join(run), fixed))
            return fixed

        return _rewrite_windows(text, sizes, resplit, self._settled_resplit, 2)

    def _resplit(self, run: list[str]) -> str | None:
        matches = [m for p in run if (m := _word_token(p))]
        if len(matches) < len(run) or any(m.group(2) for m in matches[:-1]):
            return None
        words = [m.group(1) for m in matches]
        if any(w[0].isupper() for w in words[1:]) or sum(not self.known(w) for w in words) < 2:
            return None
        joined = "".join(words)
        splits = self._splits(joined.lower())
        if len(splits) != 1:
            return None
        cut = len(splits[0][0])
        return f"{joined[:cut]} {joined[cut:]}{matches[-1].group(2)}"

    def fix_stray_hyphens(self, text: str) -> str:
        """``kui see- esimese`` -> ``kui see esimese``; ``tähel- panu`` -> ``tähelpanu``.

        A hyphen and space left inside a line is a missed hyphenation when the two
        halves make a known word, and a speck otherwise; before a conjunction
        (``vähem- ja``) it is a real hyphen and stays.
        """

        def fix(m: re.Match[str]) -> str:
            a, b = m.group(1), m.group(2)
            if b.lower() in HYPHEN_KEEP:
                return m.group(0)
            return a + b if self.known(a + b) else f"{a} {b}"

        return _STRAY_HYPHEN_RE.sub(fix, text)

    def repair(self, text: str) -> str:
        """All word-level repairs of a cleaned text (the TreeBuilder text filter)."""
        text = fix_ocr_letters(text)
        text = self.fix_stray_hyphens(text)
        text = re.sub(r"([„(])(?=[^\W\d_])", r"\1 ", text)
        text = re.sub(r"(?<=[^\W\d_])([“\"”])", r" \1", text)
        text = self.join_runs(text)
        text = self.join_initials(text)
        text = self.join_pairs(text)
        text = self.resegment(text)
        return fix_spacing(text)


# -- small character fixes ---------------------------------------------------------
def fix_ocr_letters(text: str) -> str:
    """``SIam`` -> ``Slam`` (a capital I inside a word is an l); ``l)`` -> ``1)``."""
    text = re.sub(r"(?<=[^\W\d_])I(?=[a-zäöõü])", "l", text)
    return re.sub(r"(?<![\w(])l\)(?= )", "1)", text)


_CLOSE_QUOTE_RE = re.compile(r"(„[^„“\"\d]{1,30}?)\s?(?:'1|\*1|\*4|11|\"|”)(?=[\s.,;:)!]|$)")


def fix_spacing(text: str) -> str:
    """Tidy spaces around quotes and punctuation; ``„üks trumbita"`` -> ``„üks trumbita“``."""
    text = re.sub(r"„\s+(?=[^\W\d_])", "„", text)
    text = _CLOSE_QUOTE_RE.sub(r"\1“", text)
    text = re.sub(r"(?<=[^\W\d_.])\s+([“”])", r"\1", text)
    text = re.sub(r"(?<=[^\W\d_)“])\s+([.,;:!?])(?=\s+[^\s.]|$)", r"\1", text)
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r"(?<=\w)\s+\)", ")", text)
    return text
