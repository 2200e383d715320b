"""One registry of everything language-specific, one data file per language.

``ingest/languages/<code>.toml`` holds a language's citation patterns, number words,
abbreviations, sentence ends, hyphen conjunctions, compound links, page furniture, the
strength words of the laws ("should" against "shall") and
the lemmatiser and stemmer to use. A corpus may bring more languages in its own
``languages/`` folder (:func:`add_dir`, called by :func:`ingest.corpus.load_manifest`).
Every consumer (citation finding, the language pipeline, the glossary, alignment
checks, the search index, the parsers' hyphen policy) reads from here.

The mappings below (:data:`STEMMERS`, :data:`ABBREVIATIONS`, …) are live views: a
language registered later is seen by every consumer that holds them.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


class LanguageError(Exception):
    """A language file is missing, malformed or the language is not registered."""


@dataclass(frozen=True)
class Language:
    """What lawgraph knows about one language (see the module docstring)."""

    code: str
    name: str
    stemmer: str = ""
    lemmatiser: str = "simplemma"
    abbreviations: tuple[str, ...] = ()
    sentence_ends: tuple[str, ...] = ()
    hyphen_conjunctions: tuple[str, ...] = ()
    compound_links: tuple[str, ...] | None = None
    number_words: dict[int, str] = field(default_factory=dict)
    small_words: dict[int, str] = field(default_factory=dict)
    #: nouns (folded prefixes) a number word must come with to count something (tricks,
    #: boards, cards, points, ...): "två par eller sidor" is an idiom, not a number
    counted_nouns: tuple[str, ...] = ()
    #: words after a number that make it a percentage (a regular expression)
    percent_words: str = ""
    #: words before "two" that make it "both" (el "τα δύο χέρια": both hands)
    both_before: tuple[str, ...] = ()
    citations: dict[str, Any] = field(default_factory=dict)
    furniture: dict[str, str] = field(default_factory=dict)
    stop_words: tuple[str, ...] = ()
    #: a book's own letters: ``sections`` and ``items`` (the letters or numerals that
    #: stand for A, B, C... and (a), (b), (c)... in order), ``lookalikes`` (Latin
    #: capitals printed in their place) and ``transliteration`` (to ASCII, for slugs)
    letters: dict[str, Any] = field(default_factory=dict)
    #: strength words by level (``may``, ``should``, ``shall``) as the books' introductions rank
    #: them, the negations that turn one into a prohibition, and how many words after it
    #: such a negation may stand (Swedish "bör inte")
    strength: dict[str, str] = field(default_factory=dict)
    strength_negation: str = ""
    strength_negation_after: int = 0
    strength_negation_before_words: int = 2
    #: words opening a subordinate clause, whose strength words are not the sentence's
    strength_subordinators: str = ""
    #: strength words that state a duty only with an infinitive after them (Finnish
    #: "pitää panna", "tulee olla"; not "pitää hallussaan", keeps, or "tulee
    #: loppusitoumukseksi", becomes), and how many words after them it may stand
    strength_infinitive: str = ""
    strength_infinitive_window: int = 3
    #: words that narrow or widen a rule's scope, by what they say (``normally``,
    #: ``first``, ``only``, ``intentionally``, ``inadvertently``, ``immediately``):
    #: folded regular-expression alternations
    qualifiers: dict[str, str] = field(default_factory=dict)
    #: whether a sentence without a strength word states procedure (the introductions'
    #: "does"); not in Greek, where the future "θα" often states a duty
    plain_is_procedure: bool = False
    builtin: bool = True


_REGISTRY: dict[str, Language] = {}


def load_file(path: Path, builtin: bool = False) -> Language:
    """Read one language file.

    Raises:
        LanguageError: naming the file, if it is unreadable or not TOML, or lacks
            ``code`` or ``name``.
    """
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise LanguageError(f"{path}: unreadable language file: {exc}") from exc
    for key in ("code", "name"):
        if not data.get(key):
            raise LanguageError(f"{path}: language file lacks {key!r}")
    links = data.get("compound_links")
    try:
        return Language(
            code=data["code"],
            name=data["name"],
            stemmer=data.get("stemmer", ""),
            lemmatiser=data.get("lemmatiser", "simplemma"),
            abbreviations=tuple(data.get("abbreviations", ())),
            sentence_ends=tuple(data.get("sentence_ends", ())),
            hyphen_conjunctions=tuple(data.get("hyphen_conjunctions", ())),
            compound_links=tuple(links) if links is not None else None,
            number_words={int(k): v for k, v in data.get("number_words", {}).items()},
            small_words={int(k): v for k, v in data.get("small_words", {}).items()},
            both_before=tuple(data.get("both_before", ())),
            counted_nouns=tuple(data.get("counted_nouns", ())),
            percent_words=data.get("percent_words", ""),
            citations=dict(data.get("citations", {})),
            furniture=dict(data.get("furniture", {})),
            stop_words=tuple(data.get("stop_words", ())),
            letters=dict(data.get("letters", {})),
            strength={
                k: v for k, v in data.get("strength", {}).items() if k in ("may", "should", "shall")
            },
            strength_negation=data.get("strength_negation", {}).get("before", ""),
            strength_negation_after=int(data.get("strength_negation", {}).get("after", 0)),
            strength_negation_before_words=int(
                data.get("strength_negation", {}).get("before_words", 2)
            ),
            strength_subordinators=data.get("strength_negation", {}).get("subordinators", ""),
            strength_infinitive=data.get("strength_infinitive", {}).get("words", ""),
            strength_infinitive_window=int(data.get("strength_infinitive", {}).get("window", 3)),
            qualifiers={k: str(v) for k, v in data.get("qualifiers", {}).items()},
            plain_is_procedure=bool(data.get("plain_is_procedure", False)),
            builtin=builtin,
        )
    except (TypeError, ValueError) as exc:
        raise LanguageError(f"{path}: malformed language file: {exc}") from exc


def register(lang: Language) -> None:
    """Add (or replace) a language in the registry."""
    _REGISTRY[lang.code] = lang
    for hook in _HOOKS:
        hook(lang.code)


#: Called with a language code whenever one is registered (caches that depend on it).
_HOOKS: list[Callable[[str], None]] = []


def on_register(hook: Callable[[str], None]) -> None:
    """Call ``hook(code)`` whenever a language is registered."""
    _HOOKS.append(hook)


def add_dir(corpus_dir: Path) -> list[str]:
    """Register every ``languages/*.toml`` of a corpus folder; returns their codes."""
    codes = []
    for path in sorted((Path(corpus_dir) / "languages").glob("*.toml")):
        lang = load_file(path)
        register(lang)
        codes.append(lang.code)
    return codes


def _load_builtin() -> None:
    for path in sorted(HERE.glob("*.toml")):
        register(load_file(path, builtin=True))


def get(code: str) -> Language:
    """The registered language ``code``.

    Raises:
        LanguageError: if no language file defines it.
    """
    try:
        return _REGISTRY[code]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise LanguageError(f"unknown language {code!r} (known: {known})") from None


def is_known(code: str) -> bool:
    """Whether a language file defines ``code``."""
    return code in _REGISTRY


def codes() -> tuple[str, ...]:
    """Every registered language, the shipped ones first in their own order."""
    builtin = [c for c in BUILTIN if c in _REGISTRY]
    return (*builtin, *sorted(c for c in _REGISTRY if c not in BUILTIN))


class _View(Mapping[str, Any]):
    """A live ``code -> value`` mapping over the registry (only languages that have it)."""

    def __init__(self, attr: str, keep: Callable[[Any], bool] = bool) -> None:
        self.attr, self.keep = attr, keep

    def __getitem__(self, code: str) -> Any:
        lang = _REGISTRY.get(code)
        if lang is None or not self.keep(getattr(lang, self.attr)):
            raise KeyError(code)
        return getattr(lang, self.attr)

    def __iter__(self) -> Iterator[str]:
        return (c for c in codes() if self.keep(getattr(_REGISTRY[c], self.attr)))

    def __len__(self) -> int:
        return sum(1 for _ in self)


_load_builtin()
#: The shipped languages, in the order reports list them.
BUILTIN: tuple[str, ...] = ("fi", "sv", "el", "et")
#: The shipped languages (every registered one: :func:`codes`).
LANGS = BUILTIN
STEMMERS: Mapping[str, str] = _View("stemmer")
ABBREVIATIONS: Mapping[str, tuple[str, ...]] = _View("abbreviations")
SENTENCE_ENDS: Mapping[str, tuple[str, ...]] = _View("sentence_ends")
NUMBER_WORDS: Mapping[str, dict[int, str]] = _View("number_words")
SMALL_WORDS: Mapping[str, dict[int, str]] = _View("small_words")
COUNTED_NOUNS: Mapping[str, tuple[str, ...]] = _View("counted_nouns")
PERCENT_WORDS: Mapping[str, str] = _View("percent_words")
BOTH_BEFORE: Mapping[str, tuple[str, ...]] = _View("both_before")
STRENGTH: Mapping[str, dict[str, str]] = _View("strength")
COMPOUND_LINKS: Mapping[str, tuple[str, ...]] = _View("compound_links", lambda v: v is not None)


def hyphen_conjunctions(codes_: tuple[str, ...] | None = None) -> frozenset[str]:
    """Words after which a line-end hyphen is real, in the given (default: all) languages."""
    return frozenset(w for c in codes_ or codes() for w in get(c).hyphen_conjunctions)


def furniture(code: str, name: str) -> str:
    """A named page-furniture pattern of a language's books (``fi``: ``fi2007_footer``).

    Raises:
        LanguageError: if the language does not define it.
    """
    try:
        return get(code).furniture[name]
    except KeyError:
        raise LanguageError(f"language {code!r} has no furniture pattern {name!r}") from None
