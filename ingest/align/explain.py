"""Evidence in words: why two provisions are (or are not) taken as equivalent.

Every alignment row carries an evidence dict a person can check against the books:
the terms that matched with their translations and probabilities, the numbers and
cited laws both provisions state, the length ratio against the books' usual ratio,
and one sentence (``why``) that says what was decided and on what grounds.
"""

from __future__ import annotations

import math

from . import calibration
from .evidence import law_of
from .label import Corpus
from .lexicon import Bags, Lexicon
from .score import PairSpace

TERMS = 8
"""Matched term pairs kept per row."""
MIN_TERM_P = 0.3
"""A term pair is shown from this translation probability on. Below it, many pairs read in
the books are chance company ("aloituskorttirangaistukset" = "utgår"): of 40 pairs of
0.2-0.3 picked at random from the shown rows' evidence about half were wrong ("πίκες" =
"hertta", spades for hearts), of 25 of 0.3-0.4 about one in five."""
RARE = 20
"""Only the rarest words of a provision are looked at (the telling ones)."""
MIN_IDF = 2.5
"""Words found in more than about one provision in eleven are not shown as evidence."""


def matched_terms(
    corpus: Corpus, bags: Bags, lex: Lexicon, idf: dict[str, dict[str, float]], a: str, b: str
) -> list[list]:
    """The most telling term pairs of two provisions: ``[word_a, word_b, probability]``.

    A term of ``a`` is matched to the term of ``b`` it is most strongly associated with
    (the geometric mean of the two directions' probabilities, as in the similarity);
    rare words (high IDF) on both sides come first.
    """
    lang_a = corpus.docs[corpus.provs[a].doc].language
    lang_b = corpus.docs[corpus.provs[b].doc].language
    trans = lex.associations(reverse=lex.lang_a != lang_a)
    weights, targets = idf.get(lang_a, {}), idf.get(lang_b, {})
    words_a = set(sorted(bags.subtree(corpus, a), key=lambda w: (-weights.get(w, 0.0), w))[:RARE])
    words_b = bags.subtree(corpus, b).keys()
    scored = []
    for wa in words_a:
        if len(wa) <= 2 or weights.get(wa, 0.0) < MIN_IDF:
            continue
        if lang_a == lang_b and wa in words_b:
            best = (1.0, wa)
        else:
            options = trans.get(wa, {})
            best = max(
                (
                    (options[wb], wb)
                    for wb in options.keys() & words_b  # the translations it has here
                    if targets.get(wb, 0.0) >= MIN_IDF
                ),
                default=(0.0, ""),
            )
        if best[0] >= MIN_TERM_P:
            scored.append((weights.get(wa, 1.0) * best[0], wa, best[1], best[0]))
    scored.sort(key=lambda x: (-x[0], x[1]))
    sa, sb = bags.shown.get(lang_a, {}), bags.shown.get(lang_b, {})
    # each word as these two texts write it, which a reader can find in them
    return [
        [
            bags.form_in(corpus, a, wa) or sa.get(wa, wa),
            bags.form_in(corpus, b, wb) or sb.get(wb, wb),
            round(p, 2),
        ]
        for _s, wa, wb, p in scored[:TERMS]
    ]


def anchors(space: PairSpace, a: str, b: str) -> dict:
    """Numbers and cited laws both provisions state, and those only one states (a law
    citing itself is no anchor: the signal leaves it out too, :func:`.score.features`)."""
    fa, fb = space.fps.get(a), space.fps.get(b)
    if fa is None or fb is None:
        return {}
    na, nb = set(fa.numbers), set(fb.numbers)
    ca = set(fa.cites_law) - {law_of(a.split("/", 1)[1])}
    cb = set(fb.cites_law) - {law_of(b.split("/", 1)[1])}
    out: dict = {}
    if na | nb:
        out["numbers"] = {
            "both": sorted(na & nb),
            "only_a": sorted(na - nb),
            "only_b": sorted(nb - na),
        }
    if ca | cb:
        key = lambda x: (len(x), x)  # noqa: E731
        out["cited_laws"] = {
            "both": sorted(ca & cb, key=key),
            "only_a": sorted(ca - cb, key=key),
            "only_b": sorted(cb - ca, key=key),
        }
    return out


def length_ratio(space: PairSpace, a: str, b: str) -> dict | None:
    """The pair's length ratio (b over a) and the usual ratio of the two books."""
    i, j = space.a.index.get(a), space.b.index.get(b)
    if i is None or j is None or not space.a.lengths[i] or not space.b.lengths[j]:
        return None
    ratio = space.b.lengths[j] / space.a.lengths[i]
    return {"ratio": round(float(ratio), 3), "usual": round(math.exp(space.log_ratio), 3)}


def _percent(p: float | None) -> str:
    """A probability in words: "12%", or "less than 1%" (never "0%")."""
    p = p or 0.0
    return "less than 1%" if p < 0.005 else f"{p:.0%}"


NOT_ALIKE = 0.5
"""A label twin's wording is said not to match below this lexical similarity (the median
of the label twins is put at 0.6), and to be alike only in part from it on."""


