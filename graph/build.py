"""Load the knowledge graph (a networkx MultiDiGraph) from the store."""

from __future__ import annotations

import sqlite3

import networkx as nx

from ingest import store


def build_graph(con: sqlite3.Connection) -> nx.MultiDiGraph:
    """Return documents and nodes as graph nodes, with typed edges.

    Edge types: ``contains`` (parent -> child, and document -> its top-level nodes)
    and ``indexes`` (index term -> provision it lists). Later stages add ``cites`` and
    ``aligned`` edges.
    """
    g = nx.MultiDiGraph()
    for d in store.documents(con):
        g.add_node(d["id"], type="document", language=d["language"], edition=d["edition"],
                   title=d["title"])  # fmt: skip
    all_nodes = store.nodes(con)
    for n in all_nodes:
        g.add_node(n.id, type="node", doc=n.doc, label=n.label, kind=n.kind, law=n.law or "",
                   title=n.title)  # fmt: skip
    for n in all_nodes:
        g.add_edge(n.parent or n.doc, n.id, type="contains")
        for target in n.attrs.get("targets", []) if n.kind == "index_term" else []:
            tid = f"{n.doc}/{target}"
            if tid in g:
                g.add_edge(n.id, tid, type="indexes")
    return g
