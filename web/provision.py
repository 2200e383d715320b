"""What the provision page shows, gathered from the store in a few queries."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict

from lawgraph.ingest.model import decode_attrs
from lawgraph.ingest.nlp import fold
from lawgraph.store import align, divergences, glossary
from lawgraph.store.features import feature
from lawgraph.store.references import cited_by, cites, subtree_rows, unresolved
from lawgraph.store.title_only import title_only, title_only_law

from .templating import LAW_KINDS, display_label


def _row(r: sqlite3.Row) -> dict:
    d = {k: r[k] for k in r.keys()}  # noqa: SIM118
    d["attrs"] = decode_attrs(d["attrs"])
    return d


def subtree(con: sqlite3.Connection, node_id: str) -> list[dict]:
    """The node and everything under it, in document order, each with its ``depth``."""
    return [_row(r) for r in subtree_rows(con, node_id)]


def _in(ids: list[str]) -> str:
    return ",".join("?" * len(ids))


def tree(con: sqlite3.Connection, node_id: str) -> tuple[dict, list[dict], list[str]]:
    """The provision as a nested tree (``children`` lists), its footnotes, its subtree ids.

    Each node carries ``cites`` (``{"text": [...], "title": [...]}``, the citation spans
    of its own text and title) for :func:`web.markup.linked_text`.
    """
    rows = subtree(con, node_id)
    ids = [r["id"] for r in rows]
    cites: dict[str, dict[str, list]] = defaultdict(lambda: {"text": [], "title": []})
    for c in con.execute(
        f"SELECT source, target, reason, raw, start, end, field FROM citations "
        f"WHERE source IN ({_in(ids)}) ORDER BY rowid",
        ids,
    ):
        cites[c["source"]][c["field"]].append(dict(c))
    listed = [f"{r['doc']}/{t}" for r in rows for t in r["attrs"].get("targets", [])]
    # each listed node's name: a law label as it is, a definition or preface by its title
    known = (
        {
            x["id"]: display_label(dict(x))
            for x in con.execute(
                f"SELECT id, label, kind, title FROM nodes WHERE id IN ({_in(listed)})", listed
            )
        }
        if listed
        else {}
    )
    by_id = {}
    footnotes = []
    headings: dict[str, dict[str, str]] = {}  # per book, read once: index headings
    for r in rows:
        r["cites"] = cites[r["id"]]
        # an index entry may name a label its book lacks: shown, but not as a dead link
        r["targets"] = [
            (known[f"{r['doc']}/{t}"], f"{r['doc']}/{t}")
            if f"{r['doc']}/{t}" in known
            else (t, None)
            for t in r["attrs"].get("targets", [])
        ]
        r["see"] = _see(con, r, headings) if r["kind"] == "index_term" else []
        r["children"] = []
        by_id[r["id"]] = r
        if r["kind"] == "footnote" and r["depth"] > 0:
            footnotes.append(r)
        elif r["parent"] in by_id and r["depth"] > 0:
            by_id[r["parent"]]["children"].append(r)
    return by_id[node_id], footnotes, ids


def _see(
    con: sqlite3.Connection, entry: dict, headings: dict[str, dict[str, str]]
) -> list[tuple[str, str | None]]:
    """An index entry's cross-references ("see Revoke"): each with the entry of its book
    that has that heading, if one has (None: shown, not linked); ``headings``: each
    book's headings, read once per page."""
    see = entry["attrs"].get("see", [])
    if not see:
        return []
    if entry["doc"] not in headings:
        book: dict[str, str] = {}
        for nid, title in con.execute(
            "SELECT id, title FROM nodes WHERE doc = ? AND kind = 'index_term' ORDER BY ord",
            (entry["doc"],),
        ):
            book.setdefault(fold(title or "").casefold(), nid)
        headings[entry["doc"]] = book
    book = headings[entry["doc"]]

    def entry_of(term: str) -> str | None:
        plain = fold(term).casefold()
        if plain in book:
            return book[plain]
        # a heading the term opens ("Επικοινωνία": "ΕΠΙΚΟΙΝΩΝΙΑ, ΡΥΘΜΟΣ ΚΑΙ ΠΑΡΑΠΛΑΝΗΣΗ")
        return next(
            (i for h, i in book.items() if "–" not in h and h.startswith(plain + ",")), None
        )

    return [(term, entry_of(term)) for term in see]


