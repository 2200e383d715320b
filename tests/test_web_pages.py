"""Every HTML page: status, title, escaping, language attributes, error pages."""

import json
import re
import sqlite3

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from lawgraph.api.app import create_app
from lawgraph.ingest.align import calibration
from lawgraph.ingest.align.query import aligned
from lawgraph.web.markup import linked_text
from lawgraph.web.templating import TEMPLATES

LANGS = {"fi", "el", "sv", "et"}
XSS = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def client(ingested):
    return TestClient(create_app(ingested[0]), follow_redirects=False)


def soup(response) -> BeautifulSoup:
    return BeautifulSoup(response.text, "html.parser")


# (path, words the <title> must contain)
PAGES = [
    ("/", "lawgraph"),
    ("/doc/sv-2007", "Lagar för tävlingsbridge 2007"),
    ("/doc/et-1930s", "et-1930s"),
    ("/doc/sv-2007/16", "TILLÅTNA OCH OTILLÅTNA UPPLYSNINGAR"),
    ("/doc/el-2017/20F5", "el-2017 20F5"),
    ("/doc/fi-1997/12C2", "fi-1997 12C2"),
    ("/doc/fi-2007/19", "KAHDENNUKSET JA VASTAKAHDENNUKSET"),
    ("/doc/el-2017/chapter/index", "el-2017"),
    ("/doc/et-1930s/topic/kolbmata-pakkumine", "Kõlbmata pakkumine"),
    ("/doc/sv-2007/def/tur-eller-tillfalle", "Tur (eller tillfälle)"),
    ("/go?label=16B1", "Provision 16B1 in"),
    ("/graph", "Citation graph of fi-1997"),
    ("/graph?doc=et-1930s", "Citation graph of et-1930s"),
    ("/graph/sv-2007/16?depth=2", "Citations around sv-2007 16"),
    ("/graph/sv-2007/27B1?b=12C", "Citations around sv-2007 27B1"),
    ("/search", "Search"),
    ("/search?q=återtaget+bud", "Search: återtaget bud"),
    ("/search?q=xyzzyq", "Search: xyzzyq"),
    ("/search?q=revoke&expand=true", "Search: revoke"),
    ("/glossary", "Glossary"),
    ("/lexicon", "Lexicon"),
    ("/lexicon?word=revokin", "Lexicon"),
    ("/lexicon?word=%3Cscript%3E", "Lexicon"),
    ("/divergences", "Divergences fi-2007 ↔ sv-2007"),
    ("/divergences?a=el-2017&b=sv-2007&type=numbers&sort=label", "Divergences el-2017 ↔ sv-2007"),
    ("/compare", "Compare"),
    ("/compare/16", "Compare 16"),
    ("/compare/16B?docs=fi-1997&docs=sv-2007", "Compare 16B"),
]


@pytest.mark.parametrize(("path", "title"), PAGES)
def test_page_renders(client, path, title):
    r = client.get(path)
    assert r.status_code == 200, r.text[:500]
    assert r.headers["content-type"].startswith("text/html")
    page = soup(r)
    assert title in page.title.string
    assert page.title.string.endswith("lawgraph")
    assert page.html["lang"] == "en"
    assert page.find("main", id="main") is not None
    assert page.find("a", class_="skip")["href"] == "#main"
    # Text of the books carries its language, for screen readers and hyphenation.
    for block in page.select(".text, .snippet, .excerpt, article.provision"):
        holder = block if block.has_attr("lang") else block.find_parent(attrs={"lang": True})
        assert holder is not None and holder["lang"] in LANGS, str(block)[:200]
    # Only our own scripts, loaded from /static.
    assert all(s.get("src", "").startswith("/static/") for s in page.find_all("script"))
    # A JSON twin is announced (the home page's is /api/documents).
    twin = page.find("link", rel="alternate")
    assert twin is not None and twin["href"].startswith("/api/")


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/doc/xx-2000", "unknown document"),
        ("/doc/sv-2007/999Z", "has no provision"),
        ("/doc/sv-2007/hello world", "not a provision label"),
        ("/graph/sv-2007/999Z", "has no provision"),
        ("/graph?doc=nope", "unknown document"),
        ("/graph?doc=sv-2007&node=999Z", "has no provision"),
        ("/go?label=999Z", "no document has a provision 999Z"),
        ("/go?label=16B1&doc=xx-2000", "unknown document"),
        ("/glossary/no-such-concept", "unknown concept"),
        ("/divergences?a=nope", "unknown document"),
        ("/compare/999Z", "999Z"),
        ("/no/such/page", "Not Found"),
    ],
)
def test_unknown_things_give_a_404_page(client, path, message):
    r = client.get(path)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    page = soup(r)
    assert page.title.string and message in page.get_text()
    assert page.find("a", href="/") is not None


