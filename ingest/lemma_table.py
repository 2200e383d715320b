"""The corpus's form -> lemma table: every dictionary answer asked once, kept beside the store.

simplemma stays the source of truth: :func:`lookup` asks it (loading a language's
dictionary, the slow part of an ingest, on first use) and remembers the answer. At the
end of an ingest the answers are written beside the store (``<store>.lemmas.json``),
keyed by the corpus hash and the simplemma and PyStemmer versions, so the next ingest
of the same corpus (a changed parser, ``--force``) finds every form there and never
loads a dictionary. A missing, damaged or stale file is ignored: the answers are then
asked of simplemma again.

One entry per (language, form): ``(known, lemma)`` where ``known`` is
``simplemma.is_known(form)`` and ``lemma`` is ``simplemma.lemmatize(form)`` for a
known form and ``simplemma.lemmatize(form, greedy=True)`` otherwise, exactly the calls
:func:`ingest.nlp.lemma` made before it had a table.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from importlib import metadata
from pathlib import Path

FORMAT = 1
_TABLE: dict[str, dict[str, tuple[bool, str]]] = {}
_NEW: dict[str, dict[str, tuple[bool, str]]] = {}
_added = 0


def lookup(lang: str, form: str) -> tuple[bool, str]:
    """Return (known to simplemma, simplemma's lemma) for ``form``, asking simplemma once."""
    table = _TABLE.setdefault(lang, {})
    got = table.get(form)
    if got is None:
        global _added
        import simplemma

        known = simplemma.is_known(form, lang=lang)
        found = simplemma.lemmatize(form, lang=lang, greedy=not known)
        got = table[form] = (known, found)
        _NEW.setdefault(lang, {})[form] = got
        _added += 1
    return got


def clear() -> None:
    """Forget every answer (the next :func:`lookup` asks simplemma)."""
    global _added
    _TABLE.clear()
    _NEW.clear()
    _added = 0


def take_new() -> dict[str, dict[str, tuple[bool, str]]]:
    """The answers asked of simplemma since the last call (a worker hands them back)."""
    new = {lang: dict(forms) for lang, forms in _NEW.items()}
    _NEW.clear()
    return new


def merge(answers: dict[str, dict[str, tuple[bool, str]]]) -> None:
    """Add answers another process asked of simplemma."""
    global _added
    for lang, forms in answers.items():
        table = _TABLE.setdefault(lang, {})
        for form, got in forms.items():
            if form not in table:
                table[form] = got
                _added += 1


def size() -> int:
    """The number of (language, form) answers held."""
    return sum(len(t) for t in _TABLE.values())


def library_versions() -> str:
    """The versions of the libraries whose answers the table holds."""
    return ", ".join(f"{d} {_version(d)}" for d in ("simplemma", "PyStemmer"))


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "absent"


def cache_key(corpus_hash: str) -> str:
    """The key a cache file must carry to be used for this corpus and these libraries."""
    return hashlib.sha256(f"{FORMAT}\n{corpus_hash}\n{library_versions()}".encode()).hexdigest()


def cache_path(db: Path) -> Path:
    """Where the table of the store ``db`` is kept."""
    db = Path(db)
    return db.with_name(db.name + ".lemmas.json")


def load(path: Path, key: str) -> int:
    """Add the answers of the cache file ``path`` if it carries ``key``.

    Returns:
        The number of answers read; 0 when the file is missing, damaged or stale.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if data.get("key") != key:
            return 0
        read = {
            lang: {form: (bool(k), str(lem)) for form, (k, lem) in forms.items()}
            for lang, forms in data["forms"].items()
        }
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return 0
    for lang, forms in read.items():
        _TABLE.setdefault(lang, {}).update(forms)
    return sum(len(f) for f in read.values())


def save(path: Path, key: str) -> bool:
    """Write the table to ``path`` (temp file, then rename) unless it is already there.

    Returns:
        True if the file was written.
    """
    global _added
    path = Path(path)
    if not _added and _current_key(path) == key:
        return False
    data = {
        "key": key,
        "libraries": library_versions(),
        "forms": {lang: {f: list(v) for f, v in sorted(t.items())} for lang, t in _TABLE.items()},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".lawgraph-", suffix=".lemmas.tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _added = 0
    return True


def _current_key(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            head = f.read(200)
    except OSError:
        return None
    start = head.find('"key":"')
    return head[start + 7 : start + 71] if start >= 0 else None