def breadcrumbs(con: sqlite3.Connection, node: dict) -> list[dict]:
    """The node's ancestors, outermost first."""
    out: list[dict] = []
    parent = node["parent"]
    while parent:
        row = con.execute(
            "SELECT id, doc, label, kind, title, parent FROM nodes WHERE id = ?", (parent,)
        ).fetchone()
        if row is None:
            break
        out.insert(0, dict(row))
        parent = row["parent"]
    return out


def neighbours(con: sqlite3.Connection, node: dict) -> tuple[dict | None, dict | None]:
    """The previous and next node in the same document, in reading order: of a provision,
    the nearest before and after it of its own level or an outer one (after 9A2(b)(2)
    comes 9B, not the next sub-item of the book, in Law 25; a law's neighbours are laws,
    as its page holds its parts); of any other node, the nearest of its kind."""
    kind = node["kind"]
    kinds = LAW_KINDS[: LAW_KINDS.index(kind) + 1] if kind in LAW_KINDS else (kind,)
    sql = (
        "SELECT id, doc, label, kind, title FROM nodes WHERE doc = ? AND kind IN ({}) "
        "AND ord {} ? ORDER BY ord {} LIMIT 1"
    )
    marks = ",".join("?" * len(kinds))
    args = (node["doc"], *kinds, node["ord"])
    prev = con.execute(sql.format(marks, "<", "DESC"), args).fetchone()
    nxt = con.execute(sql.format(marks, ">", "ASC"), args).fetchone()
    return (dict(prev) if prev else None), (dict(nxt) if nxt else None)


def equivalents(con: sqlite3.Connection, node_id: str) -> list[dict] | None:
    """Equivalent provisions in the other documents (None while alignment is not built)."""
    fn = feature(con, align.aligned)
    if fn is None:
        return None
    out = []
    for hit in fn(con, node_id):
        row = con.execute(
            "SELECT n.title, n.text, n.kind, d.language FROM nodes n "
            "JOIN documents d ON d.id = n.doc WHERE n.id = ?",
            (hit["id"],),
        ).fetchone()
        if row is not None:
            out.append(hit | dict(row))
    return out


RELATION_WORDS = {
    "same": "equivalent",
    "renumbered": "equivalent, renumbered",
    "moved": "equivalent, moved to another law",
    "split": "part of it (split over several provisions)",
    "merged": "covers it together with others (merged)",
    "partial": "same label, rewritten or replaced: not an equivalent",
    "unconfirmed": "same label, not confirmed as the equivalent: the rule may have been rewritten",
    "law": "the same law, its text divided differently: not an equivalent of the text",
}
SAME_EDITION_WORDS = {
    "partial": "same label, but the two translations differ here: not confirmed as equivalent",
    "unconfirmed": "same label, but the two translations differ here: not confirmed as equivalent",
}
"""What a relation means between two translations of one edition (no rule was rewritten)."""
LAW_PARTIAL_WORDS = (
    "same number, its provisions rearranged, rewritten or replaced: not an equivalent as a whole"
)
"""A law whose number two editions share but whose content agrees only in part (1997 and
2007 Law 72: much of 1997 72A now stands in Laws 9, 10 and 23); each provision's own
equivalents say where its rule is now."""
POINTS_AWAY_WORDS = "same label, but one of them only refers elsewhere: not shown as the equivalent"
"""A label twin that one side only points away from (its rule may have moved, not been
rewritten: the evidence's ``points_away``)."""


def relation_words(
    standing: str, relation: str, same_edition: bool, kind: str = "", evidence: dict | None = None
) -> str:
    """How two provisions relate, in words (:data:`RELATION_WORDS`, or
    :data:`SAME_EDITION_WORDS` for two translations of one edition); of a label twin of two
    editions, one of which only points away (:data:`POINTS_AWAY_WORDS`), or two laws
    (``kind``) whose provisions were rearranged (:data:`LAW_PARTIAL_WORDS`), what it is."""
    if standing == "partial" and (evidence or {}).get("points_away"):
        return POINTS_AWAY_WORDS
    if standing == "partial" and kind == "law" and not same_edition:
        return LAW_PARTIAL_WORDS
    words = RELATION_WORDS | (SAME_EDITION_WORDS if same_edition else {})
    return words.get(standing, relation)


