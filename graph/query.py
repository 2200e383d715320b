"""Queries over the citation graph: neighbourhoods, paths, rankings, differences."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from .build import citation_graph

LAW_LEVELS = {"law", "section", "subsection", "item", "subitem"}


class GraphQueryError(ValueError):
    """A query names an unknown node or document, or asks for something impossible."""


def _check(g: nx.MultiDiGraph, node_id: str) -> None:
    if node_id not in g or g.nodes[node_id].get("type") != "node":
        raise GraphQueryError(f"unknown node {node_id!r}")


def _law_of(g: nx.MultiDiGraph, node_id: str) -> str:
    return f"{g.nodes[node_id]['doc']}/{g.nodes[node_id]['law']}"


def subtree(g: nx.MultiDiGraph, node_id: str) -> list[str]:
    """The node and every node it contains."""
    out, todo = [], [node_id]
    while todo:
        n = todo.pop()
        out.append(n)
        todo.extend(v for _, v, d in g.out_edges(n, data=True) if d["type"] == "contains")
    return out


def cites(
    g: nx.MultiDiGraph,
    node_id: str,
    depth: int = 1,
    reverse: bool = False,
    include_children: bool = True,
) -> list[dict]:
    """Provisions ``node_id`` cites (or, with ``reverse``, that cite it), up to ``depth`` hops.

    With ``include_children`` the citations made by (or made to) the provision's own
    sub-provisions count as the provision's: Law 16 cites what 16B1(a) cites.
    Returns one dict per reached provision with its hop distance and the raw texts.
    """
    _check(g, node_id)
    if depth < 1 or depth > 10:
        raise GraphQueryError("depth must be between 1 and 10")
    index = citation_index(g)
    edges = index.cited_by if reverse else index.cites

    def expand(n: str) -> list[str]:
        return [x for x in subtree_list(g, n) if x in index.nodes] if include_children else [n]

    seen = {node_id}
    frontier = [node_id]
    out = []
    for hop in range(1, depth + 1):
        nxt = []
        reached: dict[str, dict] = {}
        for n in frontier:
            inside = subtree_set(g, n)
            for inner in expand(n):
                for other, d in edges.get(inner, ()):
                    link = {"via": inner, "raw": d.get("raw", ""), "kind": d.get("kind", "")}
                    if other in reached:  # another citation of one reached this hop
                        if link not in reached[other]["links"]:
                            reached[other]["links"].append(link)
                        continue
                    if other in seen or other in inside:
                        continue
                    seen.add(other)
                    nxt.append(other)
                    reached[other] = {
                        "id": other,
                        "depth": hop,
                        **link,
                        "links": [link],
                        **_attrs(g, other),
                    }
                    out.append(reached[other])
        frontier = nxt
    return out


@dataclass(frozen=True)
class CitationIndex:
    """The ``cites`` edges of a graph, indexed once (a served graph never changes).

    ``cites`` and ``cited_by`` list, per provision, the other end and the edge data in
    the order networkx gives them (:func:`graph.build.citation_graph`'s ``out_edges`` and
    ``in_edges``); ``by_doc`` lists (source, target, raw) of the edges inside each
    document; ``nodes`` are the provisions (what the citation graph view contains).
    """

    nodes: frozenset[str]
    cites: dict[str, list[tuple[str, dict]]]
    cited_by: dict[str, list[tuple[str, dict]]]
    by_doc: dict[str, list[tuple[str, str, str]]]


def citation_index(g: nx.MultiDiGraph) -> CitationIndex:
    """The :class:`CitationIndex` of ``g``, made on first use and kept on the graph."""
    index = g.graph.get("_citation_index")
    if index is None:
        nodes = frozenset(n for n, a in g.nodes(data=True) if a.get("type") == "node")
        out: dict[str, list[tuple[str, dict]]] = {}
        into: dict[str, list[tuple[str, dict]]] = {}
        by_doc: dict[str, list[tuple[str, str, str]]] = {}
        for u, v, d in g.edges(data=True):  # per source: targets in adjacency order
            if d["type"] == "cites" and u in nodes and v in nodes:
                out.setdefault(u, []).append((v, d))
                doc = g.nodes[u]["doc"]
                if g.nodes[v]["doc"] == doc:
                    by_doc.setdefault(doc, []).append((u, v, d.get("raw", "")))
        for v in nodes:  # per target: sources in the order of its predecessors
            for u, keyed in g.pred[v].items():
                if u in nodes:
                    into_v = [(u, d) for d in keyed.values() if d["type"] == "cites"]
                    if into_v:
                        into.setdefault(v, []).extend(into_v)
        index = g.graph["_citation_index"] = CitationIndex(nodes, out, into, by_doc)
    return index


def doc_citations(g: nx.MultiDiGraph, doc: str) -> nx.DiGraph[str | tuple[str]]:
    """``nx.DiGraph(citation_graph(g, doc))`` (every provision of ``doc`` and its citations,
    in the same order) made from the index: a new graph the caller may change."""
    cg: nx.DiGraph[str | tuple[str]] = nx.DiGraph()
    cg.add_nodes_from(
        (n, a) for n, a in g.nodes(data=True) if a.get("type") == "node" and a["doc"] == doc
    )
    for u, v, _ in citation_index(g).by_doc.get(doc, ()):
        cg.add_edge(u, v)
    return cg


def subtree_list(g: nx.MultiDiGraph, node_id: str) -> tuple[str, ...]:
    """:func:`subtree`, cached per graph."""
    cache = g.graph.setdefault("_subtree_lists", {})
    if node_id not in cache:
        cache[node_id] = tuple(subtree(g, node_id))
    return cache[node_id]


def subtree_set(g: nx.MultiDiGraph, node_id: str) -> frozenset[str]:
    """:func:`subtree` as a set, cached per graph."""
    cache = g.graph.setdefault("_subtrees", {})
    if node_id not in cache:
        cache[node_id] = frozenset(subtree_list(g, node_id))
    return cache[node_id]


def _attrs(g: nx.MultiDiGraph, n: str) -> dict:
    a = g.nodes[n]
    return {"doc": a["doc"], "label": a["label"], "title": a.get("title", "")}


def ego(g: nx.MultiDiGraph, node_id: str, radius: int = 1) -> dict:
    """The citation neighbourhood of a provision (both directions, ``radius`` hops).

    Citations made by or to the provision's own sub-provisions count as its own.
    """
    _check(g, node_id)
    near = cites(g, node_id, depth=radius) + cites(g, node_id, depth=radius, reverse=True)
    keep = {node_id} | {h["id"] for h in near}
    inner = dict.fromkeys(subtree_set(g, node_id), node_id)
    nodes = [{"id": n, **_attrs(g, n)} for n in sorted(keep)]
    edges = set()
    for u, v, raw in citation_index(g).by_doc.get(g.nodes[node_id]["doc"], ()):
        u2, v2 = inner.get(u, u), inner.get(v, v)
        if u2 in keep and v2 in keep and u2 != v2:
            edges.add((u2, v2, raw))
    return {
        "center": node_id,
        "nodes": nodes,
        "edges": [{"source": u, "target": v, "raw": r} for u, v, r in sorted(edges)],
    }


def path(g: nx.MultiDiGraph, a: str, b: str, either: bool = False) -> list[str]:
    """Shortest citation path from ``a`` to ``b``.

    A provision speaks through its sub-provisions and is reached through them: the
    path may start at any node inside ``a`` (Law 27B1 reaches what 27B1(a) cites) and
    end at any node inside ``b``. The returned path starts at that citing node.
    With ``either``, citations are followed in both directions (a step may go from a
    provision to one that cites it).
    """
    _check(g, a)
    _check(g, b)
    if g.nodes[a]["doc"] != g.nodes[b]["doc"]:
        raise GraphQueryError("a citation path stays within one document")
    cg = doc_citations(g, g.nodes[a]["doc"])
    if either:
        cg.add_edges_from([(v, u) for u, v in cg.edges()])
    start, end = ("__start__",), ("__end__",)
    cg.add_edges_from((start, n) for n in subtree(g, a) if n in cg)
    cg.add_edges_from((n, end) for n in subtree(g, b) if n in cg)
    try:
        found = nx.shortest_path(cg, start, end)
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        raise GraphQueryError(f"no citation path from {a} to {b}") from None
    return [n for n in found[1:-1] if isinstance(n, str)]  # without the two ends


def rank(g: nx.MultiDiGraph, doc: str, top: int = 20) -> dict:
    """Most-cited laws and PageRank of laws in one document.

    Citations are rolled up to laws; a law's references to itself (``se D``) are not
    counted, so the ranking says which laws the rest of the book depends on.
    """
    if doc not in g or g.nodes[doc].get("type") != "document":
        raise GraphQueryError(f"unknown document {doc!r}")
    laws: nx.DiGraph[str] = nx.DiGraph()
    cited: dict[str, int] = {}
    for u, v in citation_graph(g, doc).edges():
        lu, lv = _law_of(g, u), _law_of(g, v)
        if lu != lv:
            cited[lv] = cited.get(lv, 0) + 1
            w = laws.get_edge_data(lu, lv, {"weight": 0})["weight"]
            laws.add_edge(lu, lv, weight=w + 1)
    pr = nx.pagerank(laws, weight="weight") if laws.number_of_nodes() else {}
    most = sorted(cited.items(), key=lambda x: (-x[1], x[0]))[:top]
    prs = sorted(pr.items(), key=lambda x: (-x[1], x[0]))[:top]
    return {
        "doc": doc,
        "most_cited": [{"id": k, "count": c, **_attrs(g, k)} for k, c in most if k in g],
        "pagerank": [{"id": k, "score": round(s, 5), **_attrs(g, k)} for k, s in prs if k in g],
    }


def diff(g: nx.MultiDiGraph, doc_a: str, doc_b: str, laws: set[str] | None = None) -> dict:
    """Citation edges (by label pair) present in one document and missing in the other.

    Only edges whose both endpoints exist, with text, in both documents (shared labels)
    are compared, so a provision one book lacks (or, like the truncated fi-2007, lists
    only by title) is not reported as a missing citation.
    ``laws`` restricts the comparison to source provisions of those law numbers.
    """
    for d in (doc_a, doc_b):
        if d not in g or g.nodes[d].get("type") != "document":
            raise GraphQueryError(f"unknown document {d!r}")

    def edges(doc):
        out = {}
        for u, v, data in citation_graph(g, doc).edges(data=True):
            key = (g.nodes[u]["label"], g.nodes[v]["label"])
            out.setdefault(key, data.get("raw", ""))
        return out

    ea, eb = edges(doc_a), edges(doc_b)

    def labels(doc):
        """Labels of provisions whose law has text in ``doc``."""
        out = set()
        for _, a in g.nodes(data=True):
            if a.get("doc") == doc and a.get("type") == "node" and a.get("law"):
                law = g.nodes.get(f"{doc}/{a['law']}", {})
                if law.get("has_text", 1):
                    out.add(a["label"])
        return out

    shared = labels(doc_a) & labels(doc_b)

    def ok(key):
        s, t = key
        if s not in shared or t not in shared:
            return False
        law = g.nodes[f"{doc_a}/{s}"]["law"]
        return laws is None or law in laws

    only_a = sorted(k for k in ea if k not in eb and ok(k))
    only_b = sorted(k for k in eb if k not in ea and ok(k))
    return {
        "a": doc_a,
        "b": doc_b,
        "shared_edges": sum(1 for k in ea if k in eb and ok(k)),
        "only_in_a": [{"source": s, "target": t, "raw": ea[(s, t)]} for s, t in only_a],
        "only_in_b": [{"source": s, "target": t, "raw": eb[(s, t)]} for s, t in only_b],
    }
