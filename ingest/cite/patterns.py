"""Citation patterns, one table per language: data, not branches in code.

Each table gives regular-expression fragments:

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

from dataclasses import dataclass

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


_SV_J = ("och", "eller", "samt")
_FI_J = ("ja", "tai", "sekä")
_EL_J = ("και", "ή")

SV = LangPatterns(
    joiners=_SV_J,
    absolute=(rf"\b[Ll]ag(?:arna|en|ar)?\s+{_list(ABS_LABEL, _SV_J)}",),
    relative=(
        rf"\((?:men\s+)?se\s+{_list(REL_LABEL, _SV_J)}(?:\s+(?:nedan|ovan))?(?=[),;])",
        rf"\b(?:som|[Ll]iksom)\s+i\s+{_list(REL_LABEL, _SV_J)}(?=[\s.,;:)])",
        rf"\b[Ss]e\s+{_list(REL_LABEL, _SV_J)}(?:\s+(?:nedan|ovan))?(?=[\s.,;:)\]])",
        rf"\bi\s+{_list(REL_LABEL, _SV_J)}\s+(?:nedan|ovan)",
        rf"\b(?:avsnitt|paragraf|punkt)(?:erna)?\s+{_list(REL_LABEL, _SV_J)}(?=[\s.,;:)])",
        rf"\b(?:enligt|i enlighet med|tillämpa\w*)\s+{_list(REL_LABEL, _SV_J)}(?=[\s.,;:)])",
    ),
    see=(r"\bse\b",),
    applies=(r"\benligt\b", r"\bi enlighet med\b", r"\bsom i\b"),
)

_FI_KOHTA = "kohdassa|kohdan|kohtaa|kohdat|kohta|kohtaan|kohdista|kohdissa"

FI = LangPatterns(
    joiners=_FI_J,
    absolute=(
        # fi-2007 prints the page before each reference: (s. 83) 77
        rf"\(s\.\s*\d{{1,3}}\)\s*{_list(ABS_LABEL, _FI_J)}",
        # fi-1997: 42 ja 43 §:ssä, (42B2 §), 47E ja 41 §§
        rf"(?<!\w)(?<!\d[.,]){_list(ABS_LABEL, _FI_J)}\s*§",
        # fi-2007 case endings after a space: 12C :n mukaan, 26 :ssa
        rf"(?<![\w.(]){_list(ABS_LABEL, _FI_J)}\s+:[^\W\d_]{{1,4}}\b",
    ),
    relative=(
        rf"\b[Kk]s\.\s+{_list(REL_LABEL, _FI_J)}(?:-momentti\w*|-kohta\w*)?(?=[\s),.;])",
        rf"\b(?:{_FI_KOHTA})\s+{_list(REL_LABEL, _FI_J)}(?![\w-])",
        rf"(?<![\w-]){_list(REL_LABEL, _FI_J)}-(?:moment|kohd|kohta)\w*",
        r"(?<![\w-])(?P<list>[a-n](?:\s*(?:,|ja|tai)\s*[a-n])*)-koh[dt]\w*",
    ),
    see=(r"\b[Kk]s\.", r"\bkatso\b"),
    applies=(r"mukaan", r"mukaisesti", r"mukaisen", r"nojalla", r"perusteella"),
)

EL = LangPatterns(
    joiners=_EL_J,
    absolute=(rf"(?:\b[Νν][όο]μ(?:ος|ου|ο|ων|ους|οι)|\bΝ\.?(?=\d))\s*{_list(ABS_LABEL, _EL_J)}",),
    relative=(
        rf"\b[Ππ]αρ[αά]γρ[αά]φ(?:ο|ου|ος|ων|ους)\s+{_list(REL_LABEL, _EL_J)}",
        rf"\bεδ[άα]φι(?:ο|ου|α|ων)\s+{_list(REL_LABEL, _EL_J)}",
        rf"\bεν[όο]τητ(?:α|ας|ες|ων)\s+{_list(REL_LABEL, _EL_J)}",
        r"\b[Ππ]αρ[αά]γρ[αά]φ\w*\s+(?P<list>[α-ι]{1,2})\s+(?=παρακάτω|παραπάνω)",
    ),
    see=(r"\b[Ββ]λ[έε]πε\b",),
    applies=(r"σύμφωνα\s+με", r"\bκατά\b", r"\bβάσει\b", r"\bόπως\b"),
)

PATTERNS: dict[str, LangPatterns] = {"sv": SV, "fi": FI, "el": EL}
