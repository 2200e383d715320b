"""simplemma's dictionaries, each opened once per ingest by whichever process is free.

With the dictionary index built (:func:`build_index`, which ``make install`` runs once per
installation: ``lawgraph dictionaries``), opening costs a few tens of milliseconds (the
file's hash checked, the trie mapped) instead of seconds: the index holds each of
simplemma's dictionaries as a MARISA trie (simplemma's own trie backend,
``TrieWrapDict``, built from its shipped data), mapped from disk, so an ingest reads only
the pages of the forms the corpus asks. It lives in the Python environment beside the
installed libraries, one folder per simplemma and marisa-trie version, and each file is
checked against the size and hash recorded when it was built; a missing, stale or
damaged index is not used, and the dictionary is opened as below.

Without the index, opening a dictionary is the slow part of asking simplemma (it reads
the compressed stream of every form of the language). simplemma's low-memory backend
(``StreamMap``) opens one in about half the time its default backend takes and answers
the same: it keeps the stream and an index of where each block of records starts, and
decodes one block per lookup. A ``StreamMap`` is plain data, so a worker process can open
it and hand it to the parent (about a tenth of the time opening takes): while the books
are parsed, the worker processes open the dictionaries the corpus-wide stages will need
(:func:`open_in_worker`), and every dictionary a parser opened comes back with its book
(:func:`take_opened`). Either way the answers are simplemma's own: :func:`is_known` and
:func:`lemmatize` are ``simplemma.is_known`` and ``simplemma.lemmatize`` through a
dictionary factory holding these maps.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

_OPENED: dict[str, Mapping[str, str]] = {}
KEPT_ANSWERS = 500_000
"""Dictionary answers kept per language and process (an ingest asks about 85,000)."""
_HANDED: set[str] = set()
_MAPPED: set[str] = set()
"""The languages this process mapped from the index."""
_CLAIMS: tuple[tuple[str, ...], object] | None = None


def dictionary(lang: str) -> Mapping[str, str]:
    """simplemma's dictionary of ``lang``, opened on first use in this process.

    Raises:
        ValueError: for a language simplemma does not have.
    """
    got = _OPENED.get(lang)
    if got is None:
        got = _indexed(lang)
        if got is not None:
            _HANDED.add(lang)  # every process maps the index itself: nothing to hand over
            _MAPPED.add(lang)
            _OPENED[lang] = got
            return got
        _claim(lang)
        got = _OPENED[lang] = _open_stream(lang)
    return got


def _open_stream(lang: str) -> Mapping[str, str]:
    """simplemma's low-memory backend for ``lang`` (its compressed stream)."""
    from simplemma.strategies.dictionaries.stream_dictionary_factory import StreamMap

    return StreamMap(lang)


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


def close_all() -> None:
    """Forget every dictionary this process opened (the next lookup opens it again,
    from the index if it can be used)."""
    _OPENED.clear()
    _HANDED.clear()
    _MAPPED.clear()


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


def open_in_worker(lang: str) -> dict[str, Mapping[str, str]] | None:
    """In a worker: open ``lang`` unless some process has claimed it.

    Returns:
        What to hand over (nothing for a dictionary mapped from the index, even one a
        parser in this process mapped before), or None if this process did not open it
        (claimed elsewhere, opened from the stream already and handed over with a book,
        or a language simplemma does not have).
    """
    if lang in _OPENED and lang not in _MAPPED or not _claim(lang):
        return None
    if lang in _MAPPED:
        return {}
    try:
        dictionary(lang)
    except ValueError:  # a language simplemma does not have
        return None
    return take_opened()


# -- the dictionary index ---------------------------------------------------------------

INDEX_ENV = "LAWGRAPH_DICTIONARY_INDEX"
"""Environment variable naming the folder of the dictionary index (default: inside the
Python environment, :func:`index_dir`)."""


def index_dir() -> Path:
    """The folder of the dictionary index for the installed simplemma and marisa-trie:
    ``$LAWGRAPH_DICTIONARY_INDEX/<versions>`` if set, else
    ``<sys.prefix>/share/lawgraph/<versions>`` (the virtual environment of ``make``)."""
    versions = (
        f"simplemma-{library_version('simplemma')}-marisa-trie-{library_version('marisa-trie')}"
    )
    base = os.environ.get(INDEX_ENV, "").strip()
    root = Path(base) if base else Path(sys.prefix) / "share" / "lawgraph"
    return root / versions


