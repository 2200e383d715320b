"""Search in every language and the side-by-side comparison, in a real browser."""

import pytest
from playwright.sync_api import expect

# (language, query, document of the hit to open, a word of that hit's page)
SEARCHES = [
    ("fi", "rangaistuskortti", "fi-1997", "rangaistuskort"),
    ("sv", "återtaget bud", "sv-2007", "återtag"),
    ("el", "συμπαίκτη", "el-2017", "συμπα"),
    ("et", "kõlbmata pakkumine", "et-1930s", "Kõlbmata"),
]


@pytest.mark.parametrize(("lang", "query", "doc", "word"), SEARCHES, ids=[s[0] for s in SEARCHES])
def test_search_in_each_language_and_open_a_hit(page, lang, query, doc, word):
    page.goto("/")
    box = page.get_by_label("Search the text")
    box.fill(query)
    box.press("Enter")
    page.wait_for_url("**/search?q=*")
    expect(page.locator("p.summary")).to_contain_text("result")
    group = page.locator(f"section#r-{doc}")
    expect(group).to_be_visible()
    expect(group.locator(".snippet mark").first).to_be_visible()
    expect(group.locator("li.hit .snippet").first).to_have_attribute("lang", lang)
    # The language filter keeps only that language's books.
    page.locator("select[name=lang]").select_option(lang)
    page.get_by_role("button", name="Search", exact=True).click()
    page.wait_for_url(f"**lang={lang}*")
    langs = set(page.locator("li.hit .snippet").evaluate_all("els => els.map(e => e.lang)"))
    assert langs == {lang}
    link = page.locator(f"section#r-{doc} li.hit a.hit-link").first
    href = link.get_attribute("href")
    link.click()
    page.wait_for_url(f"**{href}")
    assert f"/doc/{doc}/" in page.url
    expect(page.locator("article.provision")).to_have_attribute("lang", lang)
    expect(page.locator("article.provision")).to_contain_text(word, ignore_case=True)


def test_compare_law_16_across_four_documents(page):
    page.goto("/compare/16")
    checks = page.locator("fieldset input[name=docs]")
    for doc in ("fi-1997", "el-2017", "fi-2007", "sv-2007"):
        expect(checks.locator(f"xpath=self::*[@value='{doc}']")).to_be_checked()
    page.locator("input[name=docs][value=et-1930s]").uncheck()
    page.get_by_role("button", name="Show").click()
    page.wait_for_url("**/compare/16?docs=*")
    heads = page.locator("table.compare thead th[id^=col-]")
    assert heads.evaluate_all("els => els.map(e => e.id)") == [
        "col-fi-1997", "col-el-2017", "col-fi-2007", "col-sv-2007",
    ]  # fmt: skip
    rows = page.locator("table.compare tr.crow")
    assert rows.count() > 20
    # 16B1(b) (what a logical alternative is) exists in the 2007 and 2017 books, not in
    # fi-1997 (a gap there).
    row = page.locator('tr[id="row-16B1(b)"]')
    expect(row).to_be_visible()
    cells = row.locator("td")
    expect(cells.nth(0)).to_have_class("gap")
    # Each book's label as it prints it: the Greek one in Greek script.
    for i, lang, label in ((1, "el", "16Β1(β)"), (2, "fi", "16B1(b)"), (3, "sv", "16B1(b)")):
        expect(cells.nth(i)).to_have_attribute("lang", lang)
        expect(cells.nth(i).locator("a.label")).to_have_text(label)
    # The sticky header keeps the columns labelled while the rows scroll.
    row.scroll_into_view_if_needed()
    wrap = page.locator(".compare-wrap")
    wrap.evaluate("el => el.scrollTop = el.scrollHeight / 2")
    head = page.locator("#col-sv-2007")
    expect(head).to_be_in_viewport()
    # Divergences are marked in place.
    assert page.locator("td.diverges").count() > 0
    assert page.locator("tr.dvrow details").count() > 0


def test_compare_shows_aligned_sentences(page):
    page.goto("/compare/1?docs=fi-2007&docs=sv-2007")
    block = page.locator("tr.srow details.sentences").first
    expect(block).to_be_visible()
    expect(block.locator("summary")).to_contain_text("Sentence by sentence")
    block.locator("summary").click()
    beads = block.locator("table.sentences tr.bead")
    assert beads.count() >= 2
    first = beads.first.locator("td")
    expect(first.nth(0)).to_have_attribute("lang", "fi")
    expect(first.nth(1)).to_have_attribute("lang", "sv")
    expect(first.nth(0)).to_contain_text("52")
    expect(first.nth(1)).to_contain_text("52")


def test_moved_law_in_compare_and_on_the_provision_page(page):
    page.goto("/compare/23?docs=el-2017&docs=sv-2007")
    note = page.locator("td.via.flagged p.note")
    expect(note).to_contain_text("Not equivalent")
    expect(note.locator("a")).to_have_text("el-2017/72C")
    note.locator("a").click()
    page.wait_for_url("**/doc/el-2017/72C")
    version = page.locator("#in-sv-2007")
    expect(version.locator(".rel")).to_contain_text("moved")
    expect(version.locator("p.why")).to_contain_text("likely")
    expect(version.locator("p.terms")).to_be_visible()


def test_estonian_topic_lists_laws_in_every_book_or_none(page):
    page.goto("/doc/et-1930s/topic/salgamine")
    for doc in ("fi-1997", "el-2017", "fi-2007", "sv-2007"):
        block = page.locator("div.version", has=page.locator(f"h3 code:text-is('{doc}')"))
        expect(block.locator("ol.candidates li").first).to_contain_text("Law 61")
    page.goto("/doc/et-1930s/topic/culbertsoni-susteem")
    expect(page.locator("p.none").first).to_contain_text("order of the laws")


def test_mark_a_divergence_and_see_the_state_after_a_reload(page):
    """A translator marks a finding as confirmed with a note; it is still marked after a
    reload, and the review filter finds it."""
    page.goto("/divergences?a=fi-2007&b=sv-2007")
    row = page.locator("table.report > tbody > tr").nth(1)
    fid = row.get_attribute("id")
    row.locator("select[name=review_state]").select_option("confirmed")
    row.locator("input[name=note]").fill("checked against the book")
    row.get_by_role("button", name="Save").click()
    page.wait_for_url(f"**#{fid}")
    page.reload()
    mine = page.locator(f"#{fid}")
    expect(mine.locator(".state")).to_have_text("confirmed")
    expect(mine.locator(".note")).to_have_text("checked against the book")
    page.goto("/divergences?a=fi-2007&b=sv-2007&state=confirmed")
    expect(page.locator(f"#{fid}")).to_be_visible()
