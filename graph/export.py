"""Exports following the export contract of the design guide: JSON, GraphML, GEXF, CSV."""

from __future__ import annotations

import csv
import io
import sqlite3

import networkx as nx

from ingest import store

from .build import build_graph

NODE_FIELDS = ("id", "doc", "label", "kind", "law", "title", "text", "parent")
FORMATS = ("json", "graphml", "gexf", "csv")


def export_json(con: sqlite3.Connection, g: nx.MultiDiGraph | None = None) -> dict:
    """Return ``{"documents": [...], "nodes": [...], "edges": [...]}``.

    Nodes carry their own text only; edges carry ``source``, ``target`` and ``type``
    (plus ``raw`` for citations; ``score``, ``method``, ``relation`` and ``flagged``
    for ``aligned`` edges).
    """
    g = g if g is not None else build_graph(con)
    docs = store.documents(con)
    nodes = [{f: getattr(n, f) for f in NODE_FIELDS} for n in store.nodes(con)]
    edges = []
    for u, v, data in g.edges(data=True):
        if data["type"] == "contains" and g.nodes[u].get("type") == "document":
            continue
        edges.append({"source": u, "target": v, **data})
    return {"documents": docs, "nodes": nodes, "edges": edges}


def _plain(g: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A copy whose node and edge attributes are all strings or numbers."""
    h = nx.MultiDiGraph()
    for n, a in g.nodes(data=True):
        h.add_node(n, **{k: v if isinstance(v, int | float) else str(v) for k, v in a.items()})
    for u, v, k, a in g.edges(keys=True, data=True):
        h.add_edge(u, v, key=k, **{x: y if isinstance(y, int | float) else str(y)
                                   for x, y in a.items()})  # fmt: skip
    return h


def export_bytes(con: sqlite3.Connection, fmt: str, g: nx.MultiDiGraph | None = None) -> bytes:
    """Serialise the graph in ``fmt`` (graphml, gexf or csv edge list).

    Raises:
        ValueError: for an unknown format.
    """
    g = g if g is not None else build_graph(con)
    if fmt == "graphml":
        buf = io.BytesIO()
        nx.write_graphml(_plain(g), buf)
        return buf.getvalue()
    if fmt == "gexf":
        buf = io.BytesIO()
        nx.write_gexf(_plain(g), buf)
        return buf.getvalue()
    if fmt == "csv":
        out = io.StringIO()
        w = csv.writer(out)
        w.writerow(["source", "target", "type", "raw", "kind", "score", "method", "relation",
                    "flagged"])  # fmt: skip
        for u, v, a in g.edges(data=True):
            w.writerow([u, v, a["type"], a.get("raw", ""), a.get("kind", ""),
                        a.get("score", ""), a.get("method", ""), a.get("relation", ""),
                        a.get("flagged", "")])  # fmt: skip
        return out.getvalue().encode("utf-8")
    raise ValueError(f"unknown export format {fmt!r} (choose from {', '.join(FORMATS)})")
