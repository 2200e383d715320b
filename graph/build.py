"""Load the knowledge graph (a networkx MultiDiGraph) from the store."""

from __future__ import annotations

import sqlite3

import networkx as nx

from lawgraph import store


def build_graph(con: sqlite3.Connection) -> nx.MultiDiGraph:
    """Return documents and nodes as graph nodes, with typed edges.

    Edge types: ``contains`` (parent -> child, and document -> its top-level nodes),
    ``indexes`` (index term -> provision it lists), ``cites`` (provision ->
    provision, one edge per resolved citation, with ``raw``, ``kind`` and ``relative``)
    and ``aligned`` (provision or topic -> its counterpart in another document, one
    edge per row of the ``alignments`` table but the ``none`` rows, with ``score``,
    ``method``, ``relation`` (``same``, ``renumbered``, ``moved``, ``split``, ``partial``,
    ``law``, ``topic``, or ``not-equivalent`` for a rejected label twin) and ``flagged``: 1 marks
    a pair that is not an equivalent).
    Every attribute is a string or number so the graph exports to GraphML and GEXF.
    """
    g: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    for d in store.documents(con):
        g.add_node(
            d["id"],
            type="document",
            doc=d["id"],
            language=d["language"],
            edition=d["edition"],
            title=d["title"],
            label="",
            kind="document",
            law="",
        )
    all_nodes = store.nodes(con)
    for n in all_nodes:
        has_text = int(n.attrs.get("has_text", True) is not False)
        g.add_node(
            n.id,
            type="node",
            doc=n.doc,
            label=n.label,
            kind=n.kind,
            law=n.law or "",
            title=n.title,
            has_text=has_text,
        )
    for n in all_nodes:
        g.add_edge(n.parent or n.doc, n.id, type="contains")
        for target in n.attrs.get("targets", []) if n.kind == "index_term" else []:
            tid = f"{n.doc}/{target}"
            if tid in g:
                g.add_edge(n.id, tid, type="indexes")
    for c in store.citations(con):
        if c.target:
            g.add_edge(
                c.source, c.target, type="cites", raw=c.raw, kind=c.kind, relative=int(c.relative)
            )
    if store.has_table(con, "alignments"):
        rows = con.execute(  # a ``none`` row names a provision's closest candidate only
            "SELECT a, b, score, method, relation, flagged FROM alignments WHERE relation != 'none'"
        )
        for a, b, score, method, relation, flagged in rows:
            if a in g and b in g:
                g.add_edge(
                    a,
                    b,
                    type="aligned",
                    score=float(score),
                    method=method,
                    relation=relation,
                    flagged=int(flagged),
                )
    return g


def citation_graph(g: nx.MultiDiGraph, doc: str | None = None) -> nx.MultiDiGraph:
    """The sub-graph of ``cites`` edges (optionally of one document), as a view."""

    def keep_edge(u, v, k):
        return g.edges[u, v, k]["type"] == "cites"

    def keep_node(n):
        return g.nodes[n].get("type") == "node" and (doc is None or g.nodes[n]["doc"] == doc)

    return nx.subgraph_view(g, filter_node=keep_node, filter_edge=keep_edge)
