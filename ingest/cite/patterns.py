"""Citation patterns, one table per language: data, not branches in code.

The tables live in the language files (``[citations]`` of ``ingest/languages/<code>.toml``);
``{abs_list}`` / ``{rel_list}`` in a pattern stand for a list of absolute / relative
labels joined by the language's joiners. Each table gives regular-expression fragments:

``absolute``
    patterns whose named group ``list`` holds one or more absolute labels
    (``lag 65B3``, ``Νόμων 42 και 43``, ``42 ja 43 §:ssä``, ``(s. 83) 77``).
``relative``
    patterns whose group ``list`` holds labels relative to the citing law
    (``se D``, ``som i 2(c)``, ``βλέπε παράγραφο Γ``, ``kohdassa 2c``).
``see`` / ``applies``
    words that make a citation a see-reference or an applies/according-to one;
    anything else is a mention.
``joiners``
    words that join labels in a list; ranges use an en dash or hyphen.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

from .. import languages

#: One absolute label as printed: law number, section, subsection, item, sub-item.
#: Section letters may be Latin or Greek (ΣΤ before Σ), items Latin or Greek.
SECTION = r"(?:ΣΤ|Στ|[A-HΑΒΓΔΕΖΗ])"
ITEM = r"(?:\((?:[a-n]|[α-ιϛ][α-ι]?|στ)\)|(?<=\d)[a-n](?![\w]))"
SUBITEM = r"(?:\((?:i{1,3}|iv|v|vi{0,3}|ix|x|\d)\))"
ABS_LABEL = (
    rf"\d{{1,3}}(?:\s?{SECTION}(?:\s?\d{{1,2}}|[lI](?![\w]))?)?(?:\s?{ITEM})?(?:{SUBITEM})?(?![\w])"
)
#: OCR damage: a letter l or I printed where the subsection digit 1 belongs (``25 Bl``).
DAMAGED = r"\d{1,3}\s?[A-H][lI]"
REL_LABEL = (
    rf"(?:\((?:[a-n]|[α-ιϛ][α-ι]?|στ)\)(?:{SUBITEM})?|{SECTION}(?:\s?\d{{1,2}})?(?:\s?{ITEM})?(?:{SUBITEM})?"
    rf"|\d{{1,2}}\s?{ITEM}?(?:{SUBITEM})?)(?![\w])"
)


@dataclass(frozen=True)
class LangPatterns:
    """The citation patterns of one language."""

    joiners: tuple[str, ...]
    absolute: tuple[str, ...]
    relative: tuple[str, ...]
    see: tuple[str, ...]
    applies: tuple[str, ...]


def _list(label: str, joiners: tuple[str, ...]) -> str:
    join = "|".join(joiners)
    return rf"(?P<list>{label}(?:\s*(?:,|–|—|-?\s*\b(?:{join})\b|-)\s*{label})*)"


class _Patterns(Mapping[str, LangPatterns]):
    """``language -> LangPatterns``, read from the language registry (live: a language
    registered later is found)."""

    def __getitem__(self, lang: str) -> LangPatterns:
        if not languages.is_known(lang):
            raise KeyError(lang)
        return _patterns(lang)

    def __iter__(self) -> Iterator[str]:
        return (c for c in languages.codes() if languages.get(c).citations)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, lang: object) -> bool:
        return (
            isinstance(lang, str)
            and languages.is_known(lang)
            and bool(languages.get(lang).citations)
        )


@lru_cache(maxsize=32)
def _patterns(code: str) -> LangPatterns:
    c = languages.get(code).citations
    joiners = tuple(c.get("joiners", ()))

    def fill(p: str) -> str:
        return p.replace("{abs_list}", _list(ABS_LABEL, joiners)).replace(
            "{rel_list}", _list(REL_LABEL, joiners)
        )

    return LangPatterns(
        joiners=joiners,
        absolute=tuple(fill(p) for p in c.get("absolute", ())),
        relative=tuple(fill(p) for p in c.get("relative", ())),
        see=tuple(c.get("see", ())),
        applies=tuple(c.get("applies", ())),
    )


languages.on_register(lambda _code: _patterns.cache_clear())

#: The citation patterns of every language whose file has a ``[citations]`` table.
PATTERNS: Mapping[str, LangPatterns] = _Patterns()