def library_version(dist: str) -> str:
    """The installed version of the distribution ``dist`` (``absent`` if it is not)."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "absent"


def _index_files(lang: str) -> tuple[Path, Path]:
    folder = index_dir()
    return folder / f"{lang}.dic", folder / f"{lang}.json"


def _digest(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def index_status(lang: str) -> str:
    """``ok`` if the index of ``lang`` can be used; else why not (``missing``,
    ``unreadable``, ``damaged``, ``stale``: built from other data than the installed
    simplemma's, or ``no marisa-trie``)."""
    trie, record = _index_files(lang)
    try:
        import marisa_trie  # noqa: F401
    except ImportError:
        return "no marisa-trie"
    try:
        meta = json.loads(record.read_text(encoding="utf-8"))
        if not trie.is_file():
            return "missing"
        if meta.get("source") != _source_stamp(lang):
            return "stale"
        if trie.stat().st_size != meta["bytes"] or _digest(trie) != meta["sha256"]:
            return "damaged"
    except FileNotFoundError:
        return "missing"
    except PermissionError:
        return "unreadable"
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return "damaged"
    return "ok"


def _source_stamp(lang: str) -> list[int] | None:
    """The size and modification time of simplemma's shipped data for ``lang`` (what
    the index was built from), or None if it has none."""
    from simplemma.strategies.dictionaries.dictionary_factory import DATA_FOLDER

    try:
        st = (DATA_FOLDER / f"{lang}.plzma").stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _indexed(lang: str) -> Mapping[str, str] | None:
    """The index of ``lang`` mapped from disk, or None if it cannot be used."""
    if index_status(lang) != "ok":
        return None
    from marisa_trie import BytesTrie
    from simplemma.strategies.dictionaries.trie_dictionary_factory import TrieWrapDict

    class Indexed(TrieWrapDict):
        """simplemma's view of a trie, except for a key holding a NUL character: the
        trie cuts such a key short (or fails on it) where the stream has no such key."""

        __slots__ = ()

        def _lookup(self, key: str) -> str | None:
            return None if "\x00" in key else super()._lookup(key)

    trie, record = _index_files(lang)
    try:
        mapped = BytesTrie().mmap(str(trie))
        if len(mapped) != json.loads(record.read_text(encoding="utf-8"))["records"]:
            return None
    except Exception:  # noqa: BLE001 - an index that does not open is not used
        return None
    return Indexed(mapped)


def build_index(
    langs: Iterable[str], force: bool = False, report: Callable[[str, str], None] | None = None
) -> dict[str, str]:
    """Build the index of each of ``langs`` that simplemma has and that is not already
    usable (all of them with ``force``), from simplemma's shipped data, with simplemma's
    trie backend's own keys and values. Each file is written to a temporary name and
    renamed, so a reader or a second builder never sees half of one.

    Args:
        report: called with (language, what happened) as each is done.

    Returns:
        ``{lang: "built" | "present" | "unknown language"}``.

    Raises:
        OSError: if the index folder cannot be written.
        ImportError: if marisa-trie is not installed.
    """
    from marisa_trie import BytesTrie
    from simplemma.strategies.dictionaries.dictionary_factory import (
        SUPPORTED_LANGUAGES,
        _load_dictionary_from_disk,
    )

    done: dict[str, str] = {}
    for lang in langs:
        if lang not in SUPPORTED_LANGUAGES:
            done[lang] = "unknown language"
        elif not force and index_status(lang) == "ok":
            done[lang] = "present"
        else:
            path, record = _index_files(lang)
            path.parent.mkdir(parents=True, exist_ok=True)
            source = _source_stamp(lang)
            raw = _load_dictionary_from_disk(lang)
            trie = BytesTrie((k.decode(), v) for k, v in raw.items())
            tmp = _temp_name(path)
            try:
                try:
                    trie.save(str(tmp))
                except RuntimeError as exc:  # marisa's own I/O errors (a full disk)
                    raise OSError(f"{tmp}: {exc}") from exc
                meta = {
                    "records": len(raw),
                    "bytes": tmp.stat().st_size,
                    "sha256": _digest(tmp),
                    "source": source,
                }
                _write_atomic(record, json.dumps(meta))
                os.replace(tmp, path)
            finally:
                tmp.unlink(missing_ok=True)
            done[lang] = "built"
        if report is not None:
            report(lang, done[lang])
    return done


def _temp_name(path: Path) -> Path:
    """A new empty file beside ``path``, readable by every user as a file the process
    creates is (``mkstemp`` makes it private, and the rename would keep that)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".tmp", dir=path.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    return Path(tmp)


def _write_atomic(path: Path, text: str) -> None:
    tmp = _temp_name(path)
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
