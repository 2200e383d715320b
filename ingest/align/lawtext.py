"""A law's own text where the other book's law has none: found among its sections.

Some laws open with a text of their own in one book, while in another book the same law
has only a title and its sections hold everything (the 1997 preamble of Law 39, "a call
after the final pass is cancelled", is the 2007 section 39A; the whole of 1997 Law 36 is
spread over the 2007 sections of Law 36). The two laws are still the same law, and the
matcher pairs them as wholes so that their sections line up; but a director who opens the
law's text wants the provision that says what it says, not a law whose own text is empty.

So such a pair of laws gets the relation :data:`LAW` ("the same law, its text divided
differently"): not shown as the equivalent of the text, and not flagged either (the laws
do correspond). The law's own text is then compared, as a provision of its own, with every
provision of the other law: the one that matches it best, clearly ahead of the others and
matching it better than any of its own book's sections does, is shown as its equivalent
when the calibrated model (:mod:`.calibration`, the signals a matcher pair gets) finds it
likely enough. A provision of the other law that opens a list ("Budgivningen avslutas
när:") is compared by its own words as well as with its list: a law's opening sentence may
be the other book's lead-in of a section. The provision found may be one that a pointer
reached too weakly to be shown (:func:`_weak_pointer`); one another pair shows is left
alone: never two equivalents for one provision.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from . import calibration
from .label import Corpus
from .lexicon import Bags, Lexicon
from .match import PairMatcher, Row, _related
from .score import _covered_once, carried_similarities

LAW = "law"
"""Relation of two laws that correspond while one has an own text and the other has none."""
MARGIN = 0.05
"""The best provision must beat the next one (not inside it or around it) by this much."""


def law_pairs(corpus: Corpus, a: str, b: str) -> tuple[str, str] | None:
    """``(with text, without)`` when ``a`` and ``b`` are laws, exactly one has an own text
    and the other holds its text in sub-provisions; else None."""
    pa, pb = corpus.provs[a], corpus.provs[b]
    if pa.kind != "law" or pb.kind != "law":
        return None
    ta, tb = bool(pa.text.strip()), bool(pb.text.strip())
    if ta == tb:
        return None
    x, z = (a, b) if ta else (b, a)
    return (x, z) if corpus.provs[z].children else None


def relabel(corpus: Corpus, rows: list[Row]) -> None:
    """Give every shown pair of laws with their text divided differently :data:`LAW`; a
    law a book gives only by title (a row read ``through`` its same-edition twin) is read
    as that twin, so it says what the twin's row says."""
    for r in rows:
        if r.flagged or r.relation not in ("same", "renumbered", "moved"):
            continue
        through = r.evidence.get("through") if r.method == "edition" else None
        # a title-only law's own twin (a composed row names the books it went through)
        twin = through if isinstance(through, str) and through in corpus.provs else None
        title_only = next(
            (n for n in (r.a, r.b) if twin and not corpus.provs[n].has_text and n != twin), None
        )
        a = twin if twin and r.a == title_only else r.a
        b = twin if twin and r.b == title_only else r.b
        pair = law_pairs(corpus, a, b)
        if pair is None:
            continue
        x, z = pair
        r.relation = LAW
        why = (
            f"{a} and {b} are the same law, but {x} has an opening text of its own and "
            f"{z} has none: its sections hold the text. The laws correspond; the text of "
            f"{x} is not the equivalent of {z} (look for it among the sections of {z})."
        )
        if title_only:
            why = (
                f"{_doc(title_only)} gives only the title of this law; its text in the same "
                f"edition ({twin}) says: {why}"
            )
        r.evidence["why"] = why


def _doc(node_id: str) -> str:
    return node_id.split("/", 1)[0]


def own_text_rows(
    corpus: Corpus, bags: Bags, lex: Lexicon, idf: dict, matcher: PairMatcher
) -> list[Row]:
    """For every pair of laws the matcher paired with their text divided differently, the
    provision of the other law that says what the law's own text says (if any is likely)."""
    out = []
    for a, b in list(matcher.match.items()):
        pair = law_pairs(corpus, a, b)
        if pair is None:
            continue
        x, z = pair
        found = _own_equivalent(corpus, bags, lex, idf, matcher, x, z)
        if found is None:
            continue
        y, p, feats = found
        holder = matcher.taken.get(y) if x == a else matcher.match.get(y)
        if p < calibration.SHOW or (
            holder not in (None, x) and not _weak_pointer(matcher, holder, y, x == a)
        ):
            continue  # never two equivalents for one provision
        ra, rb = (x, y) if x == a else (y, x)
        relation = "renumbered" if corpus.provs[x].law == corpus.provs[y].law else "moved"
        why = (
            f"The opening text of {x}, compared as a provision of its own, says what {y} "
            f"says (lexical similarity {feats['lex']:.2f}, {p:.0%} likely); {z} has no text "
            "of its own."
        )
        ev = {"why": why, "own_text": x, "signals": {k: round(v, 3) for k, v in feats.items()}}
        out.append(Row(ra, rb, "content", round(p, 4), 0, ev, relation))
    return out


