"""Canonical provision labels and the one normaliser for user-typed labels.

Canonical form: law number, section capital, subsection number, item and sub-item in
parentheses: ``16``, ``16B``, ``16B1``, ``16B1(a)``, ``12C1(e)(ii)``. Greek section
letters and item numerals are mapped by position (Α Β Γ Δ Ε ΣΤ Ζ Η → A..H,
(α)..(ιβ) → (a)..(l)). A subsection that hangs directly under a law (no section)
is written ``{law}.{n}`` so that Law 1 subsection 2 never reads as Law 12.
"""

from __future__ import annotations

import re
import unicodedata

from . import languages

_GREEK = languages.get("el").letters
#: Greek section capitals and item numerals in the order of the Latin letters they
#: stand for (the Greek language file, ``[letters]``).
GREEK_CAPITALS: list[str] = list(_GREEK["sections"])
GREEK_ITEMS: list[str] = list(_GREEK["items"])
LATIN = "ABCDEFGHIJKLMN"
#: Latin letters that OCR or typesetting put in place of Greek capitals.
LOOKALIKES: dict[str, str] = dict(_GREEK["lookalikes"])
ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"]


def _strip_accents(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")


def greek_section(letter: str) -> str:
    """Map a Greek section capital (or a Latin look-alike) to its Latin position letter.

    >>> greek_section("ΣΤ"), greek_section("Γ"), greek_section("Z")
    ('F', 'C', 'G')
    """
    g = _strip_accents(letter).upper().replace("Ϛ", "ΣΤ")
    g = LOOKALIKES.get(g, g)
    if g in GREEK_CAPITALS:
        return LATIN[GREEK_CAPITALS.index(g)]
    raise ValueError(f"not a Greek section letter: {letter!r}")


def greek_item(numeral: str) -> str:
    """Map a Greek item numeral ``α``..``ιβ`` to ``a``..``l``.

    >>> greek_item("στ"), greek_item("ιβ")
    ('f', 'l')
    """
    g = _strip_accents(numeral).lower().replace("ϛ", "στ").replace("\u03c2", "σ")
    if g in GREEK_ITEMS:
        return LATIN[GREEK_ITEMS.index(g)].lower()
    raise ValueError(f"not a Greek item numeral: {numeral!r}")


_CANONICAL_RE = re.compile(r"(\d+)([A-L])?(\.?\d+)?(?:\(([a-n])\))?((?:\([ivx]+\))*)")


def greek_label(label: str) -> str:
    """Write a canonical label the way the Greek book prints it (the inverse of the mapping).

    >>> greek_label("20F5(a)"), greek_label("12C1(e)(ii)"), greek_label("def/x")
    ('20ΣΤ5(α)', '12Γ1(ε)(ii)', 'def/x')
    """
    m = _CANONICAL_RE.fullmatch(label)
    if not m:
        return label
    law, sec, sub, item, rest = m.groups()
    out = law + (GREEK_CAPITALS[LATIN.index(sec)] if sec else "") + (sub or "")
    if item:
        out += f"({GREEK_ITEMS[LATIN.lower().index(item)]})"
    return out + rest


def join_label(parent_label: str, kind: str, part: str) -> str:
    """Compose a child label from its parent's label and its own part.

    Args:
        parent_label: label of the enclosing node ("" for a law).
        kind: ``law``, ``section``, ``subsection``, ``item`` or ``subitem``.
        part: the child's own number or letter, already in Latin form.
    """
    if kind in ("law", "section"):
        return parent_label + part
    if kind == "subsection":
        if parent_label and parent_label[-1].isdigit():
            return f"{parent_label}.{part}"
        return parent_label + part
    return f"{parent_label}({part})"


_LAST_PART_RE = re.compile(r"(\([^()]*\)|\.\d+|\d+|[A-Z])$")


def parent_labels(label: str) -> list[str]:
    """The labels that enclose a canonical provision label, nearest first, down to the law.

    A national prefix (``SR``) is not a level of its own: the walk stops at the law number.
    Ids of other families (``def/…``, ``preface/…``) have none.

    >>> parent_labels("12C1(e)(ii)"), parent_labels("1.2"), parent_labels("SR6.4(b)")
    (['12C1(e)', '12C1', '12C', '12'], ['1'], ['SR6.4', 'SR6'])
    """
    out: list[str] = []
    if "/" in label:
        return out
    while True:
        shorter = _LAST_PART_RE.sub("", label)
        if shorter == label or not shorter or shorter.isalpha():
            return out
        out.append(shorter)
        label = shorter


_PREFIX_RE = re.compile(
    r"^\s*(?:lagarna|lagen|lag|laws|law|laki|lain|pykälä|νομοσ|νομου|νομων|νομο|ν\.?|l\.?(?=\s*\d))\s*",
    re.IGNORECASE,
)
_LABEL_RE = re.compile(
    r"""^(?P<pre>[A-Z]{1,2}(?=\d))?
    (?P<law>\d{1,3})
    (?:(?P<sec>[A-Z])(?P<sub>\d{1,2})?|\.(?P<lsub>\d{1,2}))?
    (?P<item>\([a-z]\)|[a-z](?![a-z]))?
    (?P<subitem>\((?:[ivx]+|\d)\)|[ivx]+)?$""",
    re.VERBOSE,
)


def _latinise(text: str) -> str:
    """Turn Greek section capitals and item numerals in a typed label into Latin."""
    out = []
    i = 0
    s = _strip_accents(text)
    while i < len(s):
        c = s[i]
        if c.upper() == "Σ" and i + 1 < len(s) and s[i + 1].upper() == "Τ":
            out.append("F" if c.isupper() else "f")
            i += 2
            continue
        if "\u0370" <= c <= "\u03ff":
            paren = i > 0 and s[i - 1] == "("
            if c.islower() and i > 0 and s[i - 1].isdigit():  # 27Β1α: an item, no brackets
                try:
                    out.append(greek_item(c))
                    i += 1
                    continue
                except ValueError:
                    pass
            if paren:
                j = s.find(")", i)
                numeral = s[i:j] if j > 0 else s[i:]
                try:
                    out.append(greek_item(numeral))
                    i += len(numeral)
                    continue
                except ValueError:
                    pass
            try:
                out.append(greek_section(c))
            except ValueError:
                out.append(c)
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def normalise_label(text: str) -> str:
    """Turn any typed form of a provision label into the canonical label.

    Accepts ``16 B 1``, ``16 § B 1``, ``lag 16B1``, ``Νόμος 20ΣΤ5``, ``20Στ5``,
    ``12C1(e)(ii)``, ``12 C 1 e ii``, ``16.B.1``, ``16-B-1``, ``１６Ｂ１`` (full-width).
    A full stop between two numbers stays (``71.1``, ``SR6.4``).

    Raises:
        ValueError: if the text is not a provision label.
    """
    text = unicodedata.normalize("NFKC", text)
    s = _PREFIX_RE.sub("", _strip_accents(text.strip()).lower(), count=1)
    # Keep the original case of letters after the prefix is stripped.
    s = text.strip()[len(text.strip()) - len(s) :] if s else s
    s = _latinise(s).replace("§", " ")
    s = re.sub(r"\s+|\.(?=\D)", "", s)
    s = re.sub(r"(?<=[A-Za-z)])[.\-‐‑–—]|[-‐‑–—](?=[A-Za-z(])", "", s)  # 16.B.1, 16-B-1
    if s.endswith(")") and "(" not in s:
        raise ValueError(f"not a provision label: {text!r}")
    s = s.strip(".")
    s = re.sub(r"\(([A-Za-z]+)\)", lambda m: f"({m.group(1).lower()})", s)  # 27B1(A)
    m = re.match(r"^(\d{1,3})([A-Za-z])(.*)$", s)
    if m:
        s = m.group(1) + m.group(2).upper() + m.group(3)
    # a run of roman numerals after the number is a sub-item, never an item and a sub-item
    # (items are single letters): "16B1-ii" is 16B1(ii), not 16B1(i)(i)
    s = re.sub(r"(?<=\d)((?=[ivx]{2})x{0,3}(?:ix|iv|v?i{0,3}))$", r"(\1)", s)
    s = re.sub(r"(?<=\d)([a-z])(?=$|[ivx(])", r"(\1)", s, count=1)
    s = re.sub(r"(?<=\))([ivx]+)$", r"(\1)", s)
    if not _LABEL_RE.match(s):
        raise ValueError(f"not a provision label: {text!r}")
    return s


#: Every registered language's transliteration to ASCII (for slugs).
_TRANSLIT: dict[str, str] = {
    k: v
    for c in languages.codes()
    for k, v in languages.get(c).letters.get("transliteration", {}).items()
}


def slug(text: str) -> str:
    """ASCII slug for the id of a definition, topic or preface, in any of the languages.

    >>> slug("Kõlbmata pakkumine"), slug("Tur (eller tillfälle)"), slug("Βαθμός Αγώνα")
    ('kolbmata-pakkumine', 'tur-eller-tillfalle', 'vathmos-agona')
    """
    s = unicodedata.normalize("NFD", text.lower())
    s = "".join(_TRANSLIT.get(c, c) for c in s if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]+", "-", s).strip("-")


def label_key(label: str | None) -> tuple:
    """A provision label in the books' order: its numbers as numbers (law 9 before law 68,
    ``9A2`` before ``9A10``), a sub-item's numeral by value (``12C1(e)(iv)`` before
    ``12C1(e)(ix)``; an item's letter, ``80B2(i)``, stays a letter), a label with no
    leading law number (``SR3``, ``fn/12``) after the laws, and none last."""
    if not label:
        return (2,)
    key = []
    for m in re.finditer(r"\(([^()]*)\)|\d+|[^\d(]+", label):
        x, inner = m.group(), m.group(1)
        after_item = m.start() > 0 and label[m.start() - 1] == ")"
        if x.isdigit() or (inner or "").isdigit():
            key.append((0, int(inner or x), ""))
        elif inner is not None and after_item and re.fullmatch(r"[ivx]+", inner):
            key.append((0, _roman(inner), ""))
        else:
            key.append((1, 0, x))
    return (0 if label[0].isdigit() else 1, tuple(key))


def _roman(numeral: str) -> int:
    values = {"i": 1, "v": 5, "x": 10}
    total = 0
    for a, b in zip(numeral, [*numeral[1:], ""], strict=True):
        total += -values[a] if b and values[b] > values[a] else values[a]
    return total
