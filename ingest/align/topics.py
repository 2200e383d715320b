"""Estonian topics aligned to the laws of every book by meaning, or to none.

The et-1930s book has no law numbers, so its topics meet the laws through the
glossary, whose concepts carry the book's own 1930s terms (``salgamine`` = revoke).
For every law book, each law gets a concept profile: the concepts found in its subtree
in that book, pooled with those of its equivalents in the other books (through the
law-level alignment, so a law whose number changed between editions is pooled with
its real counterpart, and a book with only law titles, like fi-2007 beyond Law 18,
borrows the text of its equivalents). A topic is scored against every law by

* the concepts of its heading found in the law's own headings (law, section and
  subsection titles): the most specific signal (``Kõlbmata pakkumine`` = insufficient
  bid = the title of Law 27);
* the TF-IDF cosine of its body's concepts with the law's profile;
* the glossary's law hints for its concepts (revoke -> Laws 61-64).

The best :data:`TOP` laws of each book become ``topic`` rows with the concepts that
justify them. When even the best law scores below :data:`NONE_BELOW` (rubber scoring,
honours, a bidding system: nothing the Laws of Duplicate Bridge regulate), the topic
gets one flagged ``none`` row per book instead, pointing at the closest law for the
evidence. The weights and :data:`NONE_BELOW` were tuned on the hand-read dev set
``tests/fixtures/align/dev_topics.toml``.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections import Counter

import numpy as np

from ..store import has_table
from .label import Corpus
from .match import Row

TOP = 3
"""Candidate laws kept per topic and book."""
NONE_BELOW = 0.2
"""A topic whose best law scores below this gets ``none`` (dev-set tuned)."""
W_TITLE, W_BODY, W_HINT = 0.45, 0.4, 0.15
"""Weights of heading match, body cosine and glossary hints (dev-set tuned)."""
PART_P = 0.01
"""Significance a part of the book must reach to count as a code of the laws."""
PART_MIN = 8
"""Parts with fewer topics are too short to judge by their order (they are kept)."""
WBF_LAW = re.compile(r"^\d+$")
HEADING_KINDS = ("law", "section", "subsection")


def topic_rows(
    con: sqlite3.Connection, corpus: Corpus, equivalents: dict[str, set[str]] | None = None
) -> dict[str, list[Row]]:
    """Ranked candidate laws (or ``none``) per topic, grouped by the law document.

    Args:
        equivalents: law node id -> its equivalent law-level nodes in other books.

    Empty when the glossary stage has left no concept hits, or there is no topic.
    """
    if not corpus.topics or not has_table(con, "concept_hits"):
        return {}
    equivalents = equivalents or {}
    law_of_node = {
        p.id: f"{p.doc}/{p.law}" for p in corpus.provs.values() if WBF_LAW.match(p.law or "")
    }
    heading_nodes = {p.id for p in corpus.provs.values() if p.kind in HEADING_KINDS}
    own: dict[str, Counter] = {}
    heads: dict[str, Counter] = {}
    topic_body: dict[str, Counter] = {}
    topic_head: dict[str, Counter] = {}
    for concept, node, field_ in con.execute("SELECT concept, node, field FROM concept_hits"):
        if node in corpus.topics:
            target = topic_head if field_ == "title" else topic_body
            target.setdefault(node, Counter())[concept] += 1
        elif node in law_of_node:
            law = law_of_node[node]
            own.setdefault(law, Counter())[concept] += 1
            if field_ == "title" and node in heading_nodes:
                heads.setdefault(law, Counter())[concept] += 1
    profiles, headings = _pool(corpus, own, heads, equivalents)
    hints = _hints(con)
    idf = _idf(profiles)
    vecs = {law: _tfidf(c, idf) for law, c in profiles.items()}
    concepts = sorted(idf)
    col = {c: j for j, c in enumerate(concepts)}
    ranked: dict[str, dict[str, list]] = {}
    topic_ids = [t for t in corpus.topics if topic_head.get(t) or topic_body.get(t)]
    if not topic_ids:
        return {}
    tvec = [
        _tfidf(topic_head.get(t, Counter()) + topic_body.get(t, Counter()), idf) for t in topic_ids
    ]
    tv = _matrix([{col[c]: v for c, v in x.items() if c in col} for x in tvec], len(col))
    th = _matrix(
        [{col[c]: idf[c] for c in topic_head.get(t, ()) if c in col} for t in topic_ids], len(col)
    )
    head_total = th.sum(axis=1)
    vec_total = tv.sum(axis=1)
    for doc in corpus.law_docs():
        law_ids = [x for x in vecs if x.startswith(doc + "/") and x in corpus.provs]
        if not law_ids:
            continue
        lv = _matrix(
            [{col[c]: v for c, v in vecs[x].items() if c in col} for x in law_ids], len(col)
        )
        lh = _matrix(
            [
                dict.fromkeys((col[c] for c in headings.get(x, ()) if c in col), 1.0)
                for x in law_ids
            ],
            len(col),
        )
        lhint = _matrix(
            [{col[c]: 1.0 for c in col if x.split("/", 1)[1] in hints.get(c, ())} for x in law_ids],
            len(col),
        )
        cosine = tv @ lv.T
        title = np.divide(
            th @ lh.T, head_total[:, None], out=np.zeros_like(cosine), where=head_total[:, None] > 0
        )
        hint = np.divide(
            tv @ lhint.T,
            vec_total[:, None],
            out=np.zeros_like(cosine),
            where=vec_total[:, None] > 0,
        )
        score = W_TITLE * title + W_BODY * cosine + W_HINT * hint
        numbers = np.array([_law_number(x) for x in law_ids])
        for i, topic_id in enumerate(topic_ids):
            order = np.lexsort((numbers, -score[i]))[:TOP]
            ranked.setdefault(doc, {})[topic_id] = [
                (
                    float(score[i, j]),
                    law_ids[j],
                    _evidence(
                        topic_head.get(topic_id, Counter()),
                        tvec[i],
                        vecs[law_ids[j]],
                        headings.get(law_ids[j], Counter()),
                        hints,
                        law_ids[j],
                        cosine[i, j],
                        title[i, j],
                        hint[i, j],
                    ),
                )
                for j in order
            ]
    out: dict[str, list[Row]] = {}
    for doc, by_topic in ranked.items():
        outside = _outside_the_laws(corpus, by_topic)
        rows = out.setdefault(doc, [])
        for topic_id, scored in by_topic.items():
            if topic_id in outside:
                score, law_id, ev = scored[0]
                ev["why"] = outside[topic_id]
                rows.append(Row(topic_id, law_id, "topic", round(score, 4), 1, ev, "none"))
                continue
            if scored[0][0] < NONE_BELOW:
                score, law_id, ev = scored[0]
                ev["why"] = (
                    f"No law regulates this topic reliably: the closest, Law "
                    f"{law_id.split('/')[1]}, scores only {score:.2f}."
                )
                rows.append(Row(topic_id, law_id, "topic", round(score, 4), 1, ev, "none"))
                continue
            for rank, (score, law_id, ev) in enumerate(scored[:TOP], start=1):
                ev["rank"] = rank
                rows.append(Row(topic_id, law_id, "topic", round(score, 4), 0, ev, "topic"))
    return out


def _part(corpus: Corpus, topic_id: str) -> str:
    """The top-level part of the book a topic belongs to."""
    root, parent = topic_id, corpus.topics[topic_id].parent
    while parent in corpus.topics:
        root, parent = parent, corpus.topics[parent].parent
    return root


def _outside_the_laws(corpus: Corpus, by_topic: dict[str, list]) -> dict[str, str]:
    """Topics of the parts of the book that are not a code of the laws, with the reason.

    A part that states rules follows the order of the laws, as every code of the game
    does (cards, shuffle, deal, auction, play, revokes, claims, scoring): the numbers of
    its topics' best laws rise with the topics' order. A part whose best laws show no
    significant rank correlation with its order (Kendall's tau, p >= :data:`PART_P`) is
    advice, such as a bidding system, which the laws do not regulate.
    """
    parts: dict[str, list[str]] = {}
    for topic_id in corpus.topics:
        if topic_id in by_topic:
            parts.setdefault(_part(corpus, topic_id), []).append(topic_id)
    out = {}
    for part, topics in parts.items():
        if len(topics) < PART_MIN:
            continue
        best = [_law_number(by_topic[t][0][1]) for t in topics]
        tau, p = kendall(best)
        if tau > 0 and p < PART_P:
            continue
        title = corpus.topics[part].title
        why = (
            f"No law regulates this: the part of the book it belongs to ({title}) does "
            f"not follow the order of the laws (Kendall's tau {tau:.2f}, p = {p:.2f}) as "
            f"a code of the game does: it gives advice the laws leave to players."
        )
        out.update(dict.fromkeys(topics, why))
    return out


def kendall(values: list[int]) -> tuple[float, float]:
    """Kendall's tau-b between the order of ``values`` and the values themselves, and
    its two-sided p-value (normal approximation with the tie correction; the order has
    no ties)."""
    n = len(values)
    x = np.asarray(values, dtype=float)
    diff = np.sign(x[None, :] - x[:, None])[np.triu_indices(n, 1)]
    s = float(diff.sum())
    pairs = n * (n - 1) / 2
    ties = Counter(values).values()
    tied = sum(t * (t - 1) / 2 for t in ties)
    if pairs == 0 or pairs == tied:
        return 0.0, 1.0
    tau = s / math.sqrt(pairs * (pairs - tied))
    var = (n * (n - 1) * (2 * n + 5) - sum(t * (t - 1) * (2 * t + 5) for t in ties)) / 18
    z = s / math.sqrt(var) if var > 0 else 0.0
    return tau, math.erfc(abs(z) / math.sqrt(2))


def _evidence(head, vec, lvec, law_heads, hints, law_id, cosine, title, hint) -> dict:
    """The concepts behind one topic-law score, and a sentence saying so."""
    shared = {c: vec[c] * lvec[c] for c in vec.keys() & lvec.keys()}
    head_hit = sorted(c for c in head if c in law_heads)
    law = law_id.split("/", 1)[1]
    hinted = sorted(c for c in vec if law in hints.get(c, ()))
    top = sorted(shared, key=lambda c: (-shared[c], c))[:6]
    evidence = {
        "law": law,
        "concepts": top,
        "heading_concepts": head_hit,
        "hinted_by": hinted,
        "cosine": round(float(cosine), 3),
        "heading": round(float(title), 3),
        "hint": round(float(hint), 3),
    }
    parts = []
    if head_hit:
        named = ", ".join(head_hit)
        parts.append(f"the topic's heading names {named}, as the law's headings do")
    if top:
        parts.append("shared concepts: " + ", ".join(top))
    if hinted:
        parts.append("the glossary places " + ", ".join(hinted) + f" in Law {law}")
    evidence["why"] = "; ".join(parts) + "." if parts else "Weak match."
    return evidence


def _matrix(rows: list[dict[int, float]], width: int) -> np.ndarray:
    out = np.zeros((len(rows), width))
    for i, row in enumerate(rows):
        for j, v in row.items():
            out[i, j] = v
    return out


def _pool(corpus, own, heads, equivalents) -> tuple[dict[str, Counter], dict[str, Counter]]:
    """Each law's profile and headings pooled with those of its equivalents."""
    profiles: dict[str, Counter] = {}
    headings: dict[str, Counter] = {}
    for doc in corpus.law_docs():
        for label, nid in corpus.by_label[doc].items():
            if corpus.provs[nid].kind != "law" or not WBF_LAW.match(label):
                continue
            prof, head = Counter(own.get(nid, Counter())), Counter(heads.get(nid, Counter()))
            for other in equivalents.get(nid, ()):
                prof.update(own.get(other, Counter()))
                head.update(heads.get(other, Counter()))
            if prof:
                profiles[nid] = prof
                headings[nid] = head
    return profiles, headings


def _law_number(law_id: str) -> int:
    m = re.match(r"\d+", law_id.split("/", 1)[1])
    return int(m.group(0)) if m else 0


def _hints(con: sqlite3.Connection) -> dict[str, set[str]]:
    if not has_table(con, "concepts"):
        return {}
    out = {}
    for cid, laws in con.execute("SELECT id, laws FROM concepts"):
        try:
            out[cid] = {str(x) for x in json.loads(laws or "[]")}
        except ValueError:
            continue
    return out


def _idf(profiles: dict[str, Counter]) -> dict[str, float]:
    df = Counter(c for bag in profiles.values() for c in bag)
    n = len(profiles) or 1
    return {c: math.log(1 + n / k) for c, k in df.items()}


def _tfidf(bag: Counter, idf: dict[str, float]) -> dict[str, float]:
    vec = {c: (1 + math.log(k)) * idf.get(c, 0.0) for c, k in bag.items()}
    norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
    return {c: v / norm for c, v in vec.items()}