@pytest.mark.parametrize(
    ("path", "status"),
    [("/go?label=", 400), ("/search?q=%25%25%25", 400), ("/search?q=a&lang=xx", 400)],
)
def test_bad_input_gives_a_clear_400_page(client, path, status):
    r = client.get(path)
    assert r.status_code == status
    assert "Traceback" not in r.text
    assert soup(r).select_one(".error").get_text(strip=True)


@pytest.mark.parametrize(
    ("path", "name"),
    [("/graph/sv-2007/16?depth=9", "depth"), ("/divergences?a=fi-2007&b=sv-2007&page=-1", "page"),
     ("/graph/sv-2007/16?a=16&b=12&either=maybe", "either")],
)  # fmt: skip
def test_invalid_page_parameter_gives_an_html_400_naming_it(client, path, name):
    r = client.get(path)
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/html")
    page = soup(r)
    assert page.title.string.startswith("Bad request") and name in page.get_text()
    assert client.get("/api/nodes/sv-2007/16/ego?radius=99").json()["error"]["code"]


@pytest.mark.parametrize(
    "path",
    [
        f"/doc/sv-2007/{XSS}",
        f"/graph/sv-2007/{XSS}",
        f"/graph?doc=sv-2007&node={XSS}",
        f"/graph/sv-2007/16?a={XSS}&b=12C",
        f"/search?q={XSS}",
        f"/search?q={XSS}&expand=true",
        f"/go?label={XSS}",
        f"/glossary?q={XSS}",
        f"/glossary/{XSS}",
        f"/compare/{XSS}",
        f"/compare/16?docs={XSS}",
    ],
)
def test_user_text_is_shown_as_text(client, path):
    r = client.get(path, follow_redirects=True)
    assert r.status_code in (200, 400, 404)
    assert "<script>alert" not in r.text
    assert "&lt;script&gt;" in r.text
    assert all(s.get("src", "").startswith("/static/") for s in soup(r).find_all("script"))


