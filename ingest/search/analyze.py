"""Index-side text analysis: spaCy tokens, folded surface forms, lemmas, stems.

Every word of the corpus is analysed once at ingest: its folded surface form
(:func:`ingest.nlp.fold`), its lemma (simplemma through :func:`ingest.nlp.lemma`, with
the Snowball stem as the fallback for words the dictionary does not know) and its
stem. The results go into the ``lemma_forms`` table so that the query side never needs
the large lemma dictionaries: a query word seen in the corpus is looked up there, an
unseen one falls back to its stem (:mod:`ingest.search.query`).

The query side splits words with :data:`WORD` on folded text, which yields the same
pieces as the spaCy tokens split here.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

from lawgraph.ingest import nlp

#: A word piece: letters and digits, no underscore. Index and query sides share it.
WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Form:
    """The analysis of one folded surface form of a language."""

    surface: str
    lemma: str
    stem: str


@dataclass
class Analyzer:
    """Analyse the texts of one language, caching every word form it meets.

    Attributes:
        lang: the language code (``fi``, ``sv``, ``el``, ``et``).
        forms: every folded surface form seen so far, with its lemma and stem.
        freq: how often each folded surface form occurred.
    """

    lang: str
    forms: dict[str, Form] = field(default_factory=dict)
    freq: Counter = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._nlp = nlp.pipeline(self.lang, lemmas=False)
        self._low: dict[str, Form] = {}

    def form(self, low: str) -> Form:
        """Return the analysis of one lowercased (not yet folded) word piece."""
        got = self._low.get(low)
        if got is not None:
            return got
        surface = nlp.fold(low)
        got = self.forms.get(surface)
        if got is None:
            if any(ch.isdigit() for ch in low):
                got = Form(surface, surface, surface)
            else:
                got = Form(surface, nlp.lemma(self.lang, low), nlp.stem(self.lang, low))
            self.forms[surface] = got
        self._low[low] = got
        return got

    def analyse(self, text: str) -> list[Form]:
        """Return the analysed word pieces of ``text`` in order (spaCy tokenization)."""
        out: list[Form] = []
        if not text:
            return out
        for tok in self._nlp.tokenizer(text):
            if tok.is_space or tok.is_punct:
                continue
            for piece in WORD.findall(tok.lower_):
                f = self.form(piece)
                self.freq[f.surface] += 1
                out.append(f)
        return out


def query_words(text: str) -> list[str]:
    """Return the folded word pieces of a query (no spaCy: cheap at serve time); letters
    typed full-width (ＲＥＶＯＫＥ) are the plain ones."""
    return WORD.findall(nlp.fold(unicodedata.normalize("NFKC", text)))
