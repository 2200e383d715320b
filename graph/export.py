"""Exports of the store and graph following the export contract of the design guide."""

from __future__ import annotations

import sqlite3

from ingest import store

from .build import build_graph

NODE_FIELDS = ("id", "doc", "label", "kind", "law", "title", "text", "parent")


def export_json(con: sqlite3.Connection) -> dict:
    """Return ``{"documents": [...], "nodes": [...], "edges": [...]}``.

    Nodes carry their own text only; edges carry ``source``, ``target`` and ``type``
    (plus ``raw``/``score`` where the edge type has them).
    """
    docs = store.documents(con)
    nodes = [{f: getattr(n, f) for f in NODE_FIELDS} for n in store.nodes(con)]
    g = build_graph(con)
    edges = []
    for u, v, data in g.edges(data=True):
        if data["type"] == "contains" and g.nodes[u].get("type") == "document":
            continue
        edges.append({"source": u, "target": v, **data})
    return {"documents": docs, "nodes": nodes, "edges": edges}