def test_provision_text_with_markup_is_escaped():
    text = "Se <script>alert(1)</script> och lag 12C & 16D"
    cites = [
        {"start": text.index("12C"), "end": text.index("12C") + 3, "target": "sv-2007/12C"},
        {
            "start": text.index("16D"),
            "end": text.index("16D") + 3,
            "target": None,
            "reason": "no-text",
        },
        {"start": 0, "end": 2, "target": "sv-2007/1"},  # fmt: skip
        {"start": 1, "end": 4, "target": "sv-2007/2"},  # overlaps the one before: skipped
    ]
    html = str(linked_text(text, cites))
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert '<a class="cite" href="/doc/sv-2007/12C" title="sv-2007/12C">12C</a>' in html
    assert '<span class="cite unresolved" title="unresolved: no-text">16D</span>' in html
    assert '<a class="cite" href="/doc/sv-2007/1" title="sv-2007/1">Se</a>' in html
    assert "&amp;" in html and "sv-2007/2" not in html

    node = {
        "id": "sv-2007/1", "doc": "sv-2007", "label": "1", "kind": "law", "law": "1",
        "title": "<script>t()</script>", "text": text, "parent": None, "attrs": {},
        "cites": {"text": cites[:2], "title": []}, "depth": 0,
        "children": [{
            "id": "sv-2007/1A", "doc": "sv-2007", "label": "1A", "kind": "section",
            "law": "1", "title": "<b>x</b>", "text": "<img src=x onerror=alert(1)>",
            "parent": "sv-2007/1", "attrs": {}, "cites": {"text": [], "title": []},
            "children": [], "depth": 1,
        }],
    }  # fmt: skip
    page = TEMPLATES.env.get_template("node.html").render(
        n=node, doc={"id": "sv-2007", "language": "sv"}, title=node["title"], footnotes=[],
        breadcrumbs=[], cited_by=[], prev=None, next=None, equivalents=None, divergences=None,
    )  # fmt: skip
    assert "<script>" not in page and "<img" not in page and "<b>x" not in page
    assert page.count("&lt;script&gt;") >= 3
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_favicon_and_offline_api_docs(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg")
    for url in ("/docs", "/redoc"):
        html = client.get(url).text
        assert "cdn" not in html.lower() and "/static-offline-docs/" in html
    assert client.get("/static-offline-docs/swagger-ui-bundle.js").status_code == 200


def test_path_finder_either_direction_on_the_page(client):
    one_way = client.get("/graph/sv-2007/12?a=12&b=27B1").text
    assert "no citation path" in one_way
    both = client.get("/graph/sv-2007/12?a=12&b=27B1&either=true").text
    assert "no citation path" not in both and "cites the one above" in both
    assert both.count('<polyline class="on-path"') == 2  # 12 -> 27D <- 27B1
    api = client.get("/api/graph/path", params={"a": "sv-2007/12", "b": "27B1", "either": "x"})
    assert api.status_code == 400
    # the fields keep what was asked, found or not, so it can be read and changed
    for query in ("a=12&b=27B1", "a=12&b=27B1&either=true", "a=12&b=999Z"):
        form = soup(client.get(f"/graph/sv-2007/12?{query}"))
        assert form.select_one("#p-a")["value"] == "12"
        assert form.select_one("#p-b")["value"] == query.split("b=")[1].split("&")[0]


@pytest.mark.parametrize("doc", ["fi-1997", "sv-2007", "el-2017"])
def test_the_path_finder_s_example_finds_a_path_in_each_book(client, doc):
    form = soup(client.get("/graph", params={"doc": doc}))
    a, b = form.select_one("#p-a")["placeholder"], form.select_one("#p-b")["placeholder"]
    got = client.get("/api/graph/path", params={"a": f"{doc}/{a}", "b": f"{doc}/{b}"})
    assert got.status_code == 200 and got.json()["path"]


@pytest.mark.parametrize(
    "path",
    [
        "/doc/sv-2007/40",
        "/doc/fi-2007/40",
        "/doc/sv-2007/16B1",
        "/doc/sv-2007/16D",
        "/doc/sv-2007/23",
    ],
)
def test_every_aligned_sentences_link_leads_to_sentences(client, path):
    """A pair whose sides have no text of their own (a law of titles and sections, a book
    that gives only the title) offers no aligned sentences; every link shown has some."""
    page = soup(client.get(path))
    links = [a["href"] for a in page.select("div.eq a[href^='/api/sentences']")]
    for href in links:
        got = client.get(href)
        assert got.status_code == 200 and got.json()["sentences"], href
    if path in ("/doc/sv-2007/16D", "/doc/sv-2007/23"):
        assert len(links) >= 2  # provisions with text keep their links
    # each has a page to read, with the same sentences side by side
    pages = [a["href"] for a in page.select("div.eq a[href^='/sentences']")]
    assert len(pages) == len(links)
    for href, twin in zip(pages, links, strict=True):
        rows = soup(client.get(href)).select("table.sentences tbody tr")
        sents = client.get(twin).json()["sentences"]
        assert [[td.get_text() for td in tr.select("td")] for tr in rows] == [
            [s["a"] or "—", s["b"] or "—"] for s in sents
        ]


def test_the_sentences_page_answers_unknown_provisions_with_a_404(client):
    assert client.get("/sentences", params={"a": "nope/1", "b": "sv-2007/1"}).status_code == 404
    # a label without its book is not a provision's id at all: a 400 that says which
    for url in ("/sentences", "/api/sentences"):
        bad = client.get(url, params={"a": "50", "b": "sv-2007/16"})
        assert bad.status_code == 400 and "a: not a node id" in bad.text, url
    page = client.get("/sentences", params={"a": "sv-2007/16", "b": "fi-1997/1"})
    assert page.status_code == 200 and "No aligned sentences" in page.text


@pytest.mark.parametrize(
    ("q", "says"),
    [
        ("16B1", "for provision 16B1: the provision, then texts that mention it"),
        ("16B1 otillåten upplysning", "provision 16B1 first, then the other words"),
        ("otillåten upplysning", "result"),
    ],
)
def test_search_page_says_how_the_query_was_read(client, q, says):
    summary = soup(client.get("/search", params={"q": q})).select_one("p.summary").get_text()
    assert says in " ".join(summary.split())
    assert ("first, then" in summary) == (q == "16B1 otillåten upplysning")


@pytest.mark.parametrize(
    ("q", "offered"),
    [
        ("16B1 otillaten", "16b1 otillåten"),  # the words beside a label found nothing
        ("otillåten upplysning", None),  # every word matched
    ],
)
def test_search_offers_the_books_spelling_when_a_word_found_nothing(client, q, offered):
    page = soup(client.get("/search", params={"q": q}))
    assert page.select("ol.hits li")
    hint = page.select_one("p.respelled")
    assert (hint.a.get_text() if hint else None) == offered


def test_search_shows_the_books_spelling_when_it_finds_every_word(client):
    """Typed without å, ä, ö, "otillrackligt bud" finds only "bud" as typed: the page
    shows what "otillräckligt bud" finds (Law 27, the insufficient bid) and says so."""
    page = soup(client.get("/search", params={"q": "otillrackligt bud", "doc": "sv-2007"}))
    said = page.select_one("p.spelt-as")
    assert said is not None and "Only some words" in said.get_text()
    assert "otillräckligt bud" in said.get_text()
    ids = [a["href"] for a in page.select("ol.hits li a[href^='/doc/']")]
    assert any(h.startswith("/doc/sv-2007/27") for h in ids[:5]), ids[:5]
    twin = page.select_one("a[href^='/api/search']")
    assert twin is not None and "otillr%C3%A4ckligt" in twin["href"]
    typed = soup(client.get("/search", params={"q": "otillräckligt bud", "doc": "sv-2007"}))
    assert typed.select_one("p.spelt-as") is None  # every word found as typed
    other = soup(client.get("/search", params={"q": "otillrackligt qqqzzz bud"}))
    assert other.select_one("p.spelt-as") is None  # respelled, a word still finds nothing


def test_lexicon_offers_the_books_spelling(client):
    hint = soup(client.get("/lexicon", params={"word": "tavlingsledaren"})).select_one(
        "a.respelled"
    )
    assert hint is not None and hint.get_text() == "tävlingsledaren"
    assert "not in the learned lexicon" not in client.get(hint["href"]).text
    assert soup(client.get("/lexicon", params={"word": "xyzzyq"})).select_one("a.respelled") is None


def test_a_definition_links_the_definition_of_the_same_term_in_other_books(client):
    """fi-1997 "Revokki" and sv-2007 "Revoke" define the glossary's "revoke": the page says
    so, through the glossary, and does not claim the wording is the same."""
    page = soup(client.get("/doc/fi-1997/def/revokki"))
    sv = page.select_one("#in-sv-2007 p.same-term")
    assert sv is not None and sv.select_one("a")["href"] == "/doc/sv-2007/def/revoke"
    assert "/glossary/revoke" in [a["href"] for a in sv.select("a")]
    assert "not by their wording" in sv.get_text()
    assert page.select_one("#in-el-2017 p.same-term") is None  # el-2017 defines no revoke
    back = soup(client.get("/doc/sv-2007/def/revoke")).select_one("#in-fi-1997 p.same-term a")
    assert back is not None and back["href"] == "/doc/fi-1997/def/revokki"
    assert not soup(client.get("/doc/sv-2007/16B1")).select("p.same-term")


def test_the_aligned_api_names_a_definition_s_same_term_definitions_too(client):
    """What the page says of fi-1997 "Revokki" the API says as well, apart from the rows."""
    got = client.get("/api/nodes/fi-1997/def/revokki/aligned").json()
    terms = {d["doc"]: d for d in got["same_term"]}
    assert terms["sv-2007"]["id"] == "sv-2007/def/revoke"
    assert terms["sv-2007"]["concept"] == "revoke" and terms["sv-2007"]["title"] == "Revoke"
    assert "el-2017" not in terms
    shown = {r["id"] for r in got["results"] if not r["flagged"]}
    assert not shown & {d["id"] for d in got["same_term"]}
    assert client.get("/api/nodes/sv-2007/16B1/aligned").json()["same_term"] == []


@pytest.mark.parametrize("path", ["/doc/fi-1997/72A1", "/doc/sv-2007/40A1"])
def test_a_book_without_the_law_s_text_says_so_before_any_near_miss(client, path):
    """fi-2007 gives Laws 40 and 72 by their titles only: no provision of it can be the
    equivalent, and pointing at its most similar one (10C1) would mislead."""
    block = soup(client.get(path)).select_one("#in-fi-2007")
    text = " ".join(block.get_text(" ").split())
    assert text.startswith("fi-2007 No text in fi-2007: it gives only the title of Law")
    assert "No reliable equivalent" not in text and not block.select("p.rejected")


def test_evidence_reads_as_sentences(client):
    lines = [
        " ".join(p.get_text().split())
        for p in soup(client.get("/doc/fi-1997/85A")).select("div.eq p.anchors, div.eq p.terms")
    ]
    assert any(line.startswith("Matching terms: ") for line in lines)
    assert any(line.startswith("Cited laws: both cite 84") for line in lines)
    length = [line for line in lines if line.startswith("Length: ")]
    assert length and all(
        re.fullmatch(
            r"Length: the other is \d\.\d\d times as long as this one "
            r"\(between these books usually \d\.\d\d times\)",
            line,
        )
        for line in length
    )


@pytest.mark.parametrize(("words", "status"), [(40, 200), (200, 400), (1000, 400)])
def test_a_long_query_is_searched_or_refused_on_the_search_page(client, words, status):
    """Up to the search's own limit (1,000 characters, as in the API) a query is searched;
    beyond it, however long, the search page says so and keeps its search box. The heading
    shows the query's start only, so the message stays in view."""
    q = " ".join(["revokki"] * words)
    got = client.get("/search", params={"q": q})
    assert got.status_code == status
    page = soup(got)
    box = page.select_one("form input[name=q]")
    assert box is not None and box["value"] == q and box["maxlength"] == "1000"
    heading = page.select_one("h1").get_text()
    assert len(heading) < 100 and heading.startswith("Search: revokki revokki")
    assert (len(q) > 80) == heading.endswith("…")
    if status == 400:
        assert "query too long" in page.select_one("p.error").get_text()


def test_a_label_search_says_which_book_has_another_rule_under_the_label(client, ingested):
    """fi-1997 16B1 (changing seats) is not the 2007/2017 16B1 (unauthorized information):
    the alignment says so, and the label search shows it beside the hit."""
    con = sqlite3.connect(ingested[0])
    flagged = {
        (a, b)
        for a, b in con.execute(
            "SELECT a, b FROM alignments WHERE relation = 'not-equivalent' AND a LIKE '%/16B1' "
            "AND b LIKE '%/16B1'"
        )
    }
    assert ("fi-1997/16B1", "sv-2007/16B1") in flagged  # the case this is about
    page = soup(client.get("/search", params={"q": "16B1"}))
    notes = {
        li.select_one("a.hit-link")["href"]: " ".join(
            li.select_one("small.other-rule").get_text().split()
        )
        for li in page.select("li.hit")
        if li.select_one("small.other-rule")
    }
    assert notes["/doc/fi-1997/16B1"].startswith("Another rule than 16B1 in ")
    assert "sv-2007" in notes["/doc/fi-1997/16B1"]
    assert "/doc/sv-2007/16B1" in notes and "fi-1997" in notes["/doc/sv-2007/16B1"]
    twins = {a.split("/")[0] for a, _ in flagged} | {b.split("/")[0] for _, b in flagged}
    assert {href.split("/")[2] for href in notes} <= twins
    plain = soup(client.get("/search", params={"q": "otillåten upplysning"}))
    assert not plain.select("small.other-rule")


def test_a_provision_page_keeps_quiet_findings_apart_as_the_report_does(client, con):
    """fi-1997/16B1 against el-2017: "el-2017 speaks of denomination, score" is a quiet
    finding (a glossary term on one side only), which the report leaves out unless asked:
    the page lists it apart, and its link opens the report where it is shown."""
    page = soup(client.get("/doc/fi-1997/16B1"))
    quiet = page.select("details.quiet-divergences li")
    assert quiet and all("speaks of" in li.get_text() for li in quiet)
    listed = " ".join(
        li.get_text() for li in page.select("#dv-h ~ details:not(.quiet-divergences) li")
    )
    assert "speaks of" not in listed
    for li in quiet:
        href = li.a["href"]
        focus = href.split("#", 1)[1]
        assert soup(client.get(href)).select_one(f"#{focus}") is not None, href
    # fi-1997/12A has both kinds; a finding the checks count is joined to its link by a
    # dash, not run into it
    page = soup(client.get("/doc/fi-1997/12A"))
    shown = page.select("#dv-h ~ details:not(.quiet-divergences) li")
    assert shown and page.select("details.quiet-divergences li")
    assert all(" — see both passages" in li.get_text() for li in shown if li.a)


def test_sorting_the_divergence_report_sorts_every_page(client):
    """The column headers sort on the server (a sort only in the browser would order the
    page at hand): page 2 sorted by provision continues where page 1 stopped."""
    base = {"a": "fi-1997", "b": "el-2017", "family": "edition", "sort": "label", "desc": "false"}
    first = soup(client.get("/divergences", params=base))
    assert first.select_one("table.report")
    assert not first.select("table[data-sortable]")
    head = first.select_one('th[aria-sort="ascending"]')
    assert head is not None and head.get_text(strip=True).startswith("Provision")
    nxt = first.select_one('a[rel="next"]')
    assert nxt is not None, "needs a report longer than one page"
    second = soup(client.get(nxt["href"]))

    def ids(page):
        rows = page.select("table.report > tbody > tr[id^=f-]")
        return [tr["id"].removeprefix("f-") for tr in rows]

    api = client.get("/api/divergences", params=base).json()
    order = [r["id"] for r in api["results"]]
    both = ids(first) + ids(second)
    assert len(both) > len(ids(first)) and both == order[: len(both)]


def test_the_lexicon_page_shows_words_as_the_books_write_them_and_reads_to(client):
    """Greek keeps its accents and final sigma ("διαιτητής", not the key "διαιτητ"), a
    translation not learned both ways is marked uncertain (by its numbers on the row), and
    ``to`` keeps one language."""
    page = soup(client.get("/lexicon", params={"word": "kilpailunjohtaja"}))
    rows = [tr.get_text(" ", strip=True) for tr in page.select("table.lexicon tbody tr")]
    assert any("διαιτητής" in r for r in rows) and not any("διαιτητ " in r for r in rows)
    assert any("του" in r.split() and "uncertain" in r for r in rows)
    for tr in page.select("table.lexicon tbody tr"):
        p, back = (float(td.get_text()) for td in tr.select("td")[2:4])
        assert ("uncertain" in tr.get_text()) == (p * back < 0.25**2 - 1e-9)
    revoke = soup(client.get("/lexicon", params={"word": "revokki", "to": "sv"}))
    sure = [tr for tr in revoke.select("table.lexicon tbody tr") if "uncertain" not in tr.text]
    assert sure and all("revoke" in tr.get_text() for tr in sure)
    greek = soup(client.get("/lexicon", params={"word": "kilpailunjohtaja", "to": "el"}))
    langs = {td["lang"] for td in greek.select("table.lexicon tbody td[lang]:nth-child(2)")}
    assert langs == {"el"}
    assert greek.select_one('select[name="to"] option[selected]')["value"] == "el"
    assert client.get("/lexicon", params={"word": "revokki", "to": "zz"}).status_code == 400
    assert client.get("/lexicon", params={"word": "revokki", "to": "et"}).status_code == 400  # none


@pytest.mark.parametrize("law", ["68", "16", "12"])
def test_a_compare_gap_says_where_the_book_s_provision_of_that_label_is(client, law):
    """A book whose 68D is another rule than the row's (el-2017 68D against fi-1997 and
    sv-2007 68D) does not lack 68D: its cell links to the row that holds it."""
    page = soup(client.get(f"/compare/{law}"))
    cells = page.select("td.gap.elsewhere")
    assert cells
    for td in cells:
        label, doc = td.a["data-label"], td["data-col"]
        target = page.select_one(f'tr[id="{td.a["href"][1:]}"]')
        assert target is not None and target is not td.find_parent("tr")
        held = target.select_one(f'td[data-col="{doc}"] a.label')
        assert held is not None and held["href"] == f"/doc/{doc}/{label}"
        assert held.get_text() == td.a.get_text()  # as that book writes it
        row = td.find_parent("tr").select("td:not(.gap) a.label")
        assert label in {a["href"].split("/", 3)[3] for a in row}


def test_a_comparison_asked_for_by_a_word_offers_to_search_for_it(client):
    r = client.get("/compare/revoke")
    assert r.status_code == 400
    offer = soup(r).select_one("a.search-instead")
    assert offer is not None and offer["href"] == "/search?q=revoke"
    assert client.get(offer["href"]).status_code == 200
    assert soup(client.get("/doc/nope/1")).select_one("a.search-instead") is None


def test_the_compare_form_keeps_the_documents_ticked(client):
    r = client.get(
        "/compare", params=[("label", "16"), ("docs", "fi-1997"), ("docs", "el-2017")],
        follow_redirects=False,
    )  # fmt: skip
    assert r.status_code == 303 and r.headers["location"] == "/compare/16?docs=fi-1997&docs=el-2017"
    shown = soup(client.get(r.headers["location"])).select("table.compare thead th[data-col]")
    assert [th["data-col"] for th in shown] == ["fi-1997", "el-2017"]
    greek = client.get("/compare", params={"label": "Νόμος 20ΣΤ5"}, follow_redirects=True)
    assert greek.status_code == 200 and "20F5" in greek.text
    assert "none ticked" in client.get("/compare").text


def test_a_provision_whose_text_is_in_its_parts_names_their_equivalents(client, con):
    """el-2017 73E has no text of its own; its 73E1 is sv-2007 73E: the page says so, not
    "no reliable equivalent". The parts' equivalents are those the alignment shows."""
    page = soup(client.get("/doc/el-2017/73E"))
    sv = page.select_one("#in-sv-2007")
    assert sv.select_one("p.none") is None and "No single equivalent" in sv.get_text()
    links = [[a["href"] for a in li.select("a")[:2]] for li in sv.select("ul.parts li")]
    assert ["/doc/el-2017/73E1", "/doc/sv-2007/73E"] in links
    for part, eq in links:
        shown = {r["id"] for r in aligned(con, part.removeprefix("/doc/")) if not r["flagged"]}
        assert eq.removeprefix("/doc/") in shown
    # a provision with no equivalent, nor parts that have one, still says so
    assert soup(client.get("/doc/sv-2007/16B1")).select_one("#in-fi-1997 p.none") is not None


def test_the_sentences_page_says_how_the_two_relate(client, con):
    """The note above the sentences follows the pair's row: an equivalent is called one, a
    rejected label twin or a mere closest candidate is not."""
    show = calibration.SHOW
    for relation, score, says in (
        ("same", 0.0, "Shown as equivalent."),
        ("renumbered", 0.0, "Shown as equivalent, renumbered."),
        ("not-equivalent", 0.0, "Not equivalent"),
        ("none", 0.0, "No reliable equivalent"),
        ("partial", 0.0, "not an equivalent"),  # a rewritten twin
        ("partial", show, "not confirmed as the equivalent"),  # scored too low to confirm
        ("law", 0.0, "The same law, its text divided differently"),
        ("topic", 0.0, "A candidate law for the Estonian topic, not an equivalent"),
    ):
        low, high = (show, 1.0) if score else (0.0, show if relation == "partial" else 1.1)
        row = con.execute(
            "SELECT a, b FROM alignments WHERE relation = ? AND score >= ? AND score < ? "
            "ORDER BY a, b LIMIT 1",
            (relation, low, high),
        ).fetchone()
        assert row is not None, relation
        note = soup(client.get("/sentences", params={"a": row[0], "b": row[1]})).select_one(
            "h1 ~ p:nth-of-type(2)"
        )
        assert note is not None and says in note.get_text(), (relation, row)
        shown = relation in ("same", "renumbered")
        assert ("Shown as equivalent" in note.get_text()) == shown, relation


@pytest.mark.parametrize("pair", [("et-1930s", "sv-2007"), ("fi-1997", "et-1930s")])
def test_the_report_for_the_book_of_topics_says_why_it_has_no_findings(client, pair):
    page = soup(client.get("/divergences", params={"a": pair[0], "b": pair[1]}))
    note = page.select_one("p.unconfirmed[role=note]")
    assert note is not None and "book of topics" in note.get_text()
    assert note.select_one("a[href='/doc/et-1930s']") is not None
    assert page.select_one("p.lede") is None  # not "mostly edition changes"
    assert "0 edition changes" not in page.get_text() and page.select_one("table.report") is None
    other = soup(client.get("/divergences", params={"a": "fi-1997", "b": "sv-2007"}))
    assert other.select_one("p.lede") is not None and "book of topics" not in other.get_text()


def test_a_law_found_through_an_estonian_topic_is_a_candidate_not_an_equivalent(client):
    page = soup(client.get("/search", params={"q": "salgamine", "expand": "true"}))
    notes = [s.get_text(" ", strip=True) for s in page.select("ol.hits small")]
    via_topic = [n for n in notes if "et-1930s/topic/" in n]
    assert via_topic and all(n.startswith("a candidate for the topic") for n in via_topic)
    assert not any(n.startswith("equivalent of et-1930s") for n in notes)


def test_the_graph_page_of_a_document_is_reached_without_a_provision(client):
    """The document selector draws the book's own page when no provision is typed, and
    /graph/DOC leads there; an unknown document is a 404."""
    page = soup(client.get("/graph", params={"doc": "fi-2007"}))
    box = page.select_one("form.toolbar input[name=node]")
    assert box is not None and not box.has_attr("required")
    assert client.get("/graph", params={"doc": "fi-2007", "node": ""}).status_code == 200
    moved = client.get("/graph/fi-2007", follow_redirects=False)
    assert moved.status_code == 307 and moved.headers["location"] == "/graph?doc=fi-2007"
    assert "Citation graph of fi-2007" in client.get("/graph/fi-2007", follow_redirects=True).text
    assert client.get("/graph/zz-0000").status_code == 404
    # with its other parameters, and with a slash after the document
    kept = client.get("/graph/fi-2007?types=cites&a=1&b=2", follow_redirects=False)
    assert kept.headers["location"] == "/graph?doc=fi-2007&types=cites&a=1&b=2"
    slash = client.get("/graph/fi-2007/", follow_redirects=False)
    assert slash.status_code == 307 and slash.headers["location"] == "/graph?doc=fi-2007"


def test_what_a_cross_language_search_adds_is_worded_by_its_relation(client):
    """A provision added beside a hit is called its equivalent only when the alignment
    shows it as one; the JSON twin gives the relation."""
    got = client.get("/api/search", params={"q": "revokki", "expand": "true", "limit": 50})
    added = [h for h in got.json()["hits"] if h.get("via")]
    assert added and all(h["via_relation"] for h in added)
    page = soup(client.get("/search", params={"q": "revokki", "expand": "true"}))
    words = {s.get_text(" ", strip=True).rsplit(" ", 1)[0] for s in page.select("ol.hits small")}
    relations = {h["via_relation"] for h in added}
    assert ("equivalent of" in words) == bool(relations & {"same", "renumbered", "moved"})
    if "partial" in relations:
        assert "same label, not an equivalent, as" in words


def test_a_national_rule_is_named_with_its_country_and_not_sought_elsewhere(client):
    # sv-2007 Law 98 (SE) is a Swedish supplement; its sections carry no code of their own
    for path in ("/doc/sv-2007/98", "/doc/sv-2007/98A", "/doc/fi-1997/BL6"):
        page = soup(client.get(path))
        text = page.get_text(" ", strip=True)
        assert re.search(r"National supplement \((SE|FI)\)\.", text), path
        assert "()" not in text
        panel = page.select_one("section[aria-labelledby=eq-h]").get_text(" ", strip=True)
        assert "A national rule of" in panel and "No reliable equivalent" not in panel, path
    # a provision of the Laws says nothing of the kind
    assert "National supplement" not in soup(client.get("/doc/sv-2007/16B")).get_text()


def test_nodes_the_alignment_does_not_line_up_say_so(client):
    for path, what in (
        ("/doc/sv-2007/index/78", "index entry"),
        ("/doc/fi-1997/fn/19", "footnote"),
    ):
        panel = soup(client.get(path)).select_one("section[aria-labelledby=eq-h]")
        words = panel.get_text(" ", strip=True)
        assert f"this {what} is not" in words and "No reliable equivalent" not in words


def test_an_index_cross_reference_leads_to_its_entry(client, con):
    # sv-2007 "Korrigering – Revoke" says only "see Revoke"; el-2017 "ΕΠΑΝΟΡΘΩΣΗ" says see
    # "Επανορθωτική Βαθμολογία", whose heading the index prints in capitals
    page = soup(client.get("/doc/sv-2007/index/78"))
    link = page.select_one("p.see a")
    assert link["href"] == "/doc/sv-2007/index/265" and link.get_text() == "Revoke"
    link = soup(client.get("/doc/el-2017/index/334")).select_one("p.see a")
    assert link["href"] == "/doc/el-2017/index/350"
    assert soup(client.get(link["href"])).h1.get_text(strip=True) == "ΕΠΑΝΟΡΘΩΤΙΚΗ ΒΑΘΜΟΛΟΓΙΑ"
    # every entry with a cross-reference shows it, linked where the book has that heading
    entries = [
        nid
        for nid, attrs in con.execute("SELECT id, attrs FROM nodes WHERE kind = 'index_term'")
        if json.loads(attrs).get("see")
    ]
    linked = 0
    for nid in entries:
        see = soup(client.get("/doc/" + nid)).select_one("p.see")
        assert see is not None, nid
        linked += len(see.select("a"))
    assert len(entries) > 40 and linked > len(entries) * 0.75


def test_footnotes_and_other_unlabelled_nodes_are_named_in_words(client):
    page = soup(client.get("/doc/fi-1997/fn/19"))
    assert page.h1.get_text(" ", strip=True) == "Footnote 19 (marked *) at 62B2"
    assert page.h1.a["href"] == "/doc/fi-1997/62B2"
    assert page.title.get_text().startswith("fi-1997 footnote 19")
    # a footnote citing a law is named in words where the law lists what cites it
    cited = soup(client.get("/doc/sv-2007/4")).get_text(" ", strip=True)
    assert "footnote 1" in cited and "fn/1" not in cited
    # an index entry listing a definition names it by its title
    listed = soup(client.get("/doc/sv-2007/index/343")).select_one("p.targets a")
    assert listed["href"] == "/doc/sv-2007/def/stick" and "def/" not in listed.get_text()


def test_the_search_counts_its_matches_as_its_limit_does(client):
    page = soup(client.get("/search", params={"q": "revokki", "expand": "true", "more": "true"}))
    summary = page.select_one("p.summary").get_text(" ", strip=True)
    matches = len(page.select("li.hit:not(.via)"))
    brought = len(page.select("li.hit.via"))
    assert brought > 0 and summary.startswith(f"The first {matches} results (and {brought} ")
    assert matches <= 100 and "at most 100 matches" in summary


def test_the_lexicon_says_when_a_word_is_of_the_language_asked(client):
    page = soup(client.get("/lexicon", params={"word": "revoke", "to": "sv"}))
    said = page.select_one("p.own-language")
    assert said is not None and "a Swedish word itself" in said.get_text()
    assert said.a["href"] == "/lexicon?word=revoke"
    assert "not in the learned lexicon" not in page.get_text()
    page = soup(client.get("/lexicon", params={"word": "qqqzzz", "to": "sv"}))
    assert "not in the learned lexicon" in page.get_text()


def test_words_in_the_go_box_of_a_book_search_that_book_and_a_slash_is_forgiven(client):
    r = client.get("/go", params={"label": "zzz", "doc": "fi-2007"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/search?q=zzz&doc=fi-2007"
    r = client.get("/go", params={"label": "16B1", "doc": "fi-2007"}, follow_redirects=False)
    assert r.headers["location"] == "/doc/fi-2007/16B1"
    for path, to in (
        ("/doc/sv-2007/16B1/", "/doc/sv-2007/16B1"),
        ("/doc/sv-2007/", "/doc/sv-2007"),
    ):
        r = client.get(path, follow_redirects=False)
        assert r.status_code == 301 and r.headers["location"] == to


def test_contents_and_coverage_name_a_national_law_once_in_book_order(client):
    page = soup(client.get("/doc/fi-1997"))
    bl6 = next(a for a in page.select("li.law a") if a["href"] == "/doc/fi-1997/BL6")
    assert bl6.get_text(" ", strip=True) == "BL6"
    rows = client.get("/api/coverage").json()["rows"]
    laws = [r["law"] for r in rows]
    assert laws.index("SR6") < laws.index("BL6") and laws.index("93") < laws.index("SR1")


def test_the_estonian_column_of_a_comparison_points_to_its_topics(client):
    page = soup(client.get("/compare/1", params=[("docs", "et-1930s"), ("docs", "sv-2007")]))
    cell = page.select_one('td[data-col="et-1930s"]')
    topics = page.select("#topics li")
    assert topics and cell.a["href"] == "#topics"
    assert f"{len(topics)} of its topics" in cell.get_text() and "has no provision" not in str(cell)
    # the topic book alone: the law in every book, with its topics
    r = client.get("/compare/1", params={"docs": "et-1930s"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/compare/1#topics"
