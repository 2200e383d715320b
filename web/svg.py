"""Lay out a citation neighbourhood clustered by law and describe it as SVG shapes.

Every law is a box: its heading and a column (or several) of its provisions, each a dot
with its label beside it. The centre's law is in the middle, the other laws on rings
around it (nearest first, laws that cite each other side by side), and the boxes are
pushed apart until no two overlap, so no two labels can overlap either. The page template
draws the shapes: every node is a link to its provision, so a click opens it without any
script; ``static/graph.js`` adds zoom and pan and keeps dots and labels at the same size on
screen while the positions spread.
"""

from __future__ import annotations

import math
from collections import defaultdict

import networkx as nx

from lawgraph.ingest.labels import label_key

#: Laid-out size of the dots and labels in SVG user units (= screen pixels before zooming).
DOT, FONT, CHAR, ROW = 6, 12, 7.4, 22
HEAD, PAD, GAP, MARGIN = 20, 8, 26, 16
#: At most this many provisions in one column of a law's box.
PER_COLUMN = 8
#: How a node relates to the centre: it cites the centre, is cited by it, both, or is further.
ROLES = ("center", "cited", "citing", "both", "far")
OTHER = "other"


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


def label_width(text: str) -> float:
    """A generous estimate of a label's width in user units at the layout's font size."""
    return len(text) * CHAR + 2


def _box(law: str, members: list[dict]) -> dict:
    """A law's box: size and the offset of each member inside it."""
    cols = math.ceil(len(members) / PER_COLUMN)
    rows = min(len(members), PER_COLUMN)
    col_w = 2 * DOT + 6 + max(label_width(m["shown"]) for m in members)
    head_w = label_width(_heading(law)) + 2 * PAD
    width = max(cols * col_w + (cols - 1) * PAD + 2 * PAD, head_w)
    height = HEAD + rows * ROW + PAD
    offsets = {}
    for i, m in enumerate(members):
        col, row = divmod(i, PER_COLUMN)
        offsets[m["id"]] = (PAD + DOT + col * (col_w + PAD), HEAD + row * ROW + ROW / 2)
    return {"law": law, "w": width, "h": height, "offsets": offsets}


def _heading(law: str) -> str:
    return "other provisions" if law == OTHER else f"Law {law}"


def _overlap(a: dict, b: dict) -> tuple[float, float]:
    """How far two boxes (centre x, y; w, h) overlap along each axis, GAP included."""
    ox = (a["w"] + b["w"]) / 2 + GAP - abs(a["x"] - b["x"])
    oy = (a["h"] + b["h"]) / 2 + GAP - abs(a["y"] - b["y"])
    return ox, oy


def _separate(boxes: list[dict], fixed: str, rounds: int = 400) -> None:
    """Push overlapping boxes apart along the axis where they overlap least."""
    for _ in range(rounds):
        moved = False
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                ox, oy = _overlap(a, b)
                if ox <= 0.01 or oy <= 0.01:
                    continue
                ox, oy = ox + 0.5, oy + 0.5
                moved = True
                share_a = 0.0 if a["law"] == fixed else (1.0 if b["law"] == fixed else 0.5)
                if ox < oy:
                    sign = 1 if a["x"] >= b["x"] else -1
                    a["x"] += sign * ox * share_a
                    b["x"] -= sign * ox * (1 - share_a)
                else:
                    sign = 1 if a["y"] >= b["y"] else -1
                    a["y"] += sign * oy * share_a
                    b["y"] -= sign * oy * (1 - share_a)
        if not moved:
            return
    _shelves(boxes)


def _shelves(boxes: list[dict]) -> None:
    """Last resort: rows of boxes left to right in their current reading order."""
    x = y = row_h = 0.0
    limit = max(1100.0, max(b["w"] for b in boxes))
    for b in sorted(boxes, key=lambda b: (b["y"], b["x"])):
        if x and x + b["w"] > limit:
            x, y, row_h = 0.0, y + row_h + GAP, 0.0
        b["x"], b["y"] = x + b["w"] / 2, y + b["h"] / 2
        x += b["w"] + GAP
        row_h = max(row_h, b["h"])


def _law_order(center_law: str, laws: list[str], pairs: list[tuple[str, str]], seed: int):
    """The other laws in drawing order: nearest first, then around the centre.

    Laws are ranked by their hops from the centre's law; within a rank they follow the
    angle a spring layout of the law-to-law citations gives them, so laws that cite each
    other sit side by side.
    """
    g: nx.Graph[str] = nx.Graph()
    g.add_nodes_from(laws)
    g.add_edges_from((u, v) for u, v in pairs if u != v)
    hops = nx.single_source_shortest_path_length(g, center_law)
    pos = nx.spring_layout(g, seed=seed, iterations=60) if len(laws) > 1 else {}

    def angle(law: str) -> float:
        x, y = pos[law][0] - pos[center_law][0], pos[law][1] - pos[center_law][1]
        return math.atan2(y, x) % (2 * math.pi)

    others = [law for law in laws if law != center_law]
    return sorted(others, key=lambda law: (hops.get(law, 99), angle(law)))


