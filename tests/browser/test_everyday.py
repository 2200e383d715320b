"""What people use every day, in a real browser: API docs offline, the graph, phone layouts."""

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
