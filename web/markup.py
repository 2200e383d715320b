"""Provision text as safe HTML: escaped, with each citation span turned into a link."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from urllib.parse import quote

from markupsafe import Markup, escape


def linked_text(text: str, cites: Iterable[Mapping] = ()) -> Markup:
    """Escape ``text`` and wrap each citation span in a link to the cited provision.

    Args:
        text: the node's own text (or title).
        cites: citations with ``start``/``end`` offsets into ``text``, ``target`` (a node
            id, or None when unresolved), ``raw`` and ``reason``. Overlapping or
            out-of-range spans are skipped.

    Returns:
        Markup safe to insert into a template; resolved citations are ``<a class="cite">``
        links, unresolved ones ``<span class="cite unresolved">`` with the reason.
    """
    out: list[str] = []
    pos = 0
    for c in sorted(cites, key=lambda c: (c["start"], c["end"])):
        start, end = c["start"], c["end"]
        if start < pos or end > len(text) or start >= end:
            continue
        out.append(escape(text[pos:start]))
        span = escape(text[start:end])
        if c.get("target"):
            href = "/doc/" + quote(c["target"], safe="/()")
            out.append(
                Markup('<a class="cite" href="{}" title="{}">{}</a>').format(
                    href, c["target"], span
                )
            )
        else:
            note = f"unresolved: {c.get('reason') or 'unknown'}"
            tag = Markup('<span class="cite unresolved" title="{}">{}</span>')
            out.append(tag.format(note, span))
        pos = end
    out.append(escape(text[pos:]))
    return Markup("").join(out)
