"""Compare one provision across every version: the versions side by side, their
sub-provisions lined up row by row, and the divergences found between them.

A version is the node with the same label in a document, unless the content alignment
says another provision of that document is the real counterpart (a renumbering
between editions): then that one is shown, with ``via`` saying which and why.

The comparison of every law in every document is made once at ingest
(:func:`compare_stage`, table ``compare_tables``); the store-reading layer
(:mod:`store.compare`) reads it, and lines up other selections of documents with
:func:`compare_label`.

Errors: :class:`CompareError` (a ``ValueError``) for bad input (not a label, unknown
document: HTTP 400) and :class:`ProvisionNotFound` (also a ``LookupError``) when no
requested document has the provision (HTTP 404).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence

from .align import EQUIVALENT, aligned, equivalent, law_topics, pair_standing, sentence_pairs
from .align.diverge import divergences_by_node, node_divergences
from .align.tmx import standing
from .model import decode_attrs
from .store import TwoSteps, has_table, title_only_law_id

PROVISION_KINDS = ("law", "section", "subsection", "item", "subitem")
LINE_UP = ("same", "renumbered", "moved", "partial")
"""Alignment relations that put two sub-provisions in one row (a ``partial`` pair, a
rewritten rule, shares its row and its divergences show what changed)."""
TABLE = "compare_tables"
"""Precomputed comparisons of each law in every document (written by :func:`compare_stage`)."""
CELL_ATTRS = ("greek_note", "supplement", "national", "footnotes")
NOT_SHOWN = ("partial", "unconfirmed")
"""Standings of a cell that sits beside the reference (in its row, or as the version of
the provision) without being shown as its equivalent: a label twin rewritten, or one
not confirmed (:func:`.align.tmx.standing`). Such a cell says so (``cell["standing"]``)."""
FLAGGED = "same label, but not the same rule: no reliable equivalent of the reference here"


class CompareError(ValueError):
    """The request is malformed: not a provision label, or an unknown document."""


class ProvisionNotFound(CompareError, LookupError):
    """No document (of those asked for) has the provision."""


def _documents(con: sqlite3.Connection) -> list[tuple[str, str]]:
    """Every document's id and edition, in manifest order."""
    return [(r[0], r[1]) for r in con.execute("SELECT id, edition FROM documents ORDER BY ord")]


def _cell(row: sqlite3.Row) -> dict:
    attrs: dict[str, object] = dict(decode_attrs(row["attrs"]))
    keep = {k: attrs[k] for k in CELL_ATTRS if k in attrs}
    return {
        "id": row["id"],
        "doc": row["doc"],
        "label": row["label"],
        "kind": row["kind"],
        "title": row["title"],
        "text": row["text"],
        "attrs": keep,
    }


def _node(con: sqlite3.Connection, node_id: str) -> sqlite3.Row | None:
    return con.execute("SELECT * FROM nodes WHERE id = ?", (node_id,)).fetchone()


def _has_text(con: sqlite3.Connection, row: sqlite3.Row) -> bool:
    law = _node(con, f"{row['doc']}/{row['law']}") if row["law"] else row
    return law is None or decode_attrs(law["attrs"]).get("has_text", True) not in (False, 0)


def _descendants(con: sqlite3.Connection, node_id: str) -> list[tuple[sqlite3.Row, int]]:
    """Every provision under ``node_id`` in document order, with its depth (1 = child)."""
    out: list[tuple[sqlite3.Row, int]] = []

    def walk(nid: str, depth: int) -> None:
        for r in con.execute("SELECT * FROM nodes WHERE parent = ? ORDER BY ord", (nid,)):
            if r["kind"] in PROVISION_KINDS:
                out.append((r, depth))
                walk(r["id"], depth + 1)

    walk(node_id, 1)
    return out


def _year(edition: str) -> int:
    digits = "".join(ch for ch in edition[:4] if ch.isdigit())
    return int(digits.ljust(4, "0")) if digits else 0


NO_TEXT = "no text in this book"
"""Why a requested book shows no version: it gives only the law's title."""


