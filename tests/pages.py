"""Reading the site's pages in tests."""

from bs4 import BeautifulSoup


def page(client, path: str, status: int = 200) -> BeautifulSoup:
    """The page at ``path``, parsed, after checking its status."""
    r = client.get(path)
    assert r.status_code == status, r.text[:300]
    return BeautifulSoup(r.text, "html.parser")