def why(
    relation: str,
    p: float,
    a_id: str,
    b_id: str,
    twin: str | None,
    twin_p: float | None,
    feats: dict,
    holder: str | None = None,
    pointer: tuple[str, str] | None = None,
    laws: bool = False,
) -> str:
    """One sentence saying what was decided and why, naming both provisions by id so it
    reads the same from either side. ``pointer``: the provision that only refers to where
    the rule now stands, and the provision it cites
    (:meth:`.match.PairMatcher._follow_pointers`); ``laws``: the two are whole laws."""
    lex = feats.get("lex", 0.0)
    if relation == "same" and feats.get("edition_rule"):
        return (
            f"{a_id} and {b_id} are two translations of one edition with the same label "
            f"under counterpart parents, of ordinary length, citing the same laws: the "
            f"label stands although the learned lexicon finds little in common (lexical "
            f"similarity {lex:.2f}); {p:.0%} likely."
        )
    if relation == "same":
        return (
            f"{a_id} and {b_id} carry the same label and their wording agrees (lexical "
            f"similarity {lex:.2f}): {p:.0%} likely to be equivalent."
        )
    if relation in ("renumbered", "moved"):
        where = "renumbered in the same law" if relation == "renumbered" else "moved to another law"
        base = (
            f"{a_id} and {b_id} say the same ({where}; lexical similarity {lex:.2f}, "
            f"{p:.0%} likely)"
        )
        if feats.get("leaf_seq") == 1.0:
            base += (
                f", and {b_id} is where {a_id} falls when the provisions of the two laws "
                f"that are not divided further are taken in order"
            )
            if feats.get("order_bridged") == 1.0:
                base += f", where {a_id}'s counterpart in a third book leads too"
        if pointer and pointer[0] == twin:
            return base + (
                f"; {twin}, which carries the label of {a_id}, only refers to {pointer[1]}, "
                f"which holds this rule."
            )
        if pointer:
            base += (
                f"; {pointer[0]}, the counterpart of {a_id} by position, only refers to "
                f"{pointer[1]}, which holds this rule"
            )
        if twin:
            return base + (
                f"; {twin}, which carries the label of {a_id}, matches only {_percent(twin_p)}."
            )
        return base + "."
    if calibration.unconfirmed(relation, p) and not feats.get("edition_twin"):
        # the score rounded down: "89%", never "90%, below the 90% needed"
        return (
            f"{a_id} and {b_id} carry the same label and their wording agrees only in part "
            f"({math.floor(p * 100)}% likely to be equivalent; the same label in two editions "
            f"is confirmed from {calibration.TWIN_SHOW:.0%}): too little to rule out a "
            f"rewritten rule, so read both before relying on either."
        )
    if relation == "partial" and feats.get("edition_twin"):
        return (
            f"{a_id} and {b_id} carry the same label in two translations of one edition, "
            f"but their wording differs too much to call them equivalent ({_percent(p)}): "
            f"one of them renders the rule differently or loosely, so read both."
        )
    if relation == "partial" and laws:
        return (
            f"{a_id} and {b_id} are the laws of one number, but as wholes they agree only in "
            f"part (lexical similarity {lex:.2f}, {_percent(p)} likely to be equivalent): "
            f"between the editions the law's provisions were rearranged, rewritten or "
            f"replaced, so do not take one for the other; each provision's own equivalents "
            f"say where its rule is now."
        )
    if relation == "partial":
        return (
            f"{a_id} and {b_id} carry the same label and share some wording (lexical "
            f"similarity {lex:.2f}), but are only {_percent(p)} likely to be equivalent: the "
            f"rule under this label was rewritten or replaced, so do not take one for the "
            f"other."
        )
    if relation == "not-equivalent":
        alike = "does not match" if lex < NOT_ALIKE else "is alike only in part"
        return (
            f"{a_id} and {b_id} carry the same label, but their wording {alike} "
            f"(lexical similarity {lex:.2f}, {_percent(p)} likely to be equivalent)."
        )
    if relation in ("split", "merged"):
        return f"The content of {a_id} is spread over several provisions, {b_id} among them."
    if holder:
        return (
            f"No reliable equivalent of {a_id}: the most similar provision, {b_id}, is "
            f"paired with {holder} (wording alone: lexical similarity {lex:.2f})."
        )
    return (
        f"No reliable equivalent of {a_id}: the closest provision, {b_id}, matches only "
        f"{_percent(p)} (lexical similarity {lex:.2f})."
    )


def twin_passed_over(corpus, a: str, twin: str, b: str, p: float, feats: dict) -> str:
    """Why the label twin is not ``a``'s equivalent when ``b`` is: ``b`` is a part of the
    twin (1997 27A is 2007 27A1, under a heading 27A that 2007 added), or elsewhere."""
    lex = feats.get("lex", 0.0)
    if b in corpus.descendants(twin):
        return (
            f"{a} and {twin} carry the same label, but {twin} holds more than {a} says: "
            f"{a} says what {b}, a part of it, says. As a whole {twin} is {_percent(p)} "
            f"likely to be its equivalent (lexical similarity {lex:.2f})."
        )
    return (
        f"{a} and {twin} carry the same label, but {a} says what {b} says, its equivalent "
        f"there; {twin} is {_percent(p)} likely to be (lexical similarity {lex:.2f})."
    )