def _versions(con, label, docs, requested) -> tuple[dict, str | None]:
    """Each document's version of the provision (or None with a reason).

    The reference is the provision with this label in the newest edition that has it:
    the label a director types is read as today's numbering. Another document shows its
    own provision of that label unless the content alignment contradicts it; then it shows
    the reference's equivalent, with ``via`` saying why.
    """
    editions = dict(_documents(con))
    direct = {}
    for d in docs:
        row = _node(con, f"{d}/{label}")
        if row is not None and row["kind"] in PROVISION_KINDS:
            direct[d] = row
    with_text = {d: r for d, r in direct.items() if _has_text(con, r)}
    newest = sorted(with_text.values(), key=lambda r: -_year(editions.get(r["doc"], "")))
    ref = newest[0]["id"] if newest else None
    if ref is None:
        for d, _ in _documents(con):
            row = _node(con, f"{d}/{label}")
            if row is not None and row["kind"] in PROVISION_KINDS and _has_text(con, row):
                ref = row["id"]
                break
    ref_links = aligned(con, ref) if ref else []
    links = {x["id"]: x for x in ref_links}
    versions: dict[str, dict | None] = {}
    for d in docs:
        row, via = with_text.get(d), None
        if ref and not ref.startswith(f"{d}/"):
            eq = _equivalent_in(ref_links, d)
            eq_row = _node(con, eq) if eq else None
            if eq_row is not None and not _has_text(con, eq_row):
                eq = None
            if eq and (row is None or eq != row["id"]):
                link = links.get(eq, {})
                via = {
                    "from": ref,
                    "method": link.get("method"),
                    "score": link.get("score"),
                    "instead_of": row["id"] if row is not None else None,
                    "reason": f"the content alignment pairs {ref} with {eq}",
                    "evidence": link.get("evidence"),
                }
                row = eq_row
            elif row is not None and (
                links.get(row["id"], {}).get("flagged") or (links and row["id"] not in links)
            ):
                own = equivalent(con, row["id"], ref.split("/", 1)[0])
                why = (links.get(row["id"], {}).get("evidence") or {}).get("why")
                via = {
                    "from": ref,
                    "flagged": True,
                    "reason": FLAGGED,
                    "why": why,
                    "counterpart": own,
                }
                if own:
                    rel = next(
                        (x["relation"] for x in aligned(con, row["id"]) if x["id"] == own), ""
                    )
                    via["reason"] = (
                        f"{row['id']} is not the same rule as {ref}; its "
                        f"equivalent there is ({rel}):"
                    )
        if row is not None:
            cell = _cell(row) | ({"via": via} if via else {})
            st = links.get(row["id"], {}).get("standing") if ref and not via else None
            if ref and st in NOT_SHOWN:
                cell["standing"] = {"to": ref, "label": ref.split("/", 1)[1], "relation": st}
            versions[d] = cell
        elif requested:
            title = d in direct or title_only_law_id(con, d, label) is not None
            reason = NO_TEXT if title else f"{d} has no provision {label}"
            missing: dict = {"id": None, "doc": d, "missing": reason}
            versions[d] = missing | ({"title_only": True} if title else {})
    return versions, ref


def _equivalent_in(links: list[dict], doc: str) -> str | None:
    """:func:`ingest.align.equivalent` of a node whose :func:`ingest.align.aligned` list
    is ``links`` (read once for every document)."""
    for d in links:
        if d["doc"] == doc and not d["flagged"] and d["relation"] in EQUIVALENT:
            return d["id"]
    return None


def _links(con, node_id: str) -> list[tuple[str, str, bool, float]]:
    """(other id, relation, flagged, score) of the rows :func:`ingest.align.aligned` gives
    for ``node_id``, in no particular order and without decoding their evidence (the
    line-up reads only these; a ``split`` row seen from its part, a ``merged`` one there,
    lines nothing up either way)."""
    if not has_table(con, "alignments"):
        return []
    return [
        (r[0], r[1], bool(r[2]), r[3])
        for r in con.execute(
            "SELECT b, relation, flagged, score FROM alignments WHERE a = ? UNION ALL "
            "SELECT a, relation, flagged, score FROM alignments WHERE b = ? "
            "AND relation != 'none'",
            (node_id, node_id),
        )
    ]