def _rings(center: dict, others: list[dict]) -> None:
    """Put the centre's box in the middle and the others on rings (ellipses) around it."""
    center["x"] = center["y"] = 0.0
    stretch = 1.6  # screens are wider than tall
    radius = max(center["w"] / stretch, center["h"]) / 2 + GAP
    i = 0
    while i < len(others):
        ring_extent = max(max(b["w"] / stretch, b["h"]) for b in others[i : i + 12])
        radius += ring_extent / 2 + GAP / 2
        room = 2 * math.pi * radius
        ring: list[tuple[dict, float]] = []
        used = 0.0
        while i < len(others):
            b = others[i]
            step = max(b["w"] / stretch, b["h"]) + GAP
            if ring and used + step > room:
                break
            ring.append((b, step))
            used += step
            i += 1
        theta = -math.pi / 2
        for b, step in ring:
            theta += step / 2 / radius * (room / used if used else 1.0)
            b["x"], b["y"] = math.cos(theta) * radius * stretch, math.sin(theta) * radius
            theta += step / 2 / radius * (room / used if used else 1.0)
        radius += ring_extent / 2 + GAP / 2


def layout(ego: dict, seed: int = 7, path: list[str] | None = None) -> dict:
    """Positions for an ego network as returned by :func:`graph.query.ego`.

    Args:
        ego: ``{"center", "nodes": [{"id", "doc", "label", "title", "law"?, "shown"?}],
            "edges": [{"source", "target", "raw"}]}``; ``shown`` is the text drawn beside
            the dot (the label unless given), ``law`` the law the node belongs to.
        seed: the spring layout's seed, so a page always draws the same picture.
        path: node ids of a found path; its nodes and the edges between consecutive ones
            are marked ``on_path``.

    Returns:
        ``{"width", "height", "boxes": [{"law", "heading", "x", "y", "w", "h"}], "nodes":
        [{"id", "x", "y", "label", "title", "shown", "role", "hops", "on_path"}], "edges":
        [{"source", "target", "raw", "x1", "y1", "xm", "ym", "x2", "y2", "on_path"}]}`` in
        SVG user units; an edge has a middle point for its arrowhead.
    """
    center = ego["center"]
    nodes = [n | {"shown": n.get("shown") or n["label"] or n["title"][:18]} for n in ego["nodes"]]
    law_of = {n["id"]: n.get("law") or OTHER for n in nodes}
    members: dict[str, list[dict]] = defaultdict(list)

    def reading(n: dict) -> tuple:
        doc, _, label = n["id"].partition("/")
        return (n["id"] != center, doc, label_key(label))

    for n in sorted(nodes, key=reading):
        members[law_of[n["id"]]].append(n)
    pairs = [(e["source"], e["target"]) for e in ego["edges"]]
    center_law = law_of[center]
    laws = sorted(members, key=lambda law: (law != center_law, law))
    order = _law_order(center_law, laws, [(law_of[u], law_of[v]) for u, v in pairs], seed)
    boxes = [_box(law, members[law]) for law in [center_law, *order]]
    _rings(boxes[0], boxes[1:])
    _separate(boxes, center_law)
    left = min(b["x"] - b["w"] / 2 for b in boxes) - MARGIN
    top = min(b["y"] - b["h"] / 2 for b in boxes) - MARGIN
    xy = {}
    out_boxes = []
    for b in boxes:
        bx, by = round(b["x"] - b["w"] / 2 - left, 1), round(b["y"] - b["h"] / 2 - top, 1)
        out_boxes.append(
            {
                "law": b["law"],
                "heading": _heading(b["law"]),
                "x": bx,
                "y": by,
                "w": round(b["w"], 1),
                "h": round(b["h"], 1),
            }
        )
        for nid, (dx, dy) in b["offsets"].items():
            xy[nid] = (round(bx + dx, 1), round(by + dy, 1))
    width = max(b["x"] + b["w"] for b in out_boxes) + MARGIN
    height = max(b["y"] + b["h"] for b in out_boxes) + MARGIN
    on_path = set(path or ())
    steps = {(a, b) for a, b in zip(path or (), (path or ())[1:], strict=False)}
    roles = _roles(center, [n["id"] for n in nodes], pairs)
    hops = nx.single_source_shortest_path_length(nx.Graph(pairs + [(center, center)]), center)
    out_nodes = [
        n
        | {
            "x": xy[n["id"]][0],
            "y": xy[n["id"]][1],
            "role": roles[n["id"]],
            "hops": hops.get(n["id"], 0),
            "on_path": n["id"] in on_path,
        }
        for n in nodes
    ]
    edges = []
    for e in ego["edges"]:
        (x1, y1), (x2, y2) = xy[e["source"]], xy[e["target"]]
        dx, dy = x2 - x1, y2 - y1
        d = math.hypot(dx, dy) or 1.0
        s = DOT + 1
        step = (e["source"], e["target"]) in steps or (e["target"], e["source"]) in steps
        edges.append(
            e
            | {
                "x1": round(x1 + dx * s / d, 1),
                "y1": round(y1 + dy * s / d, 1),
                "xm": round((x1 + x2) / 2, 1),
                "ym": round((y1 + y2) / 2, 1),
                "x2": round(x2 - dx * s / d, 1),
                "y2": round(y2 - dy * s / d, 1),
                "on_path": step,
            }
        )
    return {
        "width": round(width, 1),
        "height": round(height, 1),
        "boxes": out_boxes,
        "nodes": out_nodes,
        "edges": edges,
    }
