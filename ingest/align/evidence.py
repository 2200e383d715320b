"""Content fingerprints that survive translation, and their comparison.

A provision's fingerprint is taken over its whole subtree (its own text and its
sub-provisions'): the provisions it cites, the numbers in its text (digits and
number words of its language, labels and page references left out), its shape
(children and items), its share of its law's text, the glossary concepts found in
it and, for two documents in the same language, its word stems. :func:`compare`
scores two fingerprints signal by signal and combines them into one score.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass, field

from .. import nlp
from ..store import has_table
from .label import Corpus

# Cardinal number words by language (folded forms, the inflections the books use).
# "One" is left out: it doubles as an article in every language here.
NUMBER_WORDS: dict[str, dict[int, tuple[str, ...]]] = {
    "fi": {
        2: ("kaksi", "kahden", "kahta", "kahdella", "kahdelle", "kahdesta", "kahteen",
            "kahdessa"),
        3: ("kolme", "kolmen", "kolmea", "kolmella", "kolmelle", "kolmesta", "kolmeen"),
        4: ("neljä", "neljän", "neljää", "neljällä", "neljälle", "neljästä"),
        5: ("viisi", "viiden", "viittä"),
        6: ("kuusi", "kuuden", "kuutta"),
        7: ("seitsemän", "seitsemää"),
        8: ("kahdeksan", "kahdeksaa"),
        9: ("yhdeksän", "yhdeksää"),
        10: ("kymmenen", "kymmentä"),
        12: ("kaksitoista", "kahdentoista"),
        13: ("kolmetoista", "kolmentoista"),
    },
    "sv": {
        2: ("två",), 3: ("tre",), 4: ("fyra",), 5: ("fem",), 6: ("sex",), 7: ("sju",),
        8: ("åtta",), 9: ("nio",), 10: ("tio",), 11: ("elva",), 12: ("tolv",),
        13: ("tretton",),
    },
    "el": {
        2: ("δυο",), 3: ("τρεισ", "τρια", "τριων"), 4: ("τεσσερισ", "τεσσερα", "τεσσαρων"),
        5: ("πεντε",), 6: ("εξι",), 7: ("επτα", "εφτα"), 8: ("οκτω", "οχτω"),
        9: ("εννεα", "εννια"), 10: ("δεκα",), 12: ("δωδεκα",),
        13: ("δεκατρια", "δεκατρεισ", "δεκατριων"),
    },
}  # fmt: skip
_NUMBER_WORD = {
    lang: {w: n for n, forms in table.items() for w in forms}
    for lang, table in NUMBER_WORDS.items()
}
# Spans that carry numbers which are not the rule's numbers: page references
# ("(s. 83)"), labels ("12C1", "Ν12Γ1", "86 §") and footnote markers glued to words.
_NOT_NUMBERS = re.compile(
    r"\(\s*s\.\s*\d+\s*\)|\b[NΝ]?\d+\s*§+|\b[NΝ]?\d+[A-ZΑ-Ω]\w*|(?<=[^\W\d])\d+\b"
)
_DIGITS = re.compile(r"\d+")

WEIGHTS = {"bridge": 3.0, "lexical": 3.0, "cites": 2.0, "cited_by": 2.0, "concepts": 2.0,
           "numbers": 1.5, "share": 1.0, "shape": 1.0}  # fmt: skip
"""How much each signal counts in the combined content score."""
AGREE, DISAGREE = 0.6, 0.3
LEXICAL_FULL = 0.5
"""Stem cosine that counts as full lexical agreement: two editions reword a rule, so
true counterparts score 0.4-0.8 and unrelated provisions of one law 0.1-0.2."""


@dataclass
class Fingerprint:
    """What survives translation of one provision's subtree."""

    numbers: Counter = field(default_factory=Counter)
    cites_law: frozenset = frozenset()
    cites_sec: frozenset = frozenset()
    cited_by: frozenset = frozenset()
    children: int = 0
    items: int = 0
    layout: tuple = ()
    share: float | None = None
    concepts: Counter = field(default_factory=Counter)
    lexical: dict[str, float] | None = None
    has_text: bool = True


def numbers_in(lang: str, text: str) -> Counter:
    """The numbers a text states: digits and number words, not labels or page refs."""
    text = _NOT_NUMBERS.sub(" ", text)
    found = Counter(int(d) for d in _DIGITS.findall(text))
    table = _NUMBER_WORD.get(lang, {})
    found.update(table[w] for w in nlp.words(text) if w in table)
    return found


def section_of(label: str) -> str:
    """The law-and-section prefix of a label (``12C1(b)`` -> ``12C``)."""
    m = re.match(r"\d+[A-Z]?", label)
    return m.group(0) if m else label


