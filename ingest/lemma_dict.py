"""simplemma's dictionaries, each opened once per ingest by whichever process is free.

Opening a dictionary is the slow part of asking simplemma (it reads the compressed stream
of every form of the language). simplemma's low-memory backend (``StreamMap``) opens one
in about half the time its default backend takes and answers the same: it keeps the
stream and an index of where each block of records starts, and decodes one block per
lookup. A ``StreamMap`` is plain data, so a worker process can open it and hand it to
the parent (about a tenth of the time opening takes): while the books are parsed, the
worker processes open the dictionaries the corpus-wide stages will need
(:func:`open_in_worker`), and every dictionary a parser opened comes back with its book
(:func:`take_opened`). The answers are simplemma's own: :func:`is_known` and
:func:`lemmatize` are ``simplemma.is_known`` and ``simplemma.lemmatize`` through a
dictionary factory holding these maps.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

_OPENED: dict[str, Mapping[str, str]] = {}
KEPT_ANSWERS = 500_000
"""Dictionary answers kept per language and process (an ingest asks about 85,000)."""
_HANDED: set[str] = set()
_CLAIMS: tuple[tuple[str, ...], object] | None = None


def dictionary(lang: str) -> Mapping[str, str]:
    """simplemma's dictionary of ``lang``, opened on first use in this process.

    Raises:
        ValueError: for a language simplemma does not have.
    """
    got = _OPENED.get(lang)
    if got is None:
        from simplemma.strategies.dictionaries.stream_dictionary_factory import StreamMap

        _claim(lang)
        got = _OPENED[lang] = StreamMap(lang)
    return got


def is_known(form: str, lang: str) -> bool:
    """``simplemma.is_known(form, lang=lang)``."""
    from simplemma.utils import normalize_token

    lookup, _, _ = _strategies()
    return lookup.get_lemma(normalize_token(form), lang) is not None


def lemmatize(form: str, lang: str, greedy: bool = False) -> str:
    """``simplemma.lemmatize(form, lang=lang, greedy=greedy)``."""
    _, plain, eager = _strategies()
    return (eager if greedy else plain).lemmatize(form, lang)


@lru_cache(maxsize=1)
def _strategies() -> tuple[Any, Any, Any]:
    from simplemma import Lemmatizer
    from simplemma.strategies import DefaultStrategy, DictionaryLookupStrategy
    from simplemma.strategies.dictionaries.dictionary_factory import (
        DecodedStrMapping,
        DictionaryFactory,
    )

    class Remembered(DecodedStrMapping):
        """A dictionary whose answers are kept: a third of simplemma's lookups ask a
        key asked before (``is_known`` then ``lemmatize``, the affix strategies), and a
        lookup decodes a block of the stream."""

        __slots__ = ("_map", "_seen")

        def __init__(self, opened: Mapping[str, str]) -> None:
            self._map = opened
            self._seen: dict[str, str | None] = {}

        def _lookup(self, key: str) -> str | None:
            try:
                return self._seen[key]
            except KeyError:
                if len(self._seen) >= KEPT_ANSWERS:  # a long-running server: start again
                    self._seen.clear()
                got = self._seen[key] = self._map.get(key)
                return got

        def __iter__(self) -> Iterator[str]:
            return iter(self._map)

        def __len__(self) -> int:
            return len(self._map)

    remembered: dict[str, Remembered] = {}

    class Opened(DictionaryFactory):
        __slots__ = ()

        def get_dictionary(self, lang: str) -> Mapping[str, str]:
            opened = dictionary(lang)
            got = remembered.get(lang)
            if got is None or got._map is not opened:
                got = remembered[lang] = Remembered(opened)
            return got

    factory = Opened()
    return (
        DictionaryLookupStrategy(factory),
        Lemmatizer(lemmatization_strategy=DefaultStrategy(dictionary_factory=factory)),
        Lemmatizer(lemmatization_strategy=DefaultStrategy(greedy=True, dictionary_factory=factory)),
    )


def take_opened() -> dict[str, Mapping[str, str]]:
    """The dictionaries this process opened and has not handed over yet."""
    new = {lang: m for lang, m in _OPENED.items() if lang not in _HANDED}
    _HANDED.update(new)
    return new


def install(maps: dict[str, Mapping[str, str]]) -> None:
    """Use dictionaries another process opened (one already open here is kept)."""
    for lang, m in maps.items():
        _OPENED.setdefault(lang, m)
        _HANDED.add(lang)


def share_claims(langs: list[str]) -> None:
    """Before forking workers: let them agree on who opens which of ``langs``."""
    import multiprocessing as mp

    global _CLAIMS
    _CLAIMS = (tuple(langs), mp.get_context("fork").Array("b", len(langs)))


def end_claims() -> None:
    """After the workers are done: forget the claims."""
    global _CLAIMS
    _CLAIMS = None


def _claim(lang: str) -> bool:
    """Mark ``lang`` as being opened; False if another process already marked it."""
    if _CLAIMS is None or lang not in _CLAIMS[0]:
        return True
    langs, flags = _CLAIMS
    i = langs.index(lang)
    with flags.get_lock():  # type: ignore[attr-defined]
        if flags[i]:  # type: ignore[index]
            return False
        flags[i] = 1  # type: ignore[index]
    return True


def open_in_worker(lang: str) -> dict[str, Mapping[str, str]]:
    """In a worker: open ``lang`` unless some process has claimed it; what to hand over."""
    if lang in _OPENED or not _claim(lang):
        return {}
    try:
        dictionary(lang)
    except ValueError:  # a language simplemma does not have
        return {}
    return take_opened()