def _line_up(
    con, versions: dict[str, dict], lead_doc: str | None, leads: Sequence[str]
) -> list[dict]:
    """The versions' sub-provisions lined up: one row per corresponding sub-provision.

    Rows are groups of at most one sub-provision per document. Groups are joined along
    the non-flagged alignments, best score first; a sub-provision the alignment leaves
    alone joins the group with the same label suffix, unless an alignment says the two
    are not equivalent. Rows follow the order of ``lead_doc`` (the reference version),
    then of the other documents, and are keyed by the lead's labels where it has them.
    A cell that its row's reference (:func:`_reference_cell` with ``leads``) does not
    have as its equivalent is marked (:func:`_standings`).
    """
    members: dict[str, tuple[sqlite3.Row, int, str | None]] = {}
    per_doc: dict[str, list[str]] = {}
    for doc, v in versions.items():
        if not v.get("id"):
            continue
        per_doc[doc] = []
        for r, depth in _descendants(con, v["id"]):
            suffix = r["label"][len(v["label"]) :] if r["label"].startswith(v["label"]) else None
            members[r["id"]] = (r, depth, suffix)
            per_doc[doc].append(r["id"])
    group = {nid: {nid} for nid in members}
    docs_of = {nid: {members[nid][0]["doc"]} for nid in members}
    links, contradicted = [], set()
    standings: dict[frozenset, str] = {}
    for nid in members:
        for other, relation, flagged, score in _links(con, nid):
            if other in members and relation != "topic":
                pair = frozenset((nid, other))
                if flagged:
                    contradicted.add(pair)  # judged not equivalent: never one row
                elif relation in LINE_UP:
                    links.append((-score, nid, other))
                    standings[pair] = standing(relation, score)

    def join(a: str, b: str) -> bool:
        ga, gb = group[a], group[b]
        if ga is gb or docs_of[a] & docs_of[b]:
            return False
        if any(frozenset((x, y)) in contradicted for x in ga for y in gb):
            return False
        merged, docs = ga | gb, docs_of[a] | docs_of[b]
        for n in merged:
            group[n], docs_of[n] = merged, docs
        return True

    for _, a, b in sorted(links):
        join(a, b)
    by_suffix: dict[str, list[str]] = {}
    for nid, (_, _, suffix) in members.items():
        if suffix is not None:
            by_suffix.setdefault(suffix, []).append(nid)
    partners: dict[str, set[str]] = {}
    for _, x, y in links:
        partners.setdefault(x, set()).add(y)
        partners.setdefault(y, set()).add(x)
    for ids in by_suffix.values():
        for a in ids:
            for b in ids:
                if a < b and not _has_other_partner(a, b, members, partners):
                    join(a, b)
    rows: list[dict] = []
    placed: dict[int, int] = {}  # id(group) -> row index
    lead = [d for d in per_doc if lead_doc == d]
    for doc, ids in [(d, per_doc[d]) for d in lead + [d for d in per_doc if d not in lead]]:
        prev = None
        for nid in ids:
            g = group[nid]
            if id(g) not in placed:
                r, depth, _ = members[nid]
                idx = prev + 1 if prev is not None else 0
                rows.insert(idx, {"key": r["label"], "depth": depth, "cells": {}})
                placed = {k: (i + 1 if i >= idx else i) for k, i in placed.items()}
                placed[id(g)] = idx
            rows[placed[id(g)]]["cells"][doc] = _cell(members[nid][0])
            prev = placed[id(g)]
    for row in rows:
        if lead_doc in row["cells"]:
            row["key"] = row["cells"][lead_doc]["label"]
    lead_keys = {row["key"] for row in rows if lead_doc in row["cells"]}
    seen: set[str] = set()
    for row in rows:  # two unrelated rules with one label: the lead keeps the plain key
        if lead_doc not in row["cells"] and (row["key"] in lead_keys or row["key"] in seen):
            doc = next(d for d, c in row["cells"].items() if c)
            row["shown"] = f"{row['key']} ({doc})"  # the label in words, for the page
            row["key"] = f"{row['key']}-{doc}"
        seen.add(row["key"])
        row["cells"] = {d: row["cells"].get(d) for d in versions}
        # a book that gives only the law's title (fi-2007 beyond Law 18) lacks nothing
        row["gaps"] = [
            d for d, c in row["cells"].items() if c is None and not versions[d].get("title_only")
        ]
        _standings(row["cells"], leads, standings)
    return rows