def law_of(label: str) -> str:
    """The law number of a label (``12C1(b)`` -> ``12``)."""
    m = re.match(r"\d+", label)
    return m.group(0) if m else label


def _cited(con: sqlite3.Connection) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Cited target labels per source node, and citing source labels per target node."""
    out: dict[str, list[str]] = {}
    back: dict[str, list[str]] = {}
    for src, tgt in con.execute("SELECT source, target FROM citations WHERE target IS NOT NULL"):
        out.setdefault(src, []).append(tgt.split("/", 1)[1])
        back.setdefault(tgt, []).append(src.split("/", 1)[1])
    return out, back


def _spans(con: sqlite3.Connection) -> dict[tuple[str, str], list[tuple[int, int]]]:
    out: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for src, field_, start, end in con.execute("SELECT source, field, start, end FROM citations"):
        out.setdefault((src, field_), []).append((start, end))
    return out


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def concept_map(con: sqlite3.Connection) -> dict[str, Counter]:
    """Glossary concepts found in each node (empty if the glossary stage left none)."""
    if not has_table(con, "concept_hits"):
        return {}
    out: dict[str, Counter] = {}
    for concept, node in con.execute("SELECT concept, node FROM concept_hits"):
        out.setdefault(node, Counter())[concept] += 1
    return out


def fingerprints(con: sqlite3.Connection, corpus: Corpus) -> dict[str, Fingerprint]:
    """Compute the fingerprint of every provision of the corpus."""
    (cited, citing), spans, concepts = _cited(con), _spans(con), concept_map(con)
    own: dict[str, Fingerprint] = {}
    for p in corpus.provs.values():
        lang = corpus.docs[p.doc].language
        text = _blank(p.text, spans.get((p.id, "text"), []))
        title = _blank(p.title, spans.get((p.id, "title"), []))
        targets = cited.get(p.id, [])
        own[p.id] = Fingerprint(
            numbers=numbers_in(lang, f"{title} {text}"),
            cites_law=frozenset(law_of(t) for t in targets if t[:1].isdigit()),
            cites_sec=frozenset(section_of(t) for t in targets if t[:1].isdigit()),
            cited_by=frozenset(section_of(t) for t in citing.get(p.id, []) if t[:1].isdigit()),
            concepts=concepts.get(p.id, Counter()),
        )
    out: dict[str, Fingerprint] = {}
    for p in corpus.provs.values():
        fp = Fingerprint(children=len(p.children), has_text=p.has_text)
        fp.layout = tuple(len(corpus.descendants(c)) - 1 for c in p.children)
        law_id = f"{p.doc}/{p.law}"
        for d in corpus.descendants(p.id):
            o = own[d]
            fp.numbers += o.numbers
            fp.cites_law |= o.cites_law
            fp.cites_sec |= o.cites_sec
            fp.cited_by |= o.cited_by
            fp.concepts += o.concepts
            if d != p.id and corpus.provs[d].kind in ("item", "subitem"):
                fp.items += 1
        if p.kind not in ("law", "definition") and law_id in corpus.provs:
            total = len(corpus.subtree_text(law_id))
            fp.share = len(corpus.subtree_text(p.id)) / total if total else None
        out[p.id] = fp
    _add_lexical(corpus, out)
    return out


def _add_lexical(corpus: Corpus, fps: dict[str, Fingerprint]) -> None:
    """TF-IDF vectors of Snowball stems for documents that share a language.

    Stems rather than dictionary lemmas: they are cheap and, within one language,
    conflate the same inflections that matter for comparing two editions.
    """
    langs = Counter(corpus.docs[d].language for d in corpus.law_docs())
    docs = [d for d in corpus.law_docs() if langs[corpus.docs[d].language] > 1]
    for lang in {corpus.docs[d].language for d in docs}:
        ids = [p.id for p in corpus.provs.values() if p.doc in docs and
               corpus.docs[p.doc].language == lang]  # fmt: skip
        own, stems = {}, {}
        for nid in ids:
            p = corpus.provs[nid]
            bag = Counter()
            for w in nlp.words(f"{p.title} {p.text}"):
                if w.isdigit():
                    continue
                if w not in stems:
                    stems[w] = nlp.stem(lang, w)
                bag[stems[w]] += 1
            own[nid] = bag
        bags = {}
        for nid in ids:
            bag = Counter()
            for d in corpus.descendants(nid):
                bag.update(own.get(d, {}))
            bags[nid] = bag
        df = Counter(t for bag in bags.values() for t in bag)
        n = len(bags)
        for nid, bag in bags.items():
            vec = {t: (1 + math.log(c)) * math.log(1 + n / df[t]) for t, c in bag.items()}
            norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
            fps[nid].lexical = {t: v / norm for t, v in vec.items()}


def _dice(a, b) -> float:
    if isinstance(a, Counter):
        inter = sum((a & b).values())
        return 2 * inter / (sum(a.values()) + sum(b.values()))
    return 2 * len(a & b) / (len(a) + len(b))


def _cosine(a: Counter, b: Counter, idf: dict[str, float]) -> float:
    dot = sum(a[k] * b[k] * idf.get(k, 1.0) ** 2 for k in a.keys() & b.keys())
    na = math.sqrt(sum((v * idf.get(k, 1.0)) ** 2 for k, v in a.items()))
    nb = math.sqrt(sum((v * idf.get(k, 1.0)) ** 2 for k, v in b.items()))
    return dot / (na * nb) if na and nb else 0.0


def compare(
    fa: Fingerprint,
    fb: Fingerprint,
    remap: dict[str, str] | None = None,
    concept_idf: dict[str, float] | None = None,
    extra: dict[str, float] | None = None,
    laws: frozenset[str] | None = None,
) -> dict:
    """Score two fingerprints.

    Args:
        fa: fingerprint of the provision in the earlier document.
        fb: fingerprint of the provision in the later document.
        remap: section labels of the earlier document mapped to the later one's
            (renumbered sections), applied to the cited targets of ``fa``.
        concept_idf: inverse document frequency of glossary concepts.
        extra: signals found elsewhere (``bridge``: agreement of the two provisions'
            counterparts in a third document).
        laws: the laws both documents have text for; citations from or to other laws
            are left out (a truncated book cannot cite or be cited by them).

    Returns:
        ``{"score": 0..1 or None, "weight": evidence weight, "signals": {name: 0..1},
        "agreed": [...], "disagreed": [...]}``; ``score`` is None without evidence.
    """
    signals: dict[str, float] = dict(extra or {})
    if not (fa.has_text and fb.has_text):
        return {"score": None, "weight": 0.0, "signals": {}, "agreed": [], "disagreed": []}
    if fa.lexical is not None and fb.lexical is not None:
        cosine = sum(v * fb.lexical.get(t, 0.0) for t, v in fa.lexical.items())
        signals["lexical"] = min(1.0, cosine / LEXICAL_FULL)
    remap = remap or {}

    def keep(labels):
        return frozenset(x for x in labels if laws is None or law_of(x) in laws)

    sa, sb = keep(remap.get(x, x) for x in fa.cites_sec), keep(fb.cites_sec)
    if sa and sb:
        la, lb = frozenset(law_of(x) for x in sa), frozenset(law_of(x) for x in sb)
        signals["cites"] = (_dice(la, lb) + _dice(sa, sb)) / 2
    ba, bb = keep(remap.get(x, x) for x in fa.cited_by), keep(fb.cited_by)
    if ba and bb:
        signals["cited_by"] = _dice(ba, bb)
    if fa.concepts or fb.concepts:
        signals["concepts"] = _cosine(fa.concepts, fb.concepts, concept_idf or {})
    if fa.numbers and fb.numbers:
        signals["numbers"] = _dice(fa.numbers, fb.numbers)
    if fa.share is not None and fb.share is not None and max(fa.share, fb.share) > 0:
        signals["share"] = min(fa.share, fb.share) / max(fa.share, fb.share)
    if fa.children or fb.children:
        signals["shape"] = _shape(fa, fb)
    weight = sum(WEIGHTS[k] for k in signals)
    score = sum(WEIGHTS[k] * v for k, v in signals.items()) / weight if weight else None
    return {
        "score": None if score is None else round(score, 4),
        "weight": weight,
        "signals": {k: round(v, 3) for k, v in signals.items()},
        "agreed": sorted(k for k, v in signals.items() if v >= AGREE),
        "disagreed": sorted(k for k, v in signals.items() if v < DISAGREE),
    }


def _shape(fa: Fingerprint, fb: Fingerprint) -> float:
    """Agreement of children counts and of the number of items under each child."""
    n = max(len(fa.layout), len(fb.layout))
    la = fa.layout + (0,) * (n - len(fa.layout))
    lb = fb.layout + (0,) * (n - len(fb.layout))
    diff = abs(fa.children - fb.children) + sum(abs(x - y) for x, y in zip(la, lb, strict=True))
    total = max(fa.children, fb.children) + max(sum(la), sum(lb))
    return 1 - min(1.0, diff / total) if total else 1.0


def concept_idf(fps: dict[str, Fingerprint]) -> dict[str, float]:
    """Inverse document frequency of each concept over the provisions that have any."""
    df = Counter(c for fp in fps.values() for c in fp.concepts)
    n = sum(1 for fp in fps.values() if fp.concepts) or 1
    return {c: math.log(1 + n / k) for c, k in df.items()}
