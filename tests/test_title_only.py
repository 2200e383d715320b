"""Laws fi-2007 gives only by their title: their pages and their provisions' pages say
so and point to the text in the same edition (sv-2007)."""

from pages import page

from lawgraph import store
from lawgraph.store.align import equivalent


def test_parent_labels():
    from lawgraph.ingest.labels import parent_labels

    assert parent_labels("40B1(a)(ii)") == ["40B1(a)", "40B1", "40B", "40"]
    assert parent_labels("1.2") == ["1"]
    assert parent_labels("SR6.4(b)") == ["SR6.4", "SR6"]
    assert parent_labels("16") == [] and parent_labels("preface/6") == []


def title_only_laws(con):
    return [n for n in store.nodes(con, "fi-2007", "law") if n.attrs.get("has_text") is False]


def test_every_title_only_law_page_says_so_and_links_its_swedish_text(client, con):
    laws = title_only_laws(con)
    assert [n.label for n in laws] == [str(n) for n in range(19, 94)]
    for law in laws:
        note = page(client, f"/doc/{law.id}").select_one("article.provision .title-only")
        assert note is not None, law.id
        assert "gives only the title of Law " + law.label in note.get_text(" "), law.id
        twin = equivalent(con, law.id, "sv-2007")
        assert twin and note.find("a", href=f"/doc/{twin}") is not None, law.id


def test_a_provision_of_a_title_only_law_has_a_page_that_says_the_text_is_missing(client):
    soup = page(client, "/doc/fi-2007/40B1")
    article = soup.select_one("article.provision")
    assert article["lang"] == "fi"
    assert article.h1.get_text(strip=True) == "40B1"
    text = article.get_text(" ", strip=True)
    assert "No text in this book" in text
    assert "fi-2007 gives only the title of Law 40" in text
    assert "PARTNERIEN SOPIMUKSET" in text and "the source text stops inside Law 18" in text
    swedish = article.select_one("ul.same-edition a")
    assert swedish["href"] == "/doc/sv-2007/40B1"
    assert [a["href"] for a in soup.select("nav.crumbs a")] == [
        "/",
        "/doc/fi-2007",
        "/doc/fi-2007/40",
    ]
    # a deeper provision, with its text excerpted in Swedish
    soup = page(client, "/doc/fi-2007/20F5(a)")
    item = soup.select_one("ul.same-edition li")
    assert item.a["href"] == "/doc/sv-2007/20F5(a)"
    assert item.select_one(".excerpt")["lang"] == "sv"
    assert item.select_one(".excerpt").get_text(strip=True)


def test_other_forms_of_the_label_redirect_and_unknown_ones_are_a_clear_404(client):
    r = client.get("/doc/fi-2007/40 B 1")
    assert r.status_code == 301 and r.headers["location"] == "/doc/fi-2007/40B1"
    soup = page(client, "/doc/fi-2007/40Z9", status=404)
    message = soup.select_one("p.error").get_text()
    assert "gives only the title of Law 40" in message and "40Z9 either" in message
    # a label under a law with text is an ordinary 404
    message = page(client, "/doc/fi-2007/16Z9", status=404).select_one("p.error").get_text()
    assert message == "fi-2007 has no provision 16Z9"


def test_the_api_says_where_the_text_is(client):
    r = client.get("/api/nodes/fi-2007/40B1")
    assert r.status_code == 404
    message = r.json()["error"]["message"]
    assert "only the title of Law 40" in message and "sv-2007/40B1" in message
    law = client.get("/api/nodes/fi-2007/40").json()
    assert law["title_only"]["law"]["id"] == "fi-2007/40"
    assert [e["id"] for e in law["title_only"]["equivalents"]] == ["sv-2007/40"]
    assert client.get("/api/nodes/fi-2007/16").json()["title_only"] is None


def test_title_only_reads_the_law_and_its_twin(con):
    from lawgraph.store.title_only import title_only

    found = title_only(con, "fi-2007", "65B3")
    assert found["law"]["id"] == "fi-2007/65"
    assert [e["id"] for e in found["equivalents"]] == ["sv-2007/65B3"]
    assert found["equivalents"][0]["law"] == "sv-2007/65"
    assert title_only(con, "fi-2007", "16B1") is None  # Law 16 has its text
    assert title_only(con, "sv-2007", "40B1") is None
    assert title_only(con, "xx-1", "40") is None


def test_the_other_books_say_fi_2007_has_no_text_rather_than_no_match(client):
    version = page(client, "/doc/sv-2007/40B1").select_one("div#in-fi-2007")
    text = version.get_text(" ", strip=True)
    assert "No text in fi-2007" in text and "only the title of" in text
    assert "None of its provisions matches" not in text
    assert version.find("a", href="/doc/fi-2007/40") is not None
    # a provision fi-2007 has the text of keeps the usual wording
    version = page(client, "/doc/sv-2007/16B1").select_one("div#in-fi-2007")
    assert "No text in fi-2007" not in version.get_text()
