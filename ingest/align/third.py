"""Equivalents confirmed through a third book.

The matcher decides every pair of books on its own. Some provisions it leaves without
a shown equivalent are connected, through a third book, by two equivalents that are
shown: fi-1997/80E is el-2017/80B2(e), and el-2017/80B2(e) is sv-2007/80B2(e), while
compared directly fi-1997/80E and sv-2007/80B2(e) score 0.50, short of the threshold. Two sources
then agree: the direct comparison (a different lexicon, a different language) and the
chain through the third book. A chain counts only when

* the provision has no equivalent shown in the other book, and the chain's end is not
  shown as the equivalent of another provision (never two equivalents for one);
* the chain's probability, the product of its links' scores, clears the threshold the
  matcher would apply to the pair (:func:`.match.show_threshold`: higher for a label
  twin of two editions);
* the direct comparison itself gives the pair at least :data:`CONFIRM`: the chain alone
  is not enough, as a wrong link carries its mistake along (on the DEV SET, chains whose
  direct probability was lower were wrong about as often as right);
* no chain through another book ends at another, unrelated provision with
  :data:`CONFIRM` or more.

The row keeps the chain's probability as its score and says in words which two
equivalents it rests on and what the direct comparison gave.
"""

from __future__ import annotations

from .label import Corpus
from .match import Row, _related, show_threshold
from .query import EQUIVALENT

CONFIRM = 0.5
"""The direct probability a pair needs before a chain through a third book can confirm
it (tuned on the DEV SET)."""

Links = dict[str, dict[str, dict[str, float]]]
"""Provision -> other book -> its shown equivalents there with their scores."""


def shown_links(rows_by_pair: dict[tuple[str, str], list[Row]]) -> Links:
    """Every shown equivalent, both ways."""
    links: Links = {}
    for (doc_a, doc_b), rows in rows_by_pair.items():
        for r in rows:
            if r.flagged or r.relation not in EQUIVALENT:
                continue
            links.setdefault(r.a, {}).setdefault(doc_b, {})[r.b] = r.score
            links.setdefault(r.b, {}).setdefault(doc_a, {})[r.a] = r.score
    return links


def chains(links: Links, a: str, doc_a: str, doc_b: str) -> dict[str, tuple[float, str]]:
    """Where the shown equivalents of ``a`` in third books lead in ``doc_b``: for each
    provision reached, the best chain's probability and the provision it passes."""
    out: dict[str, tuple[float, str]] = {}
    for third, mids in links.get(a, {}).items():
        if third in (doc_a, doc_b):
            continue
        for mid, p1 in mids.items():
            for b, p2 in links.get(mid, {}).get(doc_b, {}).items():
                if b not in out or p1 * p2 > out[b][0]:
                    out[b] = (p1 * p2, mid)
    return out


def third_book_rows(
    corpus: Corpus,
    rows_by_pair: dict[tuple[str, str], list[Row]],
    open_candidates: dict[tuple[str, str], dict[str, dict[str, float]]],
) -> dict[tuple[str, str], list[Row]]:
    """The rows confirmed through a third book, per pair of books decided directly.

    ``open_candidates``: per pair, the provisions the matcher left without a shown
    equivalent and the direct probability of each of their candidates
    (:meth:`.match.PairMatcher.open_candidates`)."""
    links = shown_links(rows_by_pair)
    out: dict[tuple[str, str], list[Row]] = {}
    for (doc_a, doc_b), opens in open_candidates.items():
        rows = rows_by_pair.get((doc_a, doc_b), [])
        held = {r.b for r in rows if not r.flagged and r.relation in EQUIVALENT}
        same_edition = corpus.relation(doc_a, doc_b) == "same-edition"
        for a, direct in sorted(opens.items()):
            if doc_b in links.get(a, {}):
                continue
            reached = chains(links, a, doc_a, doc_b)
            if not reached:
                continue
            b, (p, mid) = max(reached.items(), key=lambda kv: (kv[1][0], kv[0]))
            rivals = [x for x, (q, _) in reached.items() if q >= CONFIRM and x != b]
            if any(not _related(corpus, x, b) for x in rivals):
                continue  # the third books disagree
            if b in held or direct.get(b, 0.0) < CONFIRM:
                continue
            if p < show_threshold(corpus, a, b, same_edition):
                continue
            held.add(b)
            out.setdefault((doc_a, doc_b), []).append(_row(corpus, links, a, b, mid, p, direct[b]))
    return out


def _row(corpus: Corpus, links: Links, a: str, b: str, mid: str, p: float, direct: float) -> Row:
    pa, pb = corpus.provs[a], corpus.provs[b]
    relation = "same" if pa.label == pb.label else "renumbered" if pa.law == pb.law else "moved"
    third = corpus.provs[mid].doc
    p1 = links[a][third][mid]
    p2 = links[mid][pb.doc][b]
    why = (
        f"Confirmed through {third}: {a} is {mid} there ({p1:.2f}) and {mid} is {b} "
        f"({p2:.2f}), together {p:.2f}; compared directly the two score {direct:.2f}, "
        "short of the threshold alone."
    )
    evidence = {
        "why": why,
        "third_book": {"via": mid, "links": [p1, p2], "direct": round(direct, 4)},
    }
    return Row(a, b, "third-book", round(p, 4), 0, evidence, relation)
