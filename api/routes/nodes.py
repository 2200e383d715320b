"""Single nodes with their children and breadcrumbs."""

from __future__ import annotations

import sqlite3

from fastapi import APIRouter, HTTPException

from lawgraph import store
from lawgraph.store.deps import Con, on_loop
from lawgraph.store.lookup import node_id_or_404
from lawgraph.store.references import cited_by, cites, subtree_ids, unresolved
from lawgraph.store.title_only import title_only

from ..schemas import ErrorResponse, NodeDetail, NodeIdPath

router = APIRouter(prefix="/api/nodes", tags=["nodes"])


def node_detail(con: sqlite3.Connection, text: str) -> dict:
    """Return a node with its children, breadcrumbs and citation lists (the JSON twin of
    the provision page), or raise a 404."""
    nid = node_id_or_404(con, text)
    node = store.node(con, nid)
    if node is None:  # resolved a moment ago: the store is read-only
        raise HTTPException(404, f"no node {nid}")
    crumbs: list[dict] = []
    parent = node.parent
    while parent:
        p = store.node(con, parent)
        if p is None:
            break
        crumbs.insert(0, vars(p))
        parent = p.parent
    inside = subtree_ids(con, nid)
    return vars(node) | {
        "children": [vars(c) for c in store.children(con, nid)],
        "breadcrumbs": crumbs,
        "cites": cites(con, nid, inside),
        "unresolved": unresolved(con, inside),
        "cited_by": cited_by(con, nid, inside),
        "title_only": title_only(con, node.doc, node.label) if node.kind == "law" else None,
    }


@router.get("/{node_id:path}", response_model=NodeDetail, responses={404: {"model": ErrorResponse}})
@on_loop
def get_node(node_id: NodeIdPath, con: Con) -> dict:
    """One node (``DOC/LABEL``; any typed form of the label) with its children."""
    return node_detail(con, node_id)
