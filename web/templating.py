"""The Jinja2 environment of the pages: filters, globals and one render helper."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, urlencode

from fastapi import Request
from fastapi.templating import Jinja2Templates
from starlette.responses import Response

from lawgraph.ingest.labels import greek_label

from .markup import linked_text

STATIC = Path(__file__).parent / "static"
TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
LANG_NAMES = {"fi": "suomi", "el": "ελληνικά", "sv": "svenska", "et": "eesti"}
ENGLISH_NAMES = {"fi": "Finnish", "el": "Greek", "sv": "Swedish", "et": "Estonian"}
"""The languages' names in an English sentence."""
LAW_KINDS = ("law", "section", "subsection", "item", "subitem")


def node_url(node_id: str, anchor: str | None = None) -> str:
    """The permanent URL of a node's page (``/doc/{doc}/{label}``), optionally to an anchor."""
    url = "/doc/" + quote(node_id, safe="/()")
    return f"{url}#{quote(anchor, safe='()')}" if anchor else url


def anchor_id(label: str) -> str:
    """The HTML id of a child provision inside its ancestor's page (the label itself)."""
    return label


def query_url(path: str, **params) -> str:
    """``path`` with its query string; parameters that are None or empty are left out."""
    items: list[tuple[str, object]] = []
    for key, value in params.items():
        values = value if isinstance(value, list | tuple) else [value]
        items.extend((key, v) for v in values if v not in (None, ""))
    return f"{path}?{urlencode(items)}" if items else path


def book_label(node_id_or_doc: str, label: str) -> str:
    """A canonical label as its own book prints it: Greek script in the Greek book.

    >>> book_label("el-2017/20F5(a)", "20F5(a)"), book_label("sv-2007", "20F5(a)")
    ('20ΣΤ5(α)', '20F5(a)')
    >>> book_label("sv-2007/fn/1", "fn/1"), book_label("sv-2007", "def/stick")
    ('footnote 1', 'definition stick')
    """
    kind, slash, rest = label.partition("/")
    if slash and kind in LABEL_KINDS:  # a footnote, definition, index entry …: no law label
        return f"{LABEL_KINDS[kind]} {rest}"
    return greek_label(label) if node_id_or_doc.startswith("el-") else label


LABEL_KINDS = {
    "fn": "footnote",
    "def": "definition",
    "index": "index entry",
    "preface": "preface",
    "chapter": "chapter",
    "topic": "topic",
}
"""The first part of a label that is no law label, in words (``fn/6``: footnote 6)."""


def display_label(node: dict) -> str:
    """What to call a node in lists: its label (as its book prints it), else its title,
    else its label in words (``footnote 6``)."""
    if node.get("kind") in LAW_KINDS:
        return book_label(node.get("id") or node.get("doc", ""), node["label"])
    return node.get("title") or book_label(node.get("id", ""), node["label"])


EVIDENCE_KEYS = {
    "chars": "length in characters",
    "ratio": "length ratio",
    "normal_ratio": "usual length ratio of the two books",
    "z": "how far from the usual (robust deviations)",
    "count": "sub-provisions",
    "elsewhere": "placed elsewhere by the alignment",
    "alignment": "probability the alignment gives that they are equivalent",
    "concepts": "glossary concepts",
    "words": "the words",
    "title": "title",
}
"""A divergence's evidence keys in words, as the compare page lists them (a book's id and
a key not named here are shown as they are)."""
HIDDEN_EVIDENCE = frozenset({"language_pair"})
"""Evidence keys a reader is not shown: what the two books named beside it say already."""


def evidence_items(evidence: dict) -> list[tuple[str, str, object]]:
    """``(key, name in words, value)`` of the evidence keys a reader is shown."""
    return [
        (k, EVIDENCE_KEYS.get(k, k), v) for k, v in evidence.items() if k not in HIDDEN_EVIDENCE
    ]


KIND_WORDS = {
    "index_term": "index entry",
    "footnote": "footnote",
    "chapter": "chapter heading",
    "preface": "preface",
}
"""Node kinds in words, where the kind's own name is not a word."""

TEMPLATES.env.globals.update(
    evidence_items=evidence_items,
    kind_words=KIND_WORDS,
    node_url=node_url,
    query_url=query_url,
    lang_names=LANG_NAMES,
    english_names=ENGLISH_NAMES,
    display_label=display_label,
    book_label=book_label,
)
TEMPLATES.env.filters.update(linked=linked_text, anchor=anchor_id)


def render(request: Request, template: str, context: dict, status_code: int = 200) -> Response:
    """Render ``template`` with ``context`` (which must hold a ``title``)."""
    return TEMPLATES.TemplateResponse(request, template, context, status_code=status_code)
