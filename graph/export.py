"""Exports following the export contract of the design guide: JSON, GraphML, GEXF, CSV.

Every export is written as a stream of text chunks read straight from the store, so
memory stays bounded by one batch of rows whatever the size of the graph. Every export can
be narrowed to some documents (only their nodes, and the edges between them) and to some
edge types (``contains``, ``indexes``, ``cites``, ``aligned``).

The graph is the one :func:`graph.build.build_graph` loads: documents and nodes as graph
nodes, typed edges. GraphML keys the edge type as ``type``; GEXF declares it as the edge
attribute ``edge_type`` (GEXF reserves ``type`` for directed/undirected) and also uses it
as the edge label, so networkx and Gephi keep it.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

from lawgraph import store
from lawgraph.ingest.model import decode_attrs

NODE_FIELDS = ("id", "doc", "label", "kind", "law", "title", "text", "parent")
FORMATS = ("json", "graphml", "gexf", "csv")
EDGE_TYPES = ("contains", "indexes", "cites", "aligned")
MEDIA_TYPES = {
    "json": "application/json",
    "graphml": "application/xml",
    "gexf": "application/xml",
    "csv": "text/csv",
}
CSV_FIELDS = ("source", "target", "type", "raw", "kind", "score", "method", "relation", "flagged")
BATCH = 500

# (name, GraphML type, GEXF type) of every graph node and edge attribute
NODE_ATTRS = (
    ("type", "string", "string"),
    ("doc", "string", "string"),
    ("label", "string", "string"),
    ("kind", "string", "string"),
    ("law", "string", "string"),
    ("title", "string", "string"),
    ("has_text", "int", "integer"),
    ("language", "string", "string"),
    ("edition", "string", "string"),
)
EDGE_ATTRS = (
    ("type", "string", "string"),
    ("raw", "string", "string"),
    ("kind", "string", "string"),
    ("relative", "int", "integer"),
    ("score", "double", "double"),
    ("method", "string", "string"),
    ("relation", "string", "string"),
    ("flagged", "int", "integer"),
)


class ExportError(ValueError):
    """An unknown format, document or edge type was asked for."""


@dataclass(frozen=True)
class Selection:
    """Which part of the graph to export: some documents and some edge types (None: all)."""

    docs: frozenset[str] | None = None
    types: frozenset[str] | None = None

    def has_doc(self, doc: str) -> bool:
        """Whether nodes of ``doc`` are exported."""
        return self.docs is None or doc in self.docs

    def has_type(self, edge_type: str) -> bool:
        """Whether edges of ``edge_type`` are exported."""
        return self.types is None or edge_type in self.types


def parse_selection(
    con: sqlite3.Connection, docs: str | Iterable[str] | None, types: str | Iterable[str] | None
) -> Selection:
    """Build a :class:`Selection` from comma-separated (or listed) document ids and types.

    Raises:
        ExportError: naming an unknown document or edge type.
    """

    def split(value: str | Iterable[str] | None) -> frozenset[str] | None:
        if value is None:
            return None
        parts = value.split(",") if isinstance(value, str) else list(value)
        items = frozenset(p.strip() for p in parts if p.strip())
        return items or None

    doc_set, type_set = split(docs), split(types)
    known = {d["id"] for d in store.documents(con)}
    if doc_set and doc_set - known:
        raise ExportError(
            f"unknown document {', '.join(sorted(doc_set - known))} "
            f"(choose from {', '.join(sorted(known))})"
        )
    if type_set and type_set - set(EDGE_TYPES):
        raise ExportError(
            f"unknown edge type {', '.join(sorted(type_set - set(EDGE_TYPES)))} "
            f"(choose from {', '.join(EDGE_TYPES)})"
        )
    return Selection(doc_set, type_set)


def _batches(cur: sqlite3.Cursor) -> Iterator[tuple]:
    while rows := cur.fetchmany(BATCH):
        yield from rows


def iter_documents(con: sqlite3.Connection, sel: Selection) -> Iterator[dict]:
    """The selected documents (without their ingest statistics), in manifest order."""
    cur = con.execute(
        "SELECT id, language, edition, title, source, family, completeness, sha256, stats"
        " FROM documents ORDER BY ord"
    )
    cols = [c[0] for c in cur.description]
    for row in cur.fetchall():
        if sel.has_doc(row[0]):
            d = dict(zip(cols, row, strict=True))
            d["stats"] = json.loads(d["stats"])
            yield d


def iter_graph_nodes(con: sqlite3.Connection, sel: Selection) -> Iterator[tuple[str, dict]]:
    """``(id, attributes)`` of every selected graph node: documents first, then nodes."""
    for d in iter_documents(con, sel):
        yield (
            d["id"],
            {
                "type": "document",
                "doc": d["id"],
                "language": d["language"],
                "edition": d["edition"],
                "title": d["title"],
                "label": "",
                "kind": "document",
                "law": "",
            },
        )
    cur = con.execute("SELECT id, doc, label, kind, law, title, attrs FROM nodes ORDER BY doc, ord")
    for nid, doc, label, kind, law, title, attrs in _batches(cur):
        if sel.has_doc(doc):
            has_text = int(decode_attrs(attrs).get("has_text", True) is not False)
            yield (
                nid,
                {
                    "type": "node",
                    "doc": doc,
                    "label": label,
                    "kind": kind,
                    "law": law or "",
                    "title": title,
                    "has_text": has_text,
                },
            )


def _node_docs(con: sqlite3.Connection) -> dict[str, str]:
    """Every graph node id (documents included) with its document."""
    ids = {d: d for (d,) in con.execute("SELECT id FROM documents")}
    ids.update(con.execute("SELECT id, doc FROM nodes"))
    return ids


def iter_edges(
    con: sqlite3.Connection, sel: Selection, document_edges: bool = True
) -> Iterator[tuple[str, str, dict]]:
    """``(source, target, attributes)`` of every selected edge whose two ends are selected.

    ``document_edges=False`` leaves out the ``contains`` edges from a document to its
    top-level nodes (the JSON export contract has no document nodes).
    """
    docs = _node_docs(con)

    def keep(*ids: str) -> bool:
        return all(i in docs and sel.has_doc(docs[i]) for i in ids)

    if sel.has_type("contains") or sel.has_type("indexes"):
        cur = con.execute("SELECT id, doc, kind, parent, attrs FROM nodes ORDER BY doc, ord")
        for nid, doc, kind, parent, attrs in _batches(cur):
            if not sel.has_doc(doc):
                continue
            if sel.has_type("contains") and (parent or document_edges) and keep(parent or doc):
                yield parent or doc, nid, {"type": "contains"}
            if kind == "index_term" and sel.has_type("indexes"):
                for target in decode_attrs(attrs).get("targets", []):
                    if keep(tid := f"{doc}/{target}"):
                        yield nid, tid, {"type": "indexes"}
    if sel.has_type("cites"):
        cur = con.execute(
            "SELECT source, target, raw, kind, relative FROM citations"
            " WHERE target IS NOT NULL ORDER BY rowid"
        )
        for source, target, raw, kind, relative in _batches(cur):
            if keep(source, target):
                yield (
                    source,
                    target,
                    {"type": "cites", "raw": raw, "kind": kind, "relative": int(relative)},
                )
    if sel.has_type("aligned") and store.has_table(con, "alignments"):
        cur = con.execute(
            "SELECT a, b, score, method, relation, flagged FROM alignments"
            " WHERE relation != 'none' ORDER BY rowid"
        )
        for a, b, score, method, relation, flagged in _batches(cur):
            if keep(a, b):
                yield (
                    a,
                    b,
                    {
                        "type": "aligned",
                        "score": float(score),
                        "method": method,
                        "relation": relation,
                        "flagged": int(flagged),
                    },
                )


def _chunked(parts: Iterable[str], size: int = 1 << 16) -> Iterator[str]:
    """Join small strings into chunks of about ``size`` characters."""
    buf: list[str] = []
    n = 0
    for p in parts:
        buf.append(p)
        n += len(p)
        if n >= size:
            yield "".join(buf)
            buf, n = [], 0
    if buf:
        yield "".join(buf)


def _json_parts(con: sqlite3.Connection, sel: Selection) -> Iterator[str]:
    dumps = json.JSONEncoder(ensure_ascii=False).encode
    yield '{"documents": ['
    for i, d in enumerate(iter_documents(con, sel)):
        yield ("," if i else "") + dumps(d)
    yield '], "nodes": ['
    cur = con.execute(f"SELECT {', '.join(NODE_FIELDS)} FROM nodes ORDER BY doc, ord")
    first = True
    for row in _batches(cur):
        if sel.has_doc(row[1]):
            yield ("" if first else ",") + dumps(dict(zip(NODE_FIELDS, row, strict=True)))
            first = False
    yield '], "edges": ['
    for i, (u, v, a) in enumerate(iter_edges(con, sel, document_edges=False)):
        yield ("," if i else "") + dumps({"source": u, "target": v, **a})
    yield "]}\n"


def _csv_parts(con: sqlite3.Connection, sel: Selection) -> Iterator[str]:
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(CSV_FIELDS)
    for u, v, a in iter_edges(con, sel):
        w.writerow([u, v, *(a.get(f, "") for f in CSV_FIELDS[2:])])
        if out.tell() > 1 << 15:
            yield out.getvalue()
            out.seek(0)
            out.truncate()
    yield out.getvalue()


def _graphml_parts(con: sqlite3.Connection, sel: Selection) -> Iterator[str]:
    yield (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
    )
    for scope, attrs, prefix in (("node", NODE_ATTRS, "n"), ("edge", EDGE_ATTRS, "e")):
        for i, (name, gml_type, _) in enumerate(attrs):
            yield (
                f'<key id="{prefix}{i}" for="{scope}" attr.name="{name}" attr.type="{gml_type}"/>\n'
            )
    yield '<graph edgedefault="directed">\n'
    nkeys = {name: f"n{i}" for i, (name, _, _) in enumerate(NODE_ATTRS)}
    ekeys = {name: f"e{i}" for i, (name, _, _) in enumerate(EDGE_ATTRS)}
    for nid, a in iter_graph_nodes(con, sel):
        data = "".join(f'<data key="{nkeys[k]}">{_text(v)}</data>' for k, v in a.items())
        yield f"<node id={quoteattr(nid)}>{data}</node>\n"
    for i, (u, v, a) in enumerate(iter_edges(con, sel)):
        data = "".join(f'<data key="{ekeys[k]}">{_text(x)}</data>' for k, x in a.items())
        yield f'<edge id="e{i}" source={quoteattr(u)} target={quoteattr(v)}>{data}</edge>\n'
    yield "</graph>\n</graphml>\n"


def _gexf_parts(con: sqlite3.Connection, sel: Selection) -> Iterator[str]:
    yield (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<gexf xmlns="http://www.gexf.net/1.2draft" version="1.2">\n'
        "<meta><creator>lawgraph</creator></meta>\n"
        '<graph defaultedgetype="directed" mode="static">\n'
    )
    node_attrs = [a for a in NODE_ATTRS if a[0] != "label"]  # the node's own label
    edge_attrs = [("edge_type" if a[0] == "type" else a[0], *a[1:]) for a in EDGE_ATTRS]
    for scope, attrs in (("node", node_attrs), ("edge", edge_attrs)):
        yield f'<attributes class="{scope}" mode="static">\n'
        for i, (name, _, gexf_type) in enumerate(attrs):
            yield f'<attribute id="{i}" title="{name}" type="{gexf_type}"/>\n'
        yield "</attributes>\n"
    nids = {name: i for i, (name, _, _) in enumerate(node_attrs)}
    eids = {name: i for i, (name, _, _) in enumerate(edge_attrs)}
    yield "<nodes>\n"
    for nid, a in iter_graph_nodes(con, sel):
        values = "".join(
            f'<attvalue for="{nids[k]}" value={quoteattr(str(v))}/>'
            for k, v in a.items()
            if k != "label"
        )
        label = a.get("label") or nid
        yield (
            f"<node id={quoteattr(nid)} label={quoteattr(label)}>"
            f"<attvalues>{values}</attvalues></node>\n"
        )
    yield "</nodes>\n<edges>\n"
    for i, (u, v, a) in enumerate(iter_edges(con, sel)):
        a = {("edge_type" if k == "type" else k): x for k, x in a.items()}
        values = "".join(
            f'<attvalue for="{eids[k]}" value={quoteattr(str(x))}/>' for k, x in a.items()
        )
        yield (
            f'<edge id="{i}" source={quoteattr(u)} target={quoteattr(v)} '
            f'label="{a["edge_type"]}"><attvalues>{values}</attvalues></edge>\n'
        )
    yield "</edges>\n</graph>\n</gexf>\n"


def _text(value: object) -> str:
    from xml.sax.saxutils import escape

    return escape(str(value))


WRITERS = {"json": _json_parts, "graphml": _graphml_parts, "gexf": _gexf_parts, "csv": _csv_parts}


def stream_export(con: sqlite3.Connection, fmt: str, sel: Selection | None = None) -> Iterator[str]:
    """The export of ``sel`` (default: everything) in ``fmt`` as text chunks of ~64 KB.

    Raises:
        ExportError: for an unknown format (before anything is read).
    """
    if fmt not in WRITERS:
        raise ExportError(f"unknown export format {fmt!r} (choose from {', '.join(FORMATS)})")
    return _chunked(WRITERS[fmt](con, sel or Selection()))


def export_bytes(con: sqlite3.Connection, fmt: str, sel: Selection | None = None) -> bytes:
    """The whole export of ``sel`` in ``fmt`` as UTF-8 bytes.

    Raises:
        ExportError: for an unknown format.
    """
    return "".join(stream_export(con, fmt, sel)).encode("utf-8")


def export_json(con: sqlite3.Connection, sel: Selection | None = None) -> dict:
    """Return ``{"documents": [...], "nodes": [...], "edges": [...]}``.

    Nodes carry their own text only; edges carry ``source``, ``target`` and ``type``
    (plus ``raw`` for citations; ``score``, ``method``, ``relation`` and ``flagged``
    for ``aligned`` edges).
    """
    return json.loads(export_bytes(con, "json", sel))
