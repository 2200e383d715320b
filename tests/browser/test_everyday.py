"""What people use every day, in a real browser: API docs offline, the graph, phone layouts."""

import re
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect


@pytest.fixture
def offline(page):
    """The page with every request that is not to loopback blocked; yields the blocked URLs."""
    blocked: list[str] = []

    def guard(route):
        if urlparse(route.request.url).hostname in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page.context.route("**/*", guard)
    yield page, blocked


def test_swagger_ui_lists_the_operations_offline(offline):
    page, blocked = offline
    page.goto("/docs")
    ops = page.locator(".opblock-summary-path")
    expect(ops.first).to_be_visible()
    paths = {ops.nth(i).get_attribute("data-path") for i in range(ops.count())}
    assert {"/api/documents", "/api/search", "/api/graph/path"} <= paths
    assert blocked == []


def test_redoc_lists_the_operations_offline(offline):
    page, blocked = offline
    page.goto("/redoc")
    ops = page.locator('li[data-item-id*="operation/"]')
    expect(ops.first).to_be_attached()
    assert ops.count() >= 20
    expect(page.locator("h1").first).to_contain_text("lawgraph")
    assert blocked == []


def test_pages_have_a_favicon(page):
    page.goto("/")
    href = page.locator('link[rel="icon"]').get_attribute("href")
    r = page.request.get(href)
    assert r.status == 200 and r.headers["content-type"].startswith("image/")
    assert page.request.get("/favicon.ico").status == 200


def _overlapping(boxes: list[dict]) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, a in enumerate(boxes)
        for j, b in enumerate(boxes[i + 1 :], i + 1)
        if a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]
    ]  # fmt: skip


@pytest.mark.parametrize("url", ["/graph/el-2017/16?depth=2", "/graph/sv-2007/16?depth=3"])
def test_graph_labels_do_not_overlap(page, url):
    page.goto(url)
    texts = page.locator("svg#graph a.gnode text")
    assert texts.count() >= 40
    boxes = texts.evaluate_all("els => els.map(e => e.getBoundingClientRect().toJSON())")
    assert all(b["width"] > 0 for b in boxes)
    assert _overlapping(boxes) == []
    # Labels keep their size on screen when zooming in; positions spread.
    before = page.locator("svg#graph a.gnode.center text").bounding_box()
    page.locator("svg#graph").focus()
    page.keyboard.press("+")
    page.keyboard.press("+")
    after = page.locator("svg#graph a.gnode.center text").bounding_box()
    assert abs(after["height"] - before["height"]) < 1.5


def test_graph_greek_labels_in_greek_script(page):
    page.goto("/graph/el-2017/16?depth=2")
    shown = page.locator("svg#graph a.gnode text").all_text_contents()
    assert any("Γ" in t for t in shown) and not any(re.search(r"\d[A-H]", t) for t in shown)


def test_path_finder_either_direction_draws_the_path(page):
    page.goto("/graph/el-2017/16?depth=1")
    page.get_by_label("to", exact=True).fill("12Γ1")
    page.get_by_label("follow citations in either direction").check()
    page.get_by_role("button", name="Find path").click()
    page.wait_for_url(re.compile(r"either=true"))
    steps = page.locator("ol.path li")
    assert steps.count() >= 2
    expect(steps.last).to_contain_text("12Γ1")
    on_path = page.locator("svg#graph a.gnode.on-path")
    ids = on_path.evaluate_all("els => els.map(e => e.dataset.id)")
    assert "el-2017/16" in ids and any(i.startswith("el-2017/12C1") for i in ids)
    assert page.locator("svg#graph polyline.on-path").count() == len(ids) - 1


#: Elements that stick out of ``root`` (the viewport when null) sideways, unless a box
#: between them and ``root`` scrolls or clips them. Visually hidden helpers are skipped.
STICKING_OUT = """root => {
  const edge = root ? root.getBoundingClientRect()
                    : {left: 0, right: document.documentElement.clientWidth};
  const bad = [];
  for (const e of (root || document.body).querySelectorAll("*")) {
    if (e.closest(".vh, .skip")) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.right <= edge.right + 1 && r.left >= edge.left - 1) continue;
    let p = e.parentElement, held = false;
    while (p && p !== root && p !== document.body) {
      if (/(auto|scroll|hidden)/.test(getComputedStyle(p).overflowX)) { held = true; break; }
      p = p.parentElement;
    }
    if (!held) bad.push(e.tagName + "." + e.className + " " + (e.textContent || "").slice(0, 30));
  }
  return bad;
}"""