def _weak_pointer(matcher: PairMatcher, holder: str, y: str, y_in_b: bool) -> bool:
    """Whether ``holder`` holds ``y`` only by following a pointer, too weakly to be shown:
    a pointer says in which law a rule now is, the own text of a law says more (1997
    35D's pointer in 2017 35D leads to Law 39, whose 39A is what 1997 Law 39 opens with)."""
    a, b = (holder, y) if y_in_b else (y, holder)
    d = matcher.decisions.get(a)
    shown = d is not None and d.b == b and d.relation in ("same", "renumbered", "moved")
    return matcher.how.get(a) == "pointer" and not shown


def _own_equivalent(corpus, bags, lex, idf, matcher, x: str, z: str):
    """The best provision under ``z`` for the own text of ``x``, its probability and
    signals; None unless it is clearly the best both ways."""
    x_first = x in matcher.space.a.index
    below = [(d, t) for d in corpus.descendants(z)[1:] if (t := _subtree_tokens(corpus, bags, d))]
    # a provision that opens a list ("Budgivningen avslutas när:") is compared by its own
    # words too: a law's opening sentence may be a section's in the other book
    n_subtrees = len(below)
    below += [
        (d, t)
        for d in corpus.descendants(z)[1:]
        if corpus.provs[d].children and (t := bags.tokens.get(d, []))
    ]
    own = bags.tokens.get(x, [])
    if not below or not own:
        return None
    cands, subtree = [d for d, _ in below], [t for _, t in below]
    lang_x = corpus.docs[corpus.provs[x].doc].language
    lang_z = corpus.docs[corpus.provs[z].doc].language
    ab, ba = _both_ways(lex, idf, lang_x, lang_z, [own], subtree)
    sims = (ab + ba)[0] / 2
    best = int(np.argmax(sims))
    y = cands[best]
    rivals = [s for d, s in zip(cands, sims, strict=True) if not _related(corpus, d, y)]
    if rivals and sims[best] - max(rivals) < MARGIN:
        return None
    # the own text must match ``y`` better than any section of its own law does
    siblings = [d for d in corpus.descendants(x)[1:] if bags.tokens.get(d)]
    if siblings:
        back_ab, back_ba = _both_ways(
            lex,
            idf,
            lang_z,
            lang_x,
            [subtree[best]],
            [_subtree_tokens(corpus, bags, d) for d in siblings],
        )
        if max((back_ab + back_ba)[0] / 2) >= sims[best]:
            return None
    norm = matcher.normalise
    lex_ab, lex_ba = norm(float(ab[0, best])), norm(float(ba[0, best]))
    feats = {
        "lex": norm(float(sims[best])),
        "lex_min": min(lex_ab, lex_ba),
        "cover": _cover(lex, own, subtree[best], lang_x),
        "same_label": 0.0,
        "same_law": float(corpus.provs[x].law == corpus.provs[y].law),
        "in_parent": 1.0,
        "length": _length(corpus, matcher, x, y, x_first, lead_in=best >= n_subtrees),
        "anchors": 0.5,
        "margin_row": float(sims[best] - max(rivals, default=0.0)),
        "margin_col": 0.0,
        "sequence": 0.0,
        "agree": 0.0,
        "search": 0.0,
        "swap": 0.0,
        "island": 0.0,
        "leaf_seq": 0.5,
        "bridge": 0.5,
        "edition_twin": 0.0,
        "order_bridged": 0.0,
        "pointer": 0.0,
    }
    return y, calibration.probability(feats), feats


def _subtree_tokens(corpus: Corpus, bags: Bags, nid: str) -> list[str]:
    return [w for d in corpus.descendants(nid) for w in bags.tokens.get(d, ())]


def _both_ways(lex: Lexicon, idf: dict, lang_x: str, lang_y: str, xs, ys):
    """Carried cosines of ``xs`` with ``ys`` both ways (:func:`.score.carried_similarities`),
    each at least the direct cosine when both are in one language."""
    xy, yx, direct = carried_similarities(lex, idf, lang_x, lang_y, xs, ys)
    if direct is None:
        return xy, yx
    return np.maximum(xy, direct), np.maximum(yx, direct)


def _cover(lex: Lexicon, xs: list[str], ys: list[str], lang_x: str) -> float:
    """One-to-one coverage, the lower of both directions (:meth:`.score.PairSpace.cover`)."""
    forward = lex.likely(lang_x != lex.lang_a)
    backward = lex.likely(lang_x == lex.lang_a)
    cx, cy = Counter(xs), Counter(ys)
    return min(_covered_once(cx, _reach(forward, cy)), _covered_once(cy, _reach(backward, cx)))


def _reach(likely: dict[str, frozenset], other: Counter) -> dict[str, int]:
    """Per word of the side ``likely`` translates from, how many tokens of ``other`` are
    among its likely translations."""
    return {w: n for w, targets in likely.items() if (n := sum(other[v] for v in targets))}


def _length(
    corpus: Corpus, matcher: PairMatcher, x: str, y: str, x_first: bool, lead_in: bool
) -> float:
    """The length signal of the own text of ``x`` against ``y`` (its own text alone when
    ``lead_in``, else with its sub-provisions)."""
    space = matcher.space
    lx = len(f"{corpus.provs[x].title} {corpus.provs[x].text}")
    py = corpus.provs[y]
    ly = len(f"{py.title} {py.text}") if lead_in else len(corpus.subtree_text(y))
    if lx <= 0 or ly <= 0:
        return 1.0
    ratio = math.log(ly / lx) if x_first else math.log(lx / ly)
    z = abs(ratio - space.log_ratio) / max(space.log_spread, 0.05)
    return min(z, 6.0) / 6.0