def _leads(con, lead: str | None, docs: Sequence[str]) -> list[str]:
    """The documents in the order a row's reference is taken from: the reference
    version's, then the newest edition first (in the manifest's order within one)."""
    editions = dict(_documents(con))
    rest = sorted((d for d in docs if d != lead), key=lambda d: -_year(editions.get(d, "")))
    return ([lead] if lead else []) + rest


def _reference_cell(cells: dict[str, dict | None], leads: Sequence[str]) -> dict | None:
    """The cell of a row the others are read against: of the first of ``leads`` that has
    one (:func:`_leads`), else the row's first."""
    for d in leads:
        if cells.get(d):
            return cells[d]
    return next((c for c in cells.values() if c), None)


_STRENGTH = ("partial", "unconfirmed")
"""How far a standing shows two provisions as one rule, by its place here (any other
relation a row is joined along, an equivalent's, is 2)."""


def _standings(cells: dict[str, dict | None], leads: Sequence[str], standings: dict) -> None:
    """Mark each cell of a row that the row's reference cell (:func:`_reference_cell`)
    does not have as its equivalent (:data:`NOT_SHOWN`): ``cell["standing"] = {"to",
    "label", "relation"}`` (the reference's id and label). The alignment of the two says
    so; where they have none, the row's links that joined the cell say it: the path of
    the strongest links from the reference, whose weakest link is rewritten or not
    confirmed (``through``: the cell the path reaches it from). A cell joined by its
    label alone, with no alignment, is not marked."""
    first = _reference_cell(cells, leads)
    if first is None:
        return
    ids = [c["id"] for c in cells.values() if c]
    # widest path from the reference over the row's links (a row holds a few cells)
    best: dict[str, tuple[int, str | None]] = {first["id"]: (3, None)}
    todo = [first["id"]]
    while todo:
        x = todo.pop()
        for y in ids:
            st = standings.get(frozenset((x, y)))
            if st is None or y == first["id"]:
                continue
            strength = min(best[x][0], _STRENGTH.index(st) if st in _STRENGTH else 2)
            if strength > best.get(y, (-1, None))[0]:
                best[y] = (strength, x)
                todo.append(y)
    for cell in cells.values():
        if cell is None or cell is first:
            continue
        direct = standings.get(frozenset((first["id"], cell["id"])))
        mark = {"to": first["id"], "label": first["label"]}
        if direct is not None:
            if direct in NOT_SHOWN:
                cell["standing"] = mark | {"relation": direct}
        elif cell["id"] in best and best[cell["id"]][0] < 2:
            strength, via = best[cell["id"]]
            cell["standing"] = mark | {"relation": _STRENGTH[strength], "through": via}


def _has_other_partner(a: str, b: str, members: dict, partners: dict[str, set[str]]) -> bool:
    """Whether ``a`` or ``b`` is aligned (not flagged) with another node of the other's
    document: then their shared label suffix is a coincidence, not an equivalence
    (``partners``: each node's non-flagged line-up partners)."""
    for mine, theirs in ((a, b), (b, a)):
        doc = members[theirs][0]["doc"]
        for p in partners.get(mine, ()):
            if p != a and p != b and members[p][0]["doc"] == doc:
                return True
    return False


def _attach(con, ids: list[str], known: dict[str, list[dict]] | None = None) -> list[dict]:
    """Divergences between these nodes (and those of one of them with no counterpart);
    ``known``: :func:`divergences_by_node`, read once for many comparisons."""
    members, out, seen = set(ids), [], set()
    for nid in ids:
        for d in node_divergences(con, nid) if known is None else known.get(nid, []):
            both = {d["a"], d["b"]} - {None}
            if both <= members:
                key = (d["a"], d["b"], d["type"], d["message"])
                if key not in seen:
                    seen.add(key)
                    out.append(d)
    return out


