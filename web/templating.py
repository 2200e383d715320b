"""The Jinja2 environment of the pages: filters, globals and one render helper."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, urlencode

from fastapi import Request
from fastapi.templating import Jinja2Templates
from starlette.responses import Response

from .markup import linked_text

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
LANG_NAMES = {"fi": "suomi", "el": "ελληνικά", "sv": "svenska", "et": "eesti"}
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
    items = []
    for key, value in params.items():
        values = value if isinstance(value, list | tuple) else [value]
        items.extend((key, v) for v in values if v not in (None, ""))
    return f"{path}?{urlencode(items)}" if items else path


def display_label(node: dict) -> str:
    """What to call a node in lists: its label for provisions, else its title."""
    if node.get("kind") in LAW_KINDS:
        return node["label"]
    return node.get("title") or node["label"]


TEMPLATES.env.globals.update(
    node_url=node_url, query_url=query_url, lang_names=LANG_NAMES, display_label=display_label
)
TEMPLATES.env.filters.update(linked=linked_text, anchor=anchor_id)


def render(request: Request, template: str, context: dict, status_code: int = 200) -> Response:
    """Render ``template`` with ``context`` (which must hold a ``title``)."""
    return TEMPLATES.TemplateResponse(request, template, context, status_code=status_code)
