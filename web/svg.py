"""Lay out a citation neighbourhood with networkx and describe it as SVG shapes.

The page template draws the shapes: every node is a link to its provision, so a click
opens it without any script; ``static/graph.js`` only adds zoom and pan.
"""

from __future__ import annotations

import math

import networkx as nx

WIDTH, HEIGHT, MARGIN, RADIUS = 960, 640, 48, 15
#: How a node relates to the centre: it cites the centre, is cited by it, both, or is further.
ROLES = ("center", "cited", "citing", "both", "far")


def _roles(center: str, nodes: list[str], edges: list[tuple[str, str]]) -> dict[str, str]:
    out_, in_ = set(), set()
    for u, v in edges:
        if u == center:
            out_.add(v)
        if v == center:
            in_.add(u)
    roles = {}
    for n in nodes:
        if n == center:
            roles[n] = "center"
        elif n in out_ and n in in_:
            roles[n] = "both"
        elif n in out_:
            roles[n] = "cited"
        elif n in in_:
            roles[n] = "citing"
        else:
            roles[n] = "far"
    return roles


def layout(ego: dict, seed: int = 7) -> dict:
    """Positions for an ego network as returned by :func:`graph.query.ego`.

    Args:
        ego: ``{"center", "nodes": [{"id", "doc", "label", "title"}], "edges":
            [{"source", "target", "raw"}]}``.
        seed: the spring layout's seed, so a page always draws the same picture.

    Returns:
        ``{"width", "height", "nodes": [{"id", "x", "y", "r", "label", "title", "role",
        "hops"}], "edges": [{"source", "target", "raw", "x1", "y1", "x2", "y2"}]}`` in
        SVG user units; edges stop at the node circles so arrowheads stay visible.
    """
    center = ego["center"]
    ids = [n["id"] for n in ego["nodes"]]
    pairs = [(e["source"], e["target"]) for e in ego["edges"]]
    g = nx.Graph()
    g.add_nodes_from(ids)
    g.add_edges_from(pairs)
    if len(ids) == 1:
        pos = {center: (0.0, 0.0)}
    else:
        start = nx.circular_layout(g)
        start[center] = (0.0, 0.0)
        k = 1.6 / math.sqrt(len(ids))
        pos = nx.spring_layout(g, pos=start, fixed=[center], k=k, iterations=60, seed=seed)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    span_x = max(max(xs) - min(xs), 1e-9)
    span_y = max(max(ys) - min(ys), 1e-9)

    def place(n: str) -> tuple[float, float]:
        if len(ids) == 1:
            return WIDTH / 2, HEIGHT / 2
        x = MARGIN + (pos[n][0] - min(xs)) / span_x * (WIDTH - 2 * MARGIN)
        y = MARGIN + (pos[n][1] - min(ys)) / span_y * (HEIGHT - 2 * MARGIN)
        return round(x, 1), round(y, 1)

    xy = {n: place(n) for n in ids}
    roles = _roles(center, ids, pairs)
    hops = nx.single_source_shortest_path_length(g, center)
    nodes = [
        n | {"x": xy[n["id"]][0], "y": xy[n["id"]][1], "role": roles[n["id"]],
             "r": RADIUS + 5 if n["id"] == center else RADIUS,
             "hops": hops.get(n["id"], 0)}
        for n in ego["nodes"]
    ]  # fmt: skip
    radius = {n["id"]: n["r"] for n in nodes}
    edges = []
    for e in ego["edges"]:
        (x1, y1), (x2, y2) = xy[e["source"]], xy[e["target"]]
        dx, dy = x2 - x1, y2 - y1
        d = math.hypot(dx, dy) or 1.0
        s, t = radius[e["source"]] + 1, radius[e["target"]] + 4
        edges.append(
            e | {"x1": round(x1 + dx * s / d, 1), "y1": round(y1 + dy * s / d, 1),
                 "x2": round(x2 - dx * t / d, 1), "y2": round(y2 - dy * t / d, 1)}
        )  # fmt: skip
    return {"width": WIDTH, "height": HEIGHT, "nodes": nodes, "edges": edges}
