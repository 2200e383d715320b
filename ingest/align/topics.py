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
    law_of_node = {p.id: f"{p.doc}/{p.law}" for p in corpus.provs.values()
                   if WBF_LAW.match(p.law or "")}  # fmt: skip
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
    out: dict[str, list[Row]] = {}
    ranked: dict[str, dict[str, list]] = {}
    for topic_id in corpus.topics:
        head, body = topic_head.get(topic_id, Counter()), topic_body.get(topic_id, Counter())
        if not head and not body:
            continue
        vec = _tfidf(head + body, idf)
        for doc in corpus.law_docs():
            scored = []
            for law_id, lvec in vecs.items():
                if not law_id.startswith(doc + "/") or law_id not in corpus.provs:
                    continue
                scored.append(_score(head, vec, lvec, headings.get(law_id, Counter()),
                                     hints, idf, law_id))  # fmt: skip
            if scored:
                scored.sort(key=lambda s: (-s[0], _law_number(s[1])))
                ranked.setdefault(doc, {})[topic_id] = scored
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
                ev["why"] = (f"No law regulates this topic reliably: the closest, Law "
                             f"{law_id.split('/')[1]}, scores only {score:.2f}.")  # fmt: skip
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
    from scipy.stats import kendalltau

    parts: dict[str, list[str]] = {}
    for topic_id in corpus.topics:
        if topic_id in by_topic:
            parts.setdefault(_part(corpus, topic_id), []).append(topic_id)
    out = {}
    for part, topics in parts.items():
        if len(topics) < PART_MIN:
            continue
        best = [_law_number(by_topic[t][0][1]) for t in topics]
        tau, p = kendalltau(range(len(best)), best)
        if tau > 0 and p < PART_P:
            continue
        title = corpus.topics[part].title
        why = (f"No law regulates this: the part of the book it belongs to ({title}) does "
               f"not follow the order of the laws (Kendall's tau {tau:.2f}, p = {p:.2f}) as "
               f"a code of the game does: it gives advice the laws leave to players.")  # fmt: skip
        out.update(dict.fromkeys(topics, why))
    return out


def _score(head, vec, lvec, law_heads, hints, idf, law_id) -> tuple[float, str, dict]:
    shared = {c: vec[c] * lvec[c] for c in vec.keys() & lvec.keys()}
    cosine = sum(shared.values())
    head_total = sum(idf.get(c, 0.0) for c in head)
    head_hit = sorted(c for c in head if c in law_heads)
    title = sum(idf.get(c, 0.0) for c in head_hit) / head_total if head_total else 0.0
    law = law_id.split("/", 1)[1]
    hinted = sorted(c for c in vec if law in hints.get(c, ()))
    hint = sum(vec[c] for c in hinted) / (sum(vec.values()) or 1.0)
    score = W_TITLE * title + W_BODY * cosine + W_HINT * hint
    top = sorted(shared, key=lambda c: -shared[c])[:6]
    evidence = {
        "law": law, "concepts": top, "heading_concepts": head_hit, "hinted_by": hinted,
        "cosine": round(cosine, 3), "heading": round(title, 3), "hint": round(hint, 3),
    }  # fmt: skip
    parts = []
    if head_hit:
        named = ", ".join(head_hit)
        parts.append(f"the topic's heading names {named}, as the law's headings do")
    if top:
        parts.append("shared concepts: " + ", ".join(top))
    if hinted:
        parts.append("the glossary places " + ", ".join(hinted) + f" in Law {law}")
    evidence["why"] = "; ".join(parts) + "." if parts else "Weak match."
    return score, law_id, evidence


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
