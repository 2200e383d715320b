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
