"""Compound words: split ``rangaistuskortti`` and ``straffkort`` into known parts.

Finnish, Swedish and Estonian write compounds as one word. A reader looking for
``kortti`` or ``kort`` should also find ``rangaistuskortti`` and ``straffkort``, so at
ingest every long lemma of the corpus is split into a modifier and a head that are
themselves words of the corpus; the parts are indexed in a low-weight column. The
query side uses the same splitter for query words the corpus does not contain.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import languages

#: Languages whose compounds are split, and the linking letters a modifier may end in
#: (Swedish ``tävlings|ledare``, ``klock|a``). The empty string means no link.
LINKS = languages.COMPOUND_LINKS  # from the language files (``compound_links``)
MIN_WORD = 7
MIN_HEAD = 3
MIN_MODIFIER = 3


def split_compound(
    word: str, lang: str, known: Callable[[str], str | None]
) -> tuple[str, str] | None:
    """Split ``word`` into (modifier lemma, head lemma), or None if it is not a compound.

    The longest head that is a known word wins (the most conservative split). A part is
    accepted if ``known`` maps it to a lemma.

    Args:
        word: a folded word (usually a lemma).
        lang: its language; languages without entry in :data:`LINKS` are never split.
        known: maps a folded word to its lemma, or None if the corpus does not know it.

    >>> vocab = {"rangaistus": "rangaistus", "kortti": "kortti"}
    >>> split_compound("rangaistuskortti", "fi", vocab.get)
    ('rangaistus', 'kortti')
    """
    links = LINKS.get(lang)
    if not links or len(word) < MIN_WORD or not word.isalpha():
        return None
    for i in range(MIN_MODIFIER, len(word) - MIN_HEAD + 1):
        head = known(word[i:])
        if head is None:
            continue
        for link in links:
            mod = word[:i]
            if link:
                if not mod.endswith(link):
                    continue
                mod = mod[: -len(link)]
            if len(mod) < MIN_MODIFIER:
                continue
            mod_lemma = known(mod)
            if mod_lemma is not None:
                return mod_lemma, head
    return None