def equivalence_view(con: sqlite3.Connection, node: dict) -> list[dict] | None:
    """Per other document: the equivalent(s) shown, or why there is no reliable one.

    Each item: ``{"doc", "language", "shown": [hit...], "none": hit or None,
    "rejected": [hit...], "title_only": law or None, "same_term": [definition...]}``;
    ``same_term`` lists, for a definition, the definitions of the same glossary term in
    that document that no row shows (:func:`store.glossary.same_term_definitions`); a hit
    is an alignment row
    (:func:`ingest.align.aligned`) with the other node's title, text, kind and language,
    and ``words`` (the relation in words); ``title_only`` is the law of the same label
    that the other book gives only by its title (:func:`store.title_only.title_only_law`),
    when no row shows an equivalent there. None while alignment is not built.
    """
    hits = equivalents(con, node["id"])
    if hits is None:
        return None
    docs = [
        dict(r)
        for r in con.execute("SELECT id, language, edition, stats FROM documents ORDER BY ord")
    ]
    edition = next((d["edition"] for d in docs if d["id"] == node["doc"]), None)
    defines = feature(con, glossary.same_term_definitions)
    same_term = defines(con, node["id"]) if defines and node["kind"] == "definition" else []
    out = []
    for d in docs:
        if d["id"] == node["doc"]:
            continue
        if json.loads(d["stats"]).get("topics"):
            continue  # a book of topics, not provisions: its topics are listed separately
        mine = [h for h in hits if h["doc"] == d["id"]]
        same = d["edition"] == edition
        shown = [
            h
            | {
                "words": relation_words(
                    h["standing"], h["relation"], same, h.get("kind", ""), h.get("evidence")
                )
            }
            for h in mine
            if not h["flagged"] and h["relation"] != "topic"
        ]
        rejected = [h for h in mine if h["flagged"]]
        shown_ids = {h["id"] for h in shown}
        out.append(
            {
                "doc": d["id"],
                "language": d["language"],
                "shown": shown,
                "none": rejected[0] if rejected and not shown else None,
                "rejected": rejected,
                # a definition of the same glossary term, where no row shows it
                "same_term": [
                    t for t in same_term if t["doc"] == d["id"] and t["id"] not in shown_ids
                ],
                # nothing to match in a law the other book gives only by its title
                "title_only": title_only_law(con, d["id"], node["label"])
                if not shown and node["kind"] in LAW_KINDS
                else None,
                "parts": [],
                "within": None,
            }
        )
    lacking = [v for v in out if not v["shown"] and not v["title_only"] and not v["same_term"]]
    if lacking and node["kind"] in LAW_KINDS:
        for part, hit in _parts_equivalents(con, node["id"], {v["doc"] for v in lacking}):
            next(v for v in lacking if v["doc"] == hit["doc"])["parts"].append(
                {"part": part, "eq": hit}
            )
        for v in lacking:
            if not v["parts"]:
                v["within"] = _ancestor_equivalent(con, node, v["doc"])
    return out


def _ancestor_equivalent(con: sqlite3.Connection, node: dict, doc: str) -> dict | None:
    """For a provision without an equivalent in ``doc``: its nearest enclosing provision
    (up to its law) that has one there, and that equivalent (``{"ancestor", "eq"}``), so
    the page can say where to look for the rule (sv-2007 16B1 lies in 16B, which is
    fi-1997 16A); None if none has."""
    fn = feature(con, align.aligned)
    parent = node.get("parent")
    while fn is not None and parent:
        row = con.execute(
            "SELECT id, label, kind, parent FROM nodes WHERE id = ?", (parent,)
        ).fetchone()
        if row is None or row[2] not in LAW_KINDS:
            return None
        for hit in fn(con, row[0]):
            if hit["doc"] == doc and not hit["flagged"] and hit["relation"] in align.EQUIVALENT:
                return {"ancestor": {"id": row[0], "label": row[1]}, "eq": hit}
        if row[2] == "law":
            return None
        parent = row[3]
    return None


PARTS_SHOWN = 60
"""Sub-provisions looked at for :func:`_parts_equivalents` (a law's, in document order)."""


def _parts_equivalents(
    con: sqlite3.Connection, node_id: str, docs: set[str]
) -> list[tuple[dict, dict]]:
    """For a provision without an equivalent of its own in ``docs``: each sub-provision's
    equivalent there (``(part, hit)``, in document order), so a provision whose text lies
    in its parts (el-2017 73E, whose 73E1 is sv-2007 73E) says where they went."""
    fn = feature(con, align.aligned)
    if fn is None:
        return []
    parts = con.execute(
        """
        WITH RECURSIVE below(id) AS (
            SELECT id FROM nodes WHERE parent = ?
            UNION ALL SELECT n.id FROM nodes n JOIN below b ON n.parent = b.id
        )
        SELECT n.id, n.label, n.title FROM nodes n JOIN below USING (id)
        WHERE n.kind IN ('section', 'subsection', 'item', 'subitem')
        ORDER BY n.ord LIMIT ?
        """,
        (node_id, PARTS_SHOWN),
    ).fetchall()
    out = []
    for pid, label, title in parts:
        for hit in fn(con, pid):
            if hit["doc"] in docs and not hit["flagged"] and hit["relation"] in align.EQUIVALENT:
                out.append(({"id": pid, "label": label, "title": title}, hit))
    return out


