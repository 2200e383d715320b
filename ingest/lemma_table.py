"""The corpus's form -> lemma table: every dictionary answer asked once, kept beside the store.

simplemma stays the source of truth: :func:`lookup` asks it (through
:mod:`ingest.lemma_dict`, which opens each dictionary, the slow part of an ingest,
once) and remembers the answer. At the
end of an ingest the answers are written beside the store (``<store>.lemmas.json``),
keyed by the corpus hash and the simplemma and PyStemmer versions, so the next ingest
of the same corpus (a changed parser, ``--force``) finds every form there and never
loads a dictionary. A missing, damaged or stale file is ignored: the answers are then
asked of simplemma again.

One entry per (language, form): ``(known, lemma)`` where ``known`` is
``simplemma.is_known(form)`` and ``lemma`` is ``simplemma.lemmatize(form)`` for a
known form and ``simplemma.lemmatize(form, greedy=True)`` otherwise, exactly the calls
:func:`ingest.nlp.lemma` made before it had a table. The lemma is asked only when
someone wants it (:func:`lookup`): the Estonian OCR repair asks only whether some
twenty thousand candidate joins are words (:func:`known`), and a greedy lemma of an
unknown form costs a few dozen dictionary probes; such entries hold ``None``.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .lemma_dict import library_version

FORMAT = 2
Answer = tuple[bool, "str | None"]
_TABLE: dict[str, dict[str, Answer]] = {}
_NEW: dict[str, dict[str, Answer]] = {}
_added = 0


def _ask_known(lang: str, form: str) -> bool:
    from .lemma_dict import is_known

    return is_known(form, lang)


def _keep(lang: str, form: str, got: Answer) -> Answer:
    global _added
    _TABLE.setdefault(lang, {})[form] = got
    _NEW.setdefault(lang, {})[form] = got
    _added += 1
    return got


def known(lang: str, form: str) -> bool:
    """Return whether simplemma knows ``form``, asking it once (the lemma is not asked)."""
    got = _TABLE.get(lang, {}).get(form)
    if got is None:
        got = _keep(lang, form, (_ask_known(lang, form), None))
    return got[0]


def lookup(lang: str, form: str) -> tuple[bool, str]:
    """Return (known to simplemma, simplemma's lemma) for ``form``, asking simplemma once."""
    got = _TABLE.get(lang, {}).get(form)
    if got is None or got[1] is None:
        from .lemma_dict import lemmatize

        is_known = _ask_known(lang, form) if got is None else got[0]
        found = lemmatize(form, lang, greedy=not is_known)
        got = _keep(lang, form, (is_known, found))
    return got  # type: ignore[return-value]


def clear() -> None:
    """Forget every answer (the next :func:`lookup` asks simplemma)."""
    global _added
    _TABLE.clear()
    _NEW.clear()
    _added = 0


def take_new() -> dict[str, dict[str, Answer]]:
    """The answers asked of simplemma since the last call (a worker hands them back)."""
    new = {lang: dict(forms) for lang, forms in _NEW.items()}
    _NEW.clear()
    return new


def merge(answers: dict[str, dict[str, Answer]]) -> None:
    """Add answers another process asked of simplemma."""
    global _added
    for lang, forms in answers.items():
        table = _TABLE.setdefault(lang, {})
        for form, got in forms.items():
            held = table.get(form)
            if held is None or (held[1] is None and got[1] is not None):
                table[form] = got
                _added += 1


def size() -> int:
    """The number of (language, form) answers held."""
    return sum(len(t) for t in _TABLE.values())


def library_versions() -> str:
    """The versions of the libraries whose answers the table holds."""
    return ", ".join(f"{d} {library_version(d)}" for d in ("simplemma", "PyStemmer"))


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
            lang: {
                form: (bool(k), None if lem is None else str(lem))
                for form, (k, lem) in forms.items()
            }
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
        with os.fdopen(fd, "w", encoding="utf-8") as out:  # dumps: the C encoder, at once
            out.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
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
