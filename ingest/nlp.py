"""The language pipeline: spaCy blank pipelines, accent folding, lemmas and stems.

One place decides how text in each language becomes comparable tokens, so the
glossary tagger, the alignment and the search index all agree:

* :func:`fold` lowercases and removes Greek tonos and dialytika (and turns final
  sigma into sigma), so ``ΡΕΝΌΝΣ``, ``ρενόνς`` and ``ρενονς`` compare equal. Finnish,
  Swedish and Estonian letters (ä ö å õ ü) are letters of their own and stay.
* :func:`pipeline` gives a cached blank spaCy pipeline with abbreviation fixes
  (Greek ``παρ.``, Estonian ``nt.``, Finnish ``ks.`` …), a sentencizer that knows the
  Greek question mark ``;`` and a ``lawgraph_lemmas`` component that fills
  ``token.lemma_`` with folded lemmas.
* :func:`lemma` uses simplemma's dictionaries (ingest time only: they are large; every
  answer is kept in the corpus's form table, :mod:`ingest.lemma_table`) and falls back
  to :func:`stem` (Snowball through PyStemmer, small and fast) for words
  the dictionary does not know.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from . import languages, lemma_table

if TYPE_CHECKING:  # spaCy is imported when a pipeline is first made: serving never needs it
    from spacy.language import Language
    from spacy.tokenizer import Tokenizer
    from spacy.tokens import Doc

# Stemmers, abbreviations that end in a full stop but do not end a sentence, and extra
# sentence ends: from the language files (ingest/languages/), live views of the registry.
LANGS = languages.LANGS
STEMMER_NAMES = languages.STEMMERS
ABBREVIATIONS = languages.ABBREVIATIONS
SENTENCE_ENDS = languages.SENTENCE_ENDS

_WORD = re.compile(r"\w+(?:[-'’]\w+)*")


_GREEK = re.compile("[\u0370-\u03ff\u1f00-\u1fff]")


_SHORT = 32
"""Words and short phrases up to this many characters are folded once per process and
remembered (the stages fold the same words again and again); of longer texts, the latest
:data:`_LONG_KEPT` (a provision's sentence is a side of a pair with every other book)."""
_LONG_KEPT = 1 << 14


def fold(text: str) -> str:
    """Lowercase ``text`` and strip Greek accents; other letters are kept as they are.

    >>> fold("ΡΕΝΌΝΣ Αϋπνία")
    'ρενονσ αυπνια'
    """
    return _fold_short(text) if len(text) <= _SHORT else _fold_long(text)


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFC", text).lower()
    if not _GREEK.search(text):
        return text
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch) and out and _is_greek(out[-1]):
            continue
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out)).replace("ς", "σ")


_fold_short = lru_cache(maxsize=1 << 15)(_fold)
_fold_long = lru_cache(maxsize=_LONG_KEPT)(_fold)


def _is_greek(ch: str) -> bool:
    return "\u0370" <= ch <= "\u03ff" or "\u1f00" <= ch <= "\u1fff"


def words(text: str) -> list[str]:
    """Return the folded word tokens of ``text`` (a fast regex split, no spaCy)."""
    return _WORD.findall(fold(text))


def shown_words(text: str) -> list[str]:
    """The word tokens of ``text`` lowercased but not folded, as a reader writes them
    (Greek keeps its accents and final sigma: "βαλές", not "βαλεσ"); one per token of
    :func:`words` when both split alike, which :func:`fold` keeps but a stray combining
    mark may not (callers compare the lengths)."""
    return _WORD.findall(unicodedata.normalize("NFC", text).lower())


@lru_cache(maxsize=8)
def stemmer(lang: str):
    """Return the cached Snowball stemmer for ``lang``."""
    import Stemmer

    return Stemmer.Stemmer(STEMMER_NAMES[lang])


def stem(lang: str, word: str) -> str:
    """Return the Snowball stem of the folded ``word``."""
    folded = fold(word)
    if lang not in STEMMER_NAMES:
        return folded
    return fold(stemmer(lang).stemWord(folded))


@lru_cache(maxsize=200_000)
def lemma(lang: str, word: str) -> str:
    """Return the folded dictionary lemma of ``word``, or its stem if it is unknown.

    Uses simplemma through the corpus's form table (:mod:`ingest.lemma_table`), which
    loads a large dictionary only for a form it has not seen: ingest time only.
    """
    low = unicodedata.normalize("NFC", word).lower()
    if lang not in STEMMER_NAMES or not any(ch.isalpha() for ch in low):
        return fold(low)
    known, found = lemma_table.lookup(lang, low)
    if known or found != low:
        return fold(found)
    return stem(lang, low)


