"""Anchors that survive translation: the numbers a provision states and the laws it cites.

A provision's anchors are taken over its whole subtree (its own text and its
sub-provisions'): the numbers in its text (digits and number words of its language,
labels and page references left out) and the laws its citations point at.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from .. import languages, nlp
from .label import Corpus

# Cardinal number words by language (folded whole words; "one" is left out: it doubles
# as an article): from the language files (ingest/languages/).
NUMBER_WORDS = languages.NUMBER_WORDS
# Spans that carry numbers which are not the rule's numbers: page references
# ("(s. 83)"), labels ("12C1", "Ν12Γ1", "86 §") and footnote markers glued to words.
_NOT_NUMBERS = re.compile(
    r"\(\s*s\.\s*\d+\s*\)|\b[NΝ]?\d+\s*§+|\b[NΝ]?\d+[A-ZΑ-Ω]\w*|(?<=[^\W\d])\d+\b"
)
_DIGITS = re.compile(r"\d+")


@dataclass
class Fingerprint:
    """The anchors of one provision's subtree (numbers, cited laws), and the provisions
    its own text cites."""

    numbers: Counter = field(default_factory=Counter)
    cites_law: frozenset = frozenset()
    cited_ids: frozenset = frozenset()
    """The provisions the node's own title and text cite (resolved ids; the node's own
    citations, not its subtree's)."""


@lru_cache(maxsize=16)
def _number_words(table: tuple[tuple[int, str], ...]) -> re.Pattern[str] | None:
    """One pattern for a language's number words; the group name gives the number."""
    return re.compile("|".join(f"(?P<n{n}>{p})" for n, p in table)) if table else None


def numbers_in(lang: str, text: str) -> Counter:
    """The numbers a text states: digits and number words, not labels or page refs."""
    text = _NOT_NUMBERS.sub(" ", text)
    found = Counter(int(d) for d in _DIGITS.findall(text))
    spelled = _number_words(tuple(NUMBER_WORDS.get(lang, {}).items()))
    if spelled is not None:
        matches = [m.lastgroup for w in nlp.words(text) if (m := spelled.fullmatch(w))]
        found.update(int(group[1:]) for group in matches if group)
    return found


def law_of(label: str) -> str:
    """The law number of a label (``12C1(b)`` -> ``12``)."""
    m = re.match(r"\d+", label)
    return m.group(0) if m else label


def _cited(con: sqlite3.Connection) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
    """Cited target labels per source node (a reference to a law the book gives only by
    title, fi-2007 beyond Law 18, unresolved as ``no-text``, counts by its label too), and
    the resolved target ids per source node."""
    out: dict[str, list[str]] = {}
    ids: dict[str, set[str]] = {}
    for src, tgt, ref in con.execute(
        "SELECT source, target, ref FROM citations WHERE target IS NOT NULL OR reason = 'no-text'"
    ):
        label = tgt.split("/", 1)[1] if tgt else ref
        if label:
            out.setdefault(src, []).append(label)
        if tgt:
            ids.setdefault(src, set()).add(tgt)
    return out, ids


def _spans(con: sqlite3.Connection) -> dict[tuple[str, str], list[tuple[int, int]]]:
    out: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for src, field_, start, end in con.execute("SELECT source, field, start, end FROM citations"):
        out.setdefault((src, field_), []).append((start, end))
    return out


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def fingerprints(con: sqlite3.Connection, corpus: Corpus) -> dict[str, Fingerprint]:
    """The anchors of every provision of the corpus (over its subtree)."""
    (cited, cited_ids), spans = _cited(con), _spans(con)
    own: dict[str, Fingerprint] = {}
    for p in corpus.provs.values():
        lang = corpus.docs[p.doc].language
        text = _blank(p.text, spans.get((p.id, "text"), []))
        title = _blank(p.title, spans.get((p.id, "title"), []))
        labels = cited.get(p.id, [])
        own[p.id] = Fingerprint(
            numbers=numbers_in(lang, f"{title} {text}"),
            cites_law=frozenset(law_of(t) for t in labels if t[:1].isdigit()),
            cited_ids=frozenset(cited_ids.get(p.id, ())),
        )
    out: dict[str, Fingerprint] = {}
    for p in corpus.provs.values():
        fp = Fingerprint(cited_ids=own[p.id].cited_ids)
        for d in corpus.descendants(p.id):
            fp.numbers += own[d].numbers
            fp.cites_law |= own[d].cites_law
        out[p.id] = fp
    return out
