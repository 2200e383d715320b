"""A provision page lists what it cites and what cites it, and its JSON twin the same."""

import pytest
from pages import page

from lawgraph import store


def cites_panel(soup):
    return soup.find("h2", id="ct-h").find_parent("section")


def expected_targets(con, node_id):
    """What the node and its sub-provisions cite outside it, first cited first, read
    straight from the citations of each node in document order."""
    inside, todo = [], [node_id]
    while todo:
        inside.append(todo.pop())
        todo += [c.id for c in store.children(con, inside[-1])]
    order = {n.id: n.order for n in store.nodes(con, node_id.split("/")[0])}
    found = sorted(
        (c for nid in inside for c in store.citations(con, source=nid)),
        key=lambda c: (order[c.source], c.field != "title", c.start),
    )
    return list(dict.fromkeys(c.target for c in found if c.target and c.target not in inside))


@pytest.mark.parametrize(
    "node_id", ["sv-2007/16", "sv-2007/12C2", "el-2017/20F5", "fi-1997/12", "sv-2007/20"]
)
def test_the_cites_list_is_every_provision_the_text_cites(client, con, node_id):
    expected = expected_targets(con, node_id)
    assert expected, node_id
    links = [
        a["href"]
        for a in cites_panel(page(client, f"/doc/{node_id}")).select(
            "ul.cites > li > a:first-child"
        )
    ]
    assert links == [f"/doc/{t}" for t in expected]
    # the JSON twin carries the same list, in the same order
    twin = client.get(f"/api/nodes/{node_id}").json()
    assert [c["id"] for c in twin["cites"]] == expected
    # and the graph's own answer (built apart from the page) agrees on what is cited
    graph = client.get(f"/api/nodes/{node_id}/citations").json()["results"]
    assert {g["id"] for g in graph} == set(expected)


def test_cites_entries_show_label_title_and_where_the_reference_stands(client):
    panel = cites_panel(page(client, "/doc/sv-2007/16"))
    items = {li.a["href"]: li for li in panel.select("ul.cites > li")}
    c12 = items["/doc/sv-2007/12C"]
    assert c12.a.get_text() == "12C"
    assert "Utdelning av korrigerad poäng" in c12.get_text()
    assert c12.select_one("span[lang]")["lang"] == "sv"
    # cited from two sub-provisions: both named, with links to them
    assert [a["href"] for a in c12.select("small a")] == [
        "/doc/sv-2007/16A4",
        "/doc/sv-2007/16B3",
    ]
    assert "cited 2 times" in c12.get_text()
    # a reference between two parts of Law 16 is linked in the text, not listed
    assert "/doc/sv-2007/16D" not in items
    twin = client.get("/api/nodes/sv-2007/16").json()
    t12 = next(c for c in twin["cites"] if c["id"] == "sv-2007/12C")
    assert t12["title"] == "Utdelning av korrigerad poäng"
    assert [r["source"] for r in t12["refs"]] == ["sv-2007/16A4", "sv-2007/16B3"]


def test_greek_targets_are_shown_with_greek_labels(client):
    panel = cites_panel(page(client, "/doc/el-2017/20F5"))
    labels = [a.get_text() for a in panel.select("ul.cites > li > a:first-child")]
    assert labels and any(any("\u0370" <= ch <= "\u03ff" for ch in x) for x in labels)


def test_unresolved_references_are_listed_plainly(client):
    # fi-2007 9A cites laws the book gives only by their title
    panel = cites_panel(page(client, "/doc/fi-2007/9A"))
    items = panel.select("ul.unresolved-refs > li")
    assert [li.span.get_text() for li in items] == ["“65B3”", "“42”", "“43”", "“20F5”"]
    first = items[0]
    assert "gives only the title" in first.get_text()
    assert first.find("a", href="/doc/fi-2007/65") is not None
    assert first.find("a", href="/doc/sv-2007/65B3") is not None  # the text, same edition
    twin = client.get("/api/nodes/fi-2007/9A").json()
    assert [u["ref"] for u in twin["unresolved"]] == ["65B3", "42", "43", "20F5"]
    assert twin["unresolved"][0] | {"why": ""} == {
        "raw": "65B3",
        "source": "fi-2007/9A2",
        "ref": "65B3",
        "reason": "no-text",
        "why": "",
        "law": "fi-2007/65",
        "equivalents": ["sv-2007/65B3"],
    }
    # OCR damage is reported, never guessed
    panel = cites_panel(page(client, "/doc/fi-1997/23A"))
    damaged = panel.select_one("ul.unresolved-refs > li")
    assert "72Bl" in damaged.get_text() and "damaged" in damaged.get_text()
    assert client.get("/api/nodes/fi-1997/23A").json()["unresolved"][0]["reason"] == (
        "damaged-label"
    )


def test_a_provision_that_cites_nothing_says_so(client):
    twin = client.get("/api/nodes/sv-2007/1").json()
    assert twin["cites"] == [] and twin["unresolved"] == []
    panel = cites_panel(page(client, "/doc/sv-2007/1"))
    assert "cites no other provision" in panel.get_text()
    assert panel.select("ul.cites") == []


def test_the_twin_carries_the_cited_by_list_of_the_page(client):
    soup = page(client, "/doc/sv-2007/16D")
    shown = [a["href"] for a in soup.select("ul.citedby > li > a")]
    twin = client.get("/api/nodes/sv-2007/16D").json()
    assert shown == [f"/doc/{c['id']}" for c in twin["cited_by"]]
    assert "sv-2007/25B3" in [c["id"] for c in twin["cited_by"]]
    assert all(r["target"].startswith("sv-2007/16D") for c in twin["cited_by"] for r in c["refs"])
