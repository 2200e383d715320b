"""The divergence CSV lists what the divergence page lists, with its parameters, and
starts with a byte order mark so that spreadsheets read it as UTF-8."""

import codecs
import csv
import io
import shutil

import pytest
from fastapi.testclient import TestClient
from pages import page

from lawgraph.api.app import create_app
from lawgraph.store import reviews
from lawgraph.store.divergences import QUIET_TYPES, divergences


def csv_rows(r) -> list[dict]:
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/csv; charset=utf-8"
    assert r.content.startswith(codecs.BOM_UTF8)
    return list(csv.DictReader(io.StringIO(r.content.decode("utf-8-sig"))))


def table_ids(soup) -> list[str]:
    return [tr["id"].removeprefix("f-") for tr in soup.select("table.report > tbody > tr[id]")]


def test_the_divergence_csv_is_what_the_page_shows(client, con):
    soup = page(client, "/divergences?a=fi-2007&b=sv-2007")
    shown = table_ids(soup)
    every = divergences(con, "fi-2007", "sv-2007", family="translation")
    quiet = [r for r in every if r["type"] in QUIET_TYPES]
    assert quiet and shown and len(shown) < 100  # one page: the whole table
    rows = csv_rows(client.get(soup.find("a", string="Download CSV")["href"]))
    assert [r["id"] for r in rows] == shown
    assert not {r["type"] for r in rows} & set(QUIET_TYPES)
    # the JSON twin lists the same findings
    twin = client.get(soup.find("link", rel="alternate")["href"]).json()
    assert [r["id"] for r in twin["results"]] == shown
    assert twin["quiet_hidden"] == {"concept-missing": len(quiet)}
    # "show all types" shows the quiet ones too, and so does its CSV
    everything = soup.find("a", string="show all types")["href"]
    soup = page(client, everything)
    rows = csv_rows(client.get(soup.find("a", string="Download CSV")["href"]))
    assert [r["id"] for r in rows] == table_ids(soup)
    assert sorted(r["id"] for r in rows) == sorted(r["id"] for r in every)


def test_the_divergence_csv_keeps_the_page_order_and_filters(client, con):
    url = "/divergences?a=el-2017&b=sv-2007&sort=label&desc=false&severity=medium"
    soup = page(client, url)
    rows = csv_rows(client.get(soup.find("a", string="Download CSV")["href"]))
    assert [r["id"] for r in rows][:100] == table_ids(soup)
    assert {r["severity"] for r in rows} == {"medium"}
    assert {r["family"] for r in rows} == {"edition"}
    # "both" families: translation divergences and edition changes, not national additions
    soup = page(client, "/divergences?a=fi-2007&b=sv-2007&family=all")
    rows = csv_rows(client.get(soup.find("a", string="Download CSV")["href"]))
    assert [r["id"] for r in rows] == table_ids(soup)
    assert "national" not in {r["family"] for r in rows}


def test_the_divergence_csv_is_read_as_utf8_by_spreadsheets(client):
    r = client.get("/api/divergences?a=el-2017&b=sv-2007&format=csv")
    rows = csv_rows(r)
    assert rows and list(rows[0])[0] == "id"  # the mark is not part of the first name
    text = " ".join(r["evidence"] + r["message"] for r in rows)
    assert any("\u0370" <= ch <= "\u03ff" for ch in text)  # Greek
    assert any(ch in "åäö" for ch in text)  # Swedish


def test_the_divergence_csv_follows_the_review_state_filter(ingested, con, tmp_path):
    path = tmp_path / "lawgraph.db"
    shutil.copy(ingested[0], path)
    fid = table_ids(page(TestClient(create_app(path)), "/divergences?a=fi-2007&b=sv-2007"))[1]
    reviews.record(reviews.reviews_path(path), con, fid, "confirmed", "checked")
    client = TestClient(create_app(path), follow_redirects=False)
    soup = page(client, "/divergences?a=fi-2007&b=sv-2007&state=confirmed")
    assert table_ids(soup) == [fid]
    rows = csv_rows(client.get(soup.find("a", string="Download CSV")["href"]))
    assert [(r["id"], r["review_state"], r["review_note"]) for r in rows] == [
        (fid, "confirmed", "checked")
    ]


@pytest.mark.parametrize(
    "query", ["state=maybe", "sort=colour", "family=everything", "type=nope", "severity=huge"]
)
def test_bad_divergence_parameters_are_a_clear_400(client, query):
    r = client.get(f"/api/divergences?a=fi-2007&b=sv-2007&{query}&format=csv")
    assert r.status_code == 400
    assert query.split("=")[1] in r.json()["error"]["message"]
