"""The explorer in a real browser: go-to, citation links, the graph page."""

import re

from playwright.sync_api import expect


def test_go_to_provision_with_a_greek_label(page):
    page.goto("/")
    page.get_by_label(re.compile("^Go to a provision")).fill("Νόμος 20ΣΤ5")
    page.get_by_label(re.compile("^Go to a provision")).press("Enter")
    page.wait_for_url("**/doc/el-2017/20F5")
    # The Greek book's own script, with the canonical id beside it.
    expect(page.locator("h1")).to_contain_text("20ΣΤ5")
    expect(page.locator("p.canonical")).to_contain_text("el-2017/20F5")
    expect(page.locator("article.provision")).to_have_attribute("lang", "el")
    crumbs = page.locator("nav.crumbs")
    expect(crumbs).to_contain_text("20ΣΤ")


def test_following_a_citation_link(page):
    page.goto("/doc/sv-2007/16A1")
    link = page.locator('[id="16A1(b)"] a.cite')
    expect(link).to_have_text("D")
    link.click()
    page.wait_for_url("**/doc/sv-2007/16D")
    expect(page.locator("h1")).to_contain_text("16D")
    # Law 16D is cited by 16A1(b): the back link is listed under "Cited by".
    expect(page.locator("ul.citedby")).to_contain_text("16A1(b)")


def test_graph_draws_a_neighbourhood_and_opens_a_node(page):
    page.goto("/graph/sv-2007/16")
    svg = page.locator("svg#graph")
    expect(svg).to_be_visible()
    nodes = svg.locator("a.gnode")
    assert nodes.count() >= 5
    expect(svg.locator("a.gnode.center")).to_have_attribute("data-id", "sv-2007/16")
    expect(page.locator(".graph-controls")).to_be_visible()  # the script ran
    before = svg.get_attribute("viewBox")
    svg.focus()
    page.keyboard.press("+")
    assert svg.get_attribute("viewBox") != before
    page.keyboard.press("0")
    assert svg.get_attribute("viewBox") == before
    target = svg.locator('a.gnode[data-id="sv-2007/12C"]')
    target.click()
    page.wait_for_url("**/doc/sv-2007/12C")
    expect(page.locator("h1")).to_contain_text("12C")


def test_a_small_graph_sits_in_the_middle_of_its_box(page):
    """A neighbourhood narrower than its box is drawn in the middle, not in a corner; one
    wider than its box starts at its left edge and scrolls."""
    page.goto("/graph/sv-2007/16B1")
    svg, box = page.locator("svg#graph"), page.locator(".graph-scroll")
    drawn, frame = svg.bounding_box(), box.bounding_box()
    assert drawn and frame and drawn["width"] < frame["width"] / 2
    left = drawn["x"] - frame["x"]
    right = frame["x"] + frame["width"] - (drawn["x"] + drawn["width"])
    assert abs(left - right) <= 2, (left, right)
    page.goto("/graph/el-2017/12?depth=2")
    assert box.evaluate("b => b.scrollWidth > b.clientWidth")
    drawn, frame = svg.bounding_box(), box.bounding_box()
    assert drawn and frame and drawn["x"] <= frame["x"] + 1