def topics_for(con: sqlite3.Connection, node: dict) -> list[dict]:
    """Estonian topics whose candidate laws include this provision's law (best first)."""
    from lawgraph.store.align import law_topics

    if not node.get("law"):
        return []
    return law_topics(con, [f"{node['doc']}/{node['law']}"])


def topic_view(con: sqlite3.Connection, node: dict) -> list[dict]:
    """For an Estonian topic: per law book, its candidate laws or why there is none."""
    from lawgraph.store.align import topic_candidates

    cands = topic_candidates(con, node["id"])
    nones = topic_candidates(con, node["id"], none=True)
    out = []
    for (doc,) in con.execute("SELECT id FROM documents ORDER BY ord"):
        mine = [c | _node_brief(con, c["id"]) for c in cands if c["doc"] == doc]
        none = next((c for c in nones if c["doc"] == doc), None)
        if mine or none:
            out.append({"doc": doc, "candidates": mine, "none": none})
    return out


def _node_brief(con: sqlite3.Connection, node_id: str) -> dict:
    row = con.execute("SELECT title, kind FROM nodes WHERE id = ?", (node_id,)).fetchone()
    return {"title": row[0], "kind": row[1]} if row else {}


def node_divergences(con: sqlite3.Connection, node_id: str) -> list[dict] | None:
    """Divergences recorded for this provision (None while they are not built)."""
    fn = feature(con, divergences.node_divergences)
    return None if fn is None else fn(con, node_id)


ALIGNED_KINDS = (*LAW_KINDS, "definition", "topic")
"""Kinds of node the alignment lines up across the books (no index entry, footnote,
chapter heading or preface)."""


def national_code(con: sqlite3.Connection, node: dict) -> str | None:
    """For a node of a national supplement: the country code its law names (``SE``,
    ``FI``), or ``""`` if none does; None for a node of the Laws themselves."""
    if not node["attrs"].get("supplement"):
        return None
    code = node["attrs"].get("national")
    if not code and node.get("law"):
        row = con.execute(
            "SELECT attrs FROM nodes WHERE doc = ? AND kind = 'law' AND label = ?",
            (node["doc"], node["law"]),
        ).fetchone()
        code = decode_attrs(row[0]).get("national") if row else None
    return code or ""


def provision_view(con: sqlite3.Connection, node_id: str) -> dict:
    """Everything the provision page shows for ``node_id`` (an existing node id)."""
    root, footnotes, inside = tree(con, node_id)
    prev, nxt = neighbours(con, root)
    return {
        "n": root,
        "national": national_code(con, root),
        "aligned_kind": root["kind"] in ALIGNED_KINDS,
        "footnotes": footnotes,
        "breadcrumbs": breadcrumbs(con, root),
        "cites": cites(con, node_id, inside),
        "unresolved": unresolved(con, inside),
        "cited_by": cited_by(con, node_id, inside),
        "prev": prev,
        "next": nxt,
        "equivalents": equivalents(con, node_id),
        "versions": equivalence_view(con, root) if root["kind"] != "topic" else [],
        "topics": topics_for(con, root) if root["kind"] in LAW_KINDS else [],
        "topic_laws": topic_view(con, root) if root["kind"] == "topic" else [],
        **_divergences(node_divergences(con, node_id)),
        "title_only": (
            title_only(con, root["doc"], root["label"]) if root["kind"] == "law" else None
        ),
    }


def _divergences(found: list[dict] | None) -> dict:
    """The page's divergences, and apart the quiet ones (a glossary term found on one side
    only, mostly a paraphrase), which the divergence report too leaves out unless asked."""
    if found is None:
        return {"divergences": None, "quiet_divergences": []}
    quiet = set(divergences.QUIET_TYPES)
    return {
        "divergences": [d for d in found if d["type"] not in quiet],
        "quiet_divergences": [d for d in found if d["type"] in quiet],
    }
