"""Browser tests: the app served by uvicorn on loopback, driven by Debian's Chromium."""

import os
import re
import socket
import threading
import time
import urllib.request
from pathlib import Path

import pytest
import uvicorn
from playwright.sync_api import sync_playwright

from lawgraph.api.app import create_app

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-output" / "screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server(ingested):
    """Base URL of the app serving the session store from a background thread."""
    port = _free_port()
    config = uvicorn.Config(
        create_app(ingested[0]), host="127.0.0.1", port=port, log_level="warning",
        lifespan="off",
    )  # fmt: skip
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(url + "/api/documents", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the test server did not start") from None
            time.sleep(0.05)
    yield url
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole session."""
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _page(browser, server, request, width: int, height: int):
    context = browser.new_context(base_url=server, viewport={"width": width, "height": height})
    context.set_default_timeout(10_000)
    pg = context.new_page()
    yield pg
    SHOTS.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^\w.\[\]-]+", "_", request.node.name)
    pg.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)
    context.close()


@pytest.fixture
def page(browser, server, request):
    """A fresh page on the test server; a screenshot is saved when the test ends."""
    yield from _page(browser, server, request, 1280, 900)


@pytest.fixture
def phone(browser, server, request):
    """A fresh page 390 px wide, as on a phone; a screenshot is saved when the test ends."""
    yield from _page(browser, server, request, 390, 844)


@pytest.fixture
def wide(browser, server, request):
    """A fresh page 1400 px wide; a screenshot is saved when the test ends."""
    yield from _page(browser, server, request, 1400, 900)