def _sentences(con, cells: dict[str, dict | None], leads: Sequence[str]) -> list[dict]:
    """Aligned sentences of the row's reference cell (:func:`_reference_cell`) with each
    other cell:
    ``[{"a", "b", "doc_a", "doc_b", "relation", "sentences": [{"bead","a","b","score"}...]}]``
    (``relation``: how the two provisions relate, :func:`ingest.align.tmx.standing`; an
    ``unconfirmed`` label twin's sentences are aligned but it is not shown as the
    equivalent)."""
    first = _reference_cell(cells, leads)
    if first is None:
        return []
    out = []
    for doc, cell in cells.items():
        if cell is None or cell["id"] == first["id"]:
            continue
        beads = sentence_pairs(con, first["id"], cell["id"])
        if beads:
            out.append(
                {
                    "a": first["id"],
                    "b": cell["id"],
                    "doc_a": first["doc"],
                    "doc_b": doc,
                    "relation": pair_standing(con, first["id"], cell["id"]),
                    "sentences": beads,
                }
            )
    return out


def _topics(con, ids: list[str]) -> list[dict]:
    """Every Estonian topic whose candidates include the law, best first (as many as the
    home page's matrix counts for it)."""
    return law_topics(con, ids)


def compare_prepare(con: sqlite3.Connection) -> dict:
    """The first step of :func:`compare_stage`: every law lined up in every document,
    without divergences (it reads only what the alignment and the books wrote, so it may
    run beside the divergence checks)."""
    labels = [
        r[0]
        for r in con.execute(
            "SELECT DISTINCT n.label FROM nodes n JOIN documents d ON d.id = n.doc "
            "WHERE n.kind = 'law' ORDER BY d.ord, n.ord"
        )
    ]
    lined = []
    for label in labels:
        try:
            lined.append((label, lined_up(con, label, label, None)))
        except CompareError:
            continue
    return {"lined": lined}


def compare_finish(con: sqlite3.Connection, prepared: dict) -> dict:
    """The second step of :func:`compare_stage`: the divergences attached to what
    :func:`compare_prepare` lined up, written to ``compare_tables``."""
    t = time.perf_counter()
    con.execute(f"CREATE TABLE {TABLE} (label TEXT PRIMARY KEY, result TEXT NOT NULL)")
    known = divergences_by_node(con)
    rows = [
        (
            label,
            json.dumps({**with_divergences(con, result, known), "query": ""}, ensure_ascii=False),
        )
        for label, result in prepared["lined"]
    ]
    con.executemany(f"INSERT INTO {TABLE} VALUES (?, ?)", rows)
    return {
        "laws": len(rows),
        "kb": sum(len(r[1]) for r in rows) // 1024,
        "seconds": round(time.perf_counter() - t, 2),  # the lining up may have run beside
    }


compare_stage = TwoSteps(compare_prepare, compare_finish)
"""Ingest stage: store the comparison of every law in every document (``compare_tables``),
which the compare page and route read instead of lining the versions up per request."""


def compare_label(con: sqlite3.Connection, canon: str, label: str, docs: list[str] | None) -> dict:
    """Line up the versions of the provision with canonical label ``canon``, with the
    divergences found between them.

    Args:
        con: a store connection (the temporary store at ingest, or a served one).
        canon: the canonical label.
        label: the label as typed (kept as ``query``).
        docs: documents to show, in this order (None: every document with a version).

    Raises:
        CompareError: a document is unknown.
        ProvisionNotFound: no (requested) document has the provision.
    """
    return with_divergences(con, lined_up(con, canon, label, docs))


