"""Estonian topics aligned to WBF laws by meaning (glossary concepts).

The et-1930s book has no law numbers, so its topics meet the laws only through
the glossary: each topic's concepts (``concept_hits`` in its title and text) are
compared with each law's concept profile, pooled over every WBF book (a law's
hits in fi-1997, el-2017, fi-2007 and sv-2007 together, so one translation's
wording does not decide), weighted by TF-IDF over laws. The glossary's ``laws``
hints (revoke -> Laws 61-64) add a second score: the TF-IDF weight of the topic's
hinted concepts, so a specific concept (insufficient bid) outweighs a common one
(bid). Rows point at the law node of :data:`TARGET_DOC`, the complete current
edition; the evidence names the concepts.
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

TARGET_DOC = "el-2017"
"""The WBF book whose law nodes topic rows point at."""
TOP = 5
"""Candidate laws kept per topic."""
MIN_SCORE = 0.05
HINT_WEIGHT = 0.4
"""Share of the score that comes from the glossary's law hints (the rest: cosine)."""
WBF_LAW = re.compile(r"^\d+$")


def topic_rows(con: sqlite3.Connection, corpus: Corpus) -> dict[str, list[Row]]:
    """Ranked candidate laws per topic, grouped by the law document.

    Empty when the glossary stage has left no concept hits, or there is no topic.
    """
    if not corpus.topics or not has_table(con, "concept_hits"):
        return {}
    target = TARGET_DOC if TARGET_DOC in corpus.by_label else next(iter(corpus.by_label), None)
    if target is None:
        return {}
    topic_docs = {t.doc for t in corpus.topics.values()}
    node_law = {p.id: p.law for p in corpus.provs.values() if WBF_LAW.match(p.law or "")}
    laws: dict[str, Counter] = {}
    topics: dict[str, Counter] = {}
    for concept, node, doc in con.execute("SELECT concept, node, doc FROM concept_hits"):
        if doc in topic_docs and node in corpus.topics:
            topics.setdefault(node, Counter())[concept] += 1
        elif node in node_law:
            laws.setdefault(node_law[node], Counter())[concept] += 1
    hints = _hints(con)
    idf = _idf(laws)
    law_vecs = {law: _tfidf(c, idf) for law, c in laws.items()}
    rows = []
    for topic_id, bag in topics.items():
        vec = _tfidf(bag, idf)
        scored = []
        for law, lvec in law_vecs.items():
            node = corpus.by_label[target].get(law)
            if node is None:
                continue
            shared = {c: vec[c] * lvec[c] for c in vec.keys() & lvec.keys()}
            cosine = sum(shared.values())
            hinted = sorted(c for c in bag if law in hints.get(c, ()))
            hint = sum(vec[c] for c in hinted) / (sum(vec.values()) or 1.0)
            score = (1 - HINT_WEIGHT) * cosine + HINT_WEIGHT * hint
            if score < MIN_SCORE:
                continue
            top = sorted(shared, key=lambda c: -shared[c])[:6]
            evidence = {"law": law, "concepts": top, "hinted_by": hinted,
                        "cosine": round(cosine, 3), "hint": round(hint, 3)}  # fmt: skip
            scored.append((score, law, node, evidence))
        scored.sort(key=lambda x: (-x[0], int(x[1])))
        for rank, (score, _law, node, evidence) in enumerate(scored[:TOP], start=1):
            evidence["rank"] = rank
            rows.append(Row(topic_id, node, "topic", round(score, 4), 0, evidence, "topic"))
    return {target: rows} if rows else {}


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
