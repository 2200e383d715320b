"""The corpus as the alignment reads it.

The store is read once into a :class:`Corpus`: provisions, their children and subtree
text per document, labels, definitions and Estonian topics, for the alignment steps.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from itertools import combinations

from ..model import decode_attrs

PROVISION_KINDS = ("law", "section", "subsection", "item", "subitem")
"""Node kinds that take part in label and content alignment."""

LEVEL = {kind: i for i, kind in enumerate(PROVISION_KINDS)}


@dataclass
class Prov:
    """One provision (or definition) as the alignment sees it."""

    id: str
    doc: str
    label: str
    kind: str
    law: str
    title: str
    text: str
    parent: str | None
    has_text: bool
    children: list[str] = field(default_factory=list)


@dataclass
class DocInfo:
    """A document's language, edition and manifest position."""

    id: str
    language: str
    edition: str
    ord: int


@dataclass
class Corpus:
    """Every alignable node of the store, indexed for the alignment steps."""

    docs: dict[str, DocInfo]
    provs: dict[str, Prov]
    by_label: dict[str, dict[str, str]]
    """``{doc: {label: node id}}`` for provisions of :data:`PROVISION_KINDS`."""
    defs: dict[str, dict[str, str]]
    """``{doc: {slug: node id}}`` for definitions."""
    topics: dict[str, Prov]
    _subtree: dict[str, str] = field(default_factory=dict)
    _firsts: dict[str, str] = field(default_factory=dict)
    _above: dict[str, frozenset[str]] = field(default_factory=dict)

    def law_docs(self) -> list[str]:
        """Documents that have numbered laws, in manifest order."""
        return [d for d in self.docs if self.by_label.get(d)]

    def doc_pairs(self) -> list[tuple[str, str]]:
        """Every unordered pair of law documents, earlier document first."""
        return list(combinations(self.law_docs(), 2))

    def group_of(self, doc: str) -> str:
        """The first law document of the manifest with ``doc``'s language and edition (a
        second printing or revision of one translation is aligned through it)."""
        return self._groups()[doc]

    def _groups(self) -> dict[str, str]:
        if not self._firsts:
            seen: dict[tuple[str, str], str] = {}
            for d in self.law_docs():
                key = (self.docs[d].language, self.docs[d].edition)
                self._firsts[d] = seen.setdefault(key, d)
        return self._firsts

    def direct_pairs(self) -> list[tuple[str, str]]:
        """The pairs of law documents the matcher decides, in :meth:`doc_pairs` order: the
        first book of every (language, edition) group with the first of every other group,
        and each later book of a group with its group's first. Every other pair is
        composed through these (:func:`ingest.align._compose_pair`); with one book per
        group this is every pair."""
        first = self._groups()
        return [(a, b) for a, b in self.doc_pairs() if first[b] in (a, b) and first[a] == a]

    def learning_pairs(self) -> list[tuple[str, str]]:
        """The pairs of law documents the lexicons learn from: the pairs of groups' first
        books, and for a language pair those do not have (two books of one group share
        their language) the first pair of a book with its group's first."""
        direct = self.direct_pairs()
        firsts = [(a, b) for a, b in direct if self.group_of(b) == b]

        def langs(pair: tuple[str, str]) -> tuple[str, ...]:
            return tuple(sorted(self.docs[d].language for d in pair))

        covered = {langs(p) for p in firsts}
        out = []
        for p in direct:
            if p in firsts or langs(p) not in covered:
                out.append(p)
                covered.add(langs(p))
        return out

    def relation(self, doc_a: str, doc_b: str) -> str:
        """``same-edition`` or ``cross-edition``."""
        same = self.docs[doc_a].edition == self.docs[doc_b].edition
        return "same-edition" if same else "cross-edition"

    def subtree_text(self, node_id: str) -> str:
        """Title and text of a provision and all its sub-provisions, in order."""
        if node_id not in self._subtree:
            p = self.provs[node_id]
            parts = [p.title, p.text] + [self.subtree_text(c) for c in p.children]
            self._subtree[node_id] = " ".join(x for x in parts if x)
        return self._subtree[node_id]

    def above(self, node_id: str) -> frozenset[str]:
        """The provisions that contain ``node_id`` (its parent, theirs, up to the law)."""
        got = self._above.get(node_id)
        if got is None:
            parent = self.provs[node_id].parent
            got = self.above(parent) | {parent} if parent in self.provs else frozenset()
            self._above[node_id] = got
        return got

    def descendants(self, node_id: str) -> list[str]:
        """The provision and every sub-provision below it, in document order."""
        out = [node_id]
        for c in self.provs[node_id].children:
            out.extend(self.descendants(c))
        return out


def load_corpus(con: sqlite3.Connection) -> Corpus:
    """Read documents, provisions, definitions and topics from the store."""
    docs = {
        r[0]: DocInfo(r[0], r[1], r[2], r[3])
        for r in con.execute("SELECT id, language, edition, ord FROM documents ORDER BY ord")
    }
    provs: dict[str, Prov] = {}
    by_label: dict[str, dict[str, str]] = {d: {} for d in docs}
    defs: dict[str, dict[str, str]] = {d: {} for d in docs}
    topics: dict[str, Prov] = {}
    kinds = (*PROVISION_KINDS, "definition", "topic")
    rows = con.execute(
        f"SELECT id, doc, label, kind, law, title, text, parent, attrs FROM nodes "
        f"WHERE kind IN ({','.join('?' * len(kinds))}) ORDER BY doc, ord",
        kinds,
    )
    for r in rows:
        attrs = decode_attrs(r[8])
        if attrs.get("supplement") or attrs.get("national") or attrs.get("bylaw"):
            continue
        p = Prov(
            id=r[0],
            doc=r[1],
            label=r[2],
            kind=r[3],
            law=r[4] or "",
            title=r[5] or "",
            text=r[6] or "",
            parent=r[7],
            has_text=attrs.get("has_text", True) is not False,
        )
        if p.kind == "topic":
            topics[p.id] = p
            continue
        provs[p.id] = p
        if p.kind == "definition":
            defs[p.doc][p.label.removeprefix("def/")] = p.id
        else:
            by_label[p.doc][p.label] = p.id
    for p in provs.values():
        if p.parent in provs and p.kind != "definition":
            provs[p.parent].children.append(p.id)
    for t in topics.values():
        if t.parent in topics:
            topics[t.parent].children.append(t.id)
    by_label = {d: labels for d, labels in by_label.items() if labels}
    return Corpus(docs=docs, provs=provs, by_label=by_label, defs=defs, topics=topics)
