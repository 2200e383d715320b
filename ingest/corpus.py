"""Read ``corpus/manifest.toml`` and the raw books it names."""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import replace
from pathlib import Path

from .model import Document

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent / "corpus"
REQUIRED = ("id", "language", "edition", "title", "source", "family")


class CorpusError(Exception):
    """A corpus file or the manifest is missing, unreadable or empty."""


def read_toml(path: Path, what: str, error: type[CorpusError] = CorpusError) -> dict:
    """Parse a curated TOML file of the corpus folder.

    Raises:
        CorpusError: (or the given subclass) naming the file, if it is missing, not UTF-8
            or not valid TOML.
    """
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise error(f"{path}: {what} not found") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise error(f"{path}: malformed {what}: {exc}") from exc


def load_manifest(corpus_dir: Path = DEFAULT_CORPUS) -> list[Document]:
    """Return the documents the manifest describes, in manifest order.

    Raises:
        CorpusError: if the manifest is missing, malformed or incomplete.
    """
    path = Path(corpus_dir) / "manifest.toml"
    data = read_toml(path, "manifest")
    _register_corpus(Path(corpus_dir))
    docs = []
    seen = set()
    for i, entry in enumerate(data.get("document", []), start=1):
        missing = [k for k in REQUIRED if not entry.get(k)]
        if missing:
            raise CorpusError(f"{path}: document #{i} lacks {', '.join(missing)}")
        if entry["id"] in seen:
            raise CorpusError(f"{path}: duplicate document id {entry['id']!r}")
        seen.add(entry["id"])
        fields = {k: str(entry[k]) for k in (*REQUIRED, "completeness") if k in entry}
        docs.append(Document(**fields))
    if not docs:
        raise CorpusError(f"{path}: no [[document]] entries")
    return docs


def _register_corpus(corpus_dir: Path) -> None:
    """Make the corpus's own parser settings and language files (if any) known."""
    from . import languages
    from .parse.framework import add_settings_dir

    try:
        languages.add_dir(corpus_dir)
    except languages.LanguageError as exc:
        raise CorpusError(str(exc)) from exc
    add_settings_dir(corpus_dir)


def read_source(doc: Document, corpus_dir: Path = DEFAULT_CORPUS) -> tuple[Document, str]:
    """Read a document's raw text and return it with the document's sha256 filled in.

    Raises:
        CorpusError: naming the file, if it is missing, unreadable, not UTF-8 or empty.
    """
    path = Path(corpus_dir) / doc.source
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"{doc.id}: cannot read {path}: {exc.strerror or exc}") from exc
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{doc.id}: {path} is not UTF-8 text ({exc.reason})") from exc
    if not raw.strip():
        raise CorpusError(f"{doc.id}: {path} is empty")
    return replace(doc, sha256=hashlib.sha256(data).hexdigest()), raw