def _fits_the_screen(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate(STICKING_OUT, None) == []


def test_compare_on_a_phone_shows_one_version_with_a_switcher(phone):
    phone.goto("/compare/16")
    switcher = phone.get_by_role("group", name="Version shown")
    expect(switcher).to_be_visible()
    head = phone.locator("table.compare thead th[data-col]")
    visible = [h.get_attribute("data-col") for h in head.all() if h.is_visible()]
    assert visible == ["fi-1997"]
    _fits_the_screen(phone)
    switcher.get_by_role("button", name="el-2017").click()
    expect(phone.locator('thead th[data-col="el-2017"]')).to_be_visible()
    expect(phone.locator('thead th[data-col="fi-1997"]')).to_be_hidden()
    expect(phone.locator('td[data-col="el-2017"]').first).to_be_visible()
    _fits_the_screen(phone)
    # from the keyboard: the right arrow shows the next version and moves the focus there
    phone.keyboard.press("ArrowRight")
    nxt = switcher.get_by_role("button").nth(2)
    expect(nxt).to_have_attribute("aria-pressed", "true")
    expect(nxt).to_be_focused()
    phone.keyboard.press("ArrowLeft")
    expect(switcher.get_by_role("button", name="el-2017")).to_be_focused()
    expect(phone.locator('thead th[data-col="el-2017"]')).to_be_visible()


def test_divergence_table_on_a_phone_fits_the_screen(phone):
    phone.goto("/divergences?a=fi-2007&b=sv-2007")
    box = phone.locator(".scroll:has(table.report)")
    expect(box.locator("table.report")).to_be_visible()
    assert not box.evaluate("b => b.scrollWidth > b.clientWidth")  # a card per finding
    _fits_the_screen(phone)


def test_compare_on_a_wide_screen_shows_every_version(page):
    page.goto("/compare/16")
    expect(page.get_by_role("group", name="Version shown")).to_be_hidden()
    assert page.locator("table.compare thead th[data-col]:visible").count() == 4


WIDE_PAGES = ["/graph?doc=sv-2007", "/graph?doc=fi-1997", "/graph/fi-1997/12?depth=2",
              "/doc/sv-2007/23"]  # fmt: skip


@pytest.mark.parametrize("url", WIDE_PAGES)
def test_no_collisions_at_1400_px(wide, url):
    pg = wide
    pg.goto(url)
    panels = pg.locator(".panels > .panel")
    assert panels.count() >= 2
    rects = panels.evaluate_all("els => els.map(e => e.getBoundingClientRect().toJSON())")
    assert _overlapping(rects) == []
    for i in range(panels.count()):
        assert panels.nth(i).evaluate(STICKING_OUT) == []
    assert pg.evaluate(STICKING_OUT, None) == []


def test_citation_preview_on_hover_and_keyboard_focus(page):
    page.goto("/doc/sv-2007/16A1")
    link = page.locator('[id="16A1(b)"] a.cite')
    tip = page.locator("#cite-preview")
    link.hover()
    expect(tip).to_be_visible()
    expect(tip).to_contain_text("16D")
    expect(tip).to_contain_text("Upplysningar från återtagna bud och spel")
    expect(link).to_have_attribute("aria-describedby", "cite-preview")
    page.mouse.move(0, 0)
    expect(tip).to_be_hidden()
    link.focus()  # keyboard users get the same preview
    expect(tip).to_be_visible()
    expect(tip).to_have_attribute("lang", "sv")
    page.keyboard.press("Escape")
    expect(tip).to_be_hidden()


def test_repeated_citations_are_counted(page):
    page.goto("/doc/sv-2007/23")
    item = page.locator("ul.citedby li", has=page.locator('a[href="/doc/sv-2007/38D"]'))
    expect(item).to_contain_text("cites it 2 times")
    once = page.locator("ul.citedby li", has=page.locator('a[href="/doc/sv-2007/24B"]'))
    expect(once).not_to_contain_text("times")


def test_citation_preview_in_the_greek_book_uses_greek_labels(page):
    page.goto("/doc/el-2017/27B1")
    link = page.locator("a.cite", has_text="16Γ").first
    link.focus()
    tip = page.locator("#cite-preview")
    expect(tip).to_contain_text("16Γ")
    expect(tip).to_contain_text("el-2017/16C")
    expect(tip).to_have_attribute("lang", "el")


def test_a_comparison_taller_than_the_window_says_rows_are_below(page):
    page.goto("/compare/16")
    wrap, note = page.locator(".compare-wrap"), page.locator("p.more-below")
    assert wrap.evaluate("w => w.scrollHeight > w.clientHeight")
    expect(note).to_be_visible()
    expect(note).to_contain_text("More rows below")
    wrap.evaluate("w => { w.scrollTop = w.scrollHeight; }")
    expect(note).to_be_hidden()
    page.goto("/compare/3")  # a short law fits: no note
    assert not page.locator(".compare-wrap").evaluate("w => w.scrollHeight > w.clientHeight")
    expect(page.locator("p.more-below")).to_be_hidden()


PAGE_END = """() => {
  const foot = document.querySelector("footer") || document.body.lastElementChild;
  return [document.documentElement.scrollHeight,
          foot.getBoundingClientRect().bottom + window.scrollY];
}"""


@pytest.mark.parametrize("url", ["/compare/16", "/compare/40", "/doc/fi-1997/40", "/"])
def test_the_page_ends_where_its_content_ends(page, url):
    # text kept for screen readers inside a box that scrolls must not stretch the page
    # below its footer (a long comparison's hidden cells once left 10,000 px of blank)
    page.goto(url)
    height, end = page.evaluate(PAGE_END)
    assert height <= end + 40, (height, end)


def test_a_comparison_of_every_book_wider_than_its_box_says_columns_are_to_the_right(page):
    page.goto("/compare/62?docs=fi-1997,el-2017,et-1930s,fi-2007,sv-2007")
    wrap = page.locator(".compare-wrap")
    note = page.locator("p.more-right", has_text="More columns to the right")
    assert wrap.evaluate("w => w.scrollWidth > w.clientWidth")
    expect(note).to_be_visible()
    wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
    expect(note).to_be_hidden()
    page.goto("/compare/62?docs=fi-1997,sv-2007")  # two books fit: no note
    assert not page.locator(".compare-wrap").evaluate("w => w.scrollWidth > w.clientWidth")
    expect(page.locator("p.more-right")).to_be_hidden()


def test_a_report_wider_than_its_box_says_columns_are_to_the_right(browser, server):
    """Between a phone's width and a desktop's the report's table is wider than its box."""
    context = browser.new_context(base_url=server, viewport={"width": 660, "height": 844})
    try:
        narrow = context.new_page()
        narrow.goto("/divergences?a=fi-1997&b=el-2017&family=edition")
        wrap = narrow.locator("div.scroll", has=narrow.locator("table.report"))
        note = narrow.locator("p.more-right").first
        assert wrap.evaluate("w => w.scrollWidth > w.clientWidth")
        expect(note).to_be_visible()
        expect(note).to_contain_text("More columns to the right")
        wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
        expect(note).to_be_hidden()
    finally:
        context.close()


def test_on_a_phone_the_report_is_a_card_per_finding_with_what_differs_in_view(phone):
    phone.goto("/divergences?a=fi-1997&b=el-2017&family=edition")
    wrap = phone.locator("div.scroll", has=phone.locator("table.report"))
    assert not wrap.evaluate("w => w.scrollWidth > w.clientWidth")
    expect(phone.locator("p.more-right").first).to_be_hidden()
    first = phone.locator("table.report tbody tr").first
    differs = first.locator("td").nth(4)
    box, width = differs.bounding_box(), phone.viewport_size["width"]
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    assert differs.inner_text().strip()  # the finding's words, in view
    expect(phone.locator("table.report thead a").first).to_be_visible()  # sorting stays


def test_a_report_that_fits_says_nothing_of_columns(page):
    page.goto("/glossary")
    assert not page.locator("div.scroll").first.evaluate("w => w.scrollWidth > w.clientWidth")
    expect(page.locator("p.more-right").first).to_be_hidden()