def clear_caches() -> None:
    """Forget every remembered lemma (the form table and the per-word caches)."""
    lemma_table.clear()
    lemma.cache_clear()


def _make_lemmas(nlp: Language, name: str):
    """The ``lawgraph_lemmas`` pipeline component (registered by :func:`pipeline`)."""
    lang = nlp.lang

    def set_lemmas(doc: Doc) -> Doc:
        for tok in doc:
            tok.lemma_ = lemma(lang, tok.text) if tok.is_alpha else fold(tok.text)
        return doc

    return set_lemmas


@lru_cache(maxsize=8)
def pipeline(lang: str, lemmas: bool = True) -> Language:
    """Return the cached blank spaCy pipeline for ``lang``.

    It has abbreviation special cases, a sentencizer (``;`` ends a Greek question)
    and, if ``lemmas``, the ``lawgraph_lemmas`` component.

    Raises:
        ValueError: for a language that is not one of :data:`LANGS`.
    """
    if not languages.is_known(lang):
        known = ", ".join(languages.codes())
        raise ValueError(f"unsupported language {lang!r}; expected one of {known}")
    from spacy.language import Language
    from spacy.symbols import ORTH
    from spacy.util import get_lang_class

    if not Language.has_factory("lawgraph_lemmas"):
        Language.factory("lawgraph_lemmas", default_config={})(_make_lemmas)
    # the language's class as spacy.blank makes it, without resolving and validating the
    # whole default config (a third of the time, and every ingest makes four)
    nlp = get_lang_class(lang)()
    _keep_read_attributes(nlp)
    tokenizer = cast("Tokenizer", nlp.tokenizer)  # a blank pipeline's is always a Tokenizer
    if lang == "el":  # spaCy keeps "12." as one Greek ordinal; in the laws it ends a sentence
        from spacy.util import compile_suffix_regex

        suffixes = [s for s in nlp.Defaults.suffixes or () if s != r"^([0-9]){1,2}\."]
        tokenizer.suffix_search = compile_suffix_regex([*suffixes, r"(?<=[0-9])\."]).search
    for abbr in ABBREVIATIONS.get(lang, ()):
        tokenizer.add_special_case(abbr, [{ORTH: abbr}])
    from spacy.pipeline import Sentencizer

    punct = list(Sentencizer.default_punct_chars) + list(SENTENCE_ENDS.get(lang, ()))
    nlp.add_pipe("sentencizer", config={"punct_chars": punct})
    if lemmas:
        nlp.add_pipe("lawgraph_lemmas")
    return nlp


READ_ATTRIBUTES = ("IS_ALPHA", "IS_PUNCT", "IS_SPACE", "LOWER", "NORM", "LANG")
"""The word attributes anything reads: the code (``is_alpha``, ``is_space``, ``lower_``
…), the sentencizer (``is_punct``), the glossary's phrase matchers (``LOWER``, and
``NORM`` where a token's own is not set) and spaCy's ``Vocab.lang`` (``LANG``)."""


def _keep_read_attributes(nlp: Language) -> None:
    """Compute only :data:`READ_ATTRIBUTES` for each new word of ``nlp``'s vocabulary.

    spaCy computes some twenty attributes (shape, prefix, ``like_url``, stop word …) by
    calling a Python function for each, the first time a process meets a word: a quarter
    of a first tokenization of the books, in every process that tokenizes them. The
    others stay at zero.
    """
    from spacy import attrs

    read = {getattr(attrs, name) for name in READ_ATTRIBUTES}
    vocab = cast("Any", nlp.vocab)  # spaCy's type stubs leave the attribute out
    vocab.lex_attr_getters = {k: f for k, f in vocab.lex_attr_getters.items() if k in read}


def sentences(lang: str, text: str) -> list[str]:
    """Split ``text`` into sentences with the language's pipeline."""
    return [s.text.strip() for s in pipeline(lang, lemmas=False)(text).sents if s.text.strip()]


def sentences_many(lang: str, texts: list[str]) -> list[list[str]]:
    """:func:`sentences` of many texts at once (one spaCy batch)."""
    nlp = pipeline(lang, lemmas=False)
    return [[s.text.strip() for s in doc.sents if s.text.strip()] for doc in nlp.pipe(texts)]


def lemmas(lang: str, text: str) -> list[str]:
    """Return the folded lemmas of the word tokens of ``text``."""
    return [t.lemma_ for t in pipeline(lang)(text) if t.is_alpha]