def lined_up(con: sqlite3.Connection, canon: str, label: str, docs: list[str] | None) -> dict:
    """:func:`compare_label` without the divergences (their places are left empty, for
    :func:`with_divergences`).

    Raises:
        CompareError: a document is unknown.
        ProvisionNotFound: no (requested) document has the provision.
    """
    known = [d for d, _ in _documents(con)]
    if docs:
        bad = [d for d in docs if d not in known]
        if bad:
            raise CompareError(f"unknown document {bad[0]!r} (known: {', '.join(known)})")
    versions, ref = _versions(con, canon, list(docs) if docs else known, bool(docs))
    if not any(v.get("id") for v in versions.values()):
        titles = [d for d, v in versions.items() if v.get("title_only")]
        if titles:
            others = [v["missing"] for v in versions.values() if not v.get("title_only")]
            raise ProvisionNotFound(
                f"{', '.join(titles)} {'gives' if len(titles) == 1 else 'give'} only the "
                f"title of the law of {canon} (the text of the book stops earlier)"
                + "".join(f"; {x}" for x in others)
                + (": nothing to compare; choose another book as well" if not others else "")
            )
        where = f"any of {', '.join(docs)}" if docs else "any document"
        raise ProvisionNotFound(f"no provision {canon} in {where}")
    lead = ref.split("/", 1)[0] if ref else None
    leads = _leads(con, lead, list(versions))
    rows = _line_up(con, versions, lead, leads)
    for row in rows:
        row["divergences"] = []
        row["sentences"] = _sentences(con, row["cells"], leads)
    # the law under this number (or holding this provision) in every book: the topics
    # the home page's matrix counts for it
    ids = [v["id"] for v in versions.values() if v.get("id")]
    law = next(
        (
            r[0]
            for r in con.execute(
                f"SELECT law FROM nodes WHERE id IN ({','.join('?' * len(ids))}) "
                "AND law IS NOT NULL AND law != '' LIMIT 1",
                ids,
            )
        ),
        canon,
    )
    laws = [
        r[0] for r in con.execute("SELECT id FROM nodes WHERE kind = 'law' AND label = ?", (law,))
    ]
    return {
        "label": canon,
        "query": label,
        "reference": ref,
        "docs": list(versions),
        "versions": versions,
        "rows": rows,
        "divergences": [],
        "scores": [],
        "sentences": _sentences(
            con, {d: v if v.get("id") else None for d, v in versions.items()}, leads
        ),
        "topics": _topics(con, laws),
        "topics_law": law,
        "moved": _moved(con, versions, lead),
    }


def _moved(con, versions: dict[str, dict], lead: str | None) -> list[dict]:
    """Where the rule of a version that is not the reference's rule now lives in the
    other books (a rule that moved and left a pointer, or another rule, under the old
    label): one entry per such version, ``{"for", "doc", "cells": {doc: cell | None},
    "relations": {doc: relation}, "sentences"}``, listed only when one of its
    equivalents is not the provision the page already shows for that book."""
    out = []
    shown = {d: v.get("id") for d, v in versions.items()}
    for doc, v in versions.items():
        if not v.get("id") or doc == lead or not (v.get("via") or {}).get("flagged"):
            continue
        links = aligned(con, v["id"])
        cells: dict[str, dict | None] = {doc: None}
        relations: dict[str, str] = {}
        for other in versions:
            if other == doc:
                continue
            eq = _equivalent_in(links, other)
            row = _node(con, eq) if eq else None
            if row is None or not _has_text(con, row):
                cells[other] = None
                continue
            cells[other] = _cell(row)
            relations[other] = next(x["relation"] for x in links if x["id"] == eq)
        if not any(c and c["id"] != shown.get(d) for d, c in cells.items()):
            continue
        cells[doc] = {k: v[k] for k in ("id", "doc", "label", "kind", "title", "text", "attrs")}
        out.append(
            {
                "for": v["id"],
                "doc": doc,
                "cells": cells,
                "relations": relations,
                "sentences": _sentences(con, cells, [doc]),
            }
        )
    return out


def with_divergences(
    con: sqlite3.Connection, result: dict, known: dict[str, list[dict]] | None = None
) -> dict:
    """Fill in the divergences of a :func:`lined_up` comparison (in place; returned): per
    row those between its cells, and for the versions their findings and scores
    (``known``: every node's divergences, read once, as :func:`_attach` takes them)."""
    for row in result["rows"]:
        row["divergences"] = _attach(con, [c["id"] for c in row["cells"].values() if c], known)
    version_ids = [v["id"] for v in result["versions"].values() if v.get("id")]
    scores = []
    if has_table(con, "divergence_scores") and version_ids:
        marks = ",".join("?" * len(version_ids))
        scores = [
            {k: r[k] for k in ("a", "b", "doc_a", "doc_b", "score", "count")}
            for r in con.execute(
                f"SELECT * FROM divergence_scores WHERE a IN ({marks}) AND b IN ({marks}) "
                f"ORDER BY score DESC",
                version_ids * 2,
            )
        ]
    result["divergences"] = _attach(con, version_ids, known)
    result["scores"] = scores
    return result
