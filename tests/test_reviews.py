"""Review states of divergence findings: the file beside the store, the CLI, the page."""

import csv
import io
import re
import shutil
import sqlite3

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from lawgraph.api.app import create_app
from lawgraph.api.cli import main as cli
from lawgraph.ingest.align import diverge
from lawgraph.ingest.align.checks import numbers
from lawgraph.store import divergences as served
from lawgraph.store import reviews


@pytest.fixture
def store_copy(ingested, tmp_path):
    """A private copy of the session store (reviews are written beside it)."""
    path = tmp_path / "lawgraph.db"
    shutil.copy(ingested[0], path)
    return path


def _ids(con, a="fi-2007", b="sv-2007"):
    return [r["id"] for r in served.divergences(con, a, b)]


def test_finding_ids_are_unique_and_the_same_when_the_stage_runs_again(con, store_copy):
    first = [r[0] for r in con.execute("SELECT id FROM divergences ORDER BY id")]
    assert first and len(first) == len(set(first))
    rw = sqlite3.connect(store_copy)
    rw.executescript("DROP TABLE divergences; DROP TABLE divergence_scores; "
                     "DROP TABLE divergence_gaps;")  # fmt: skip
    diverge.divergence_stage(rw)
    rw.commit()
    again = [r[0] for r in rw.execute("SELECT id FROM divergences ORDER BY id")]
    assert again == first


def test_record_load_attach_and_every_bad_input(con, tmp_path):
    path = tmp_path / "x.reviews.db"
    assert reviews.load(path) == {} and not path.exists()  # reading creates nothing
    fid = _ids(con)[0]
    rec = reviews.record(path, con, fid, "confirmed", "  wrong number  ")
    assert rec["state"] == "confirmed" and rec["note"] == "wrong number"
    reviews.record(path, con, fid, "fixed")
    assert reviews.load(path)[fid]["state"] == "fixed"
    rows = reviews.attach([{"id": fid}, {"id": "other"}], reviews.load(path))
    assert [r["review_state"] for r in rows] == ["fixed", "open"]
    history = sqlite3.connect(path).execute("SELECT state FROM history WHERE id = ?", (fid,))
    assert [r[0] for r in history] == ["confirmed", "fixed"]
    for bad in (("nope", "fixed", ""), (fid, "maybe", ""), (fid, "fixed", "x" * 2001)):
        with pytest.raises(reviews.ReviewError):
            reviews.record(path, con, *bad)
    broken = tmp_path / "broken.reviews.db"
    broken.write_bytes(b"this is not a database" * 200)
    with pytest.raises(reviews.ReviewError, match="unusable"):
        reviews.load(broken)
    with pytest.raises(reviews.ReviewError, match="unusable"):
        reviews.record(broken, con, fid, "fixed")


def test_cli_review_then_list_json_and_csv_carry_the_state(store_copy):
    run = CliRunner()
    listing = run.invoke(cli, ["divergences", "fi-2007", "sv-2007", "--db", str(store_copy),
                               "--json"])  # fmt: skip
    assert listing.exit_code == 0, listing.output
    import json

    fid = json.loads(listing.output)["results"][0]["id"]
    done = run.invoke(cli, ["divergences", "review", fid, "--state", "not-an-issue", "--note",
                            "same meaning", "--db", str(store_copy)])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert reviews.reviews_path(store_copy).exists()
    again = json.loads(run.invoke(cli, ["divergences", "fi-2007", "sv-2007", "--db",
                                        str(store_copy), "--json"]).output)  # fmt: skip
    mine = next(r for r in again["results"] if r["id"] == fid)
    assert (mine["review_state"], mine["review_note"]) == ("not-an-issue", "same meaning")
    csv_out = run.invoke(cli, ["divergences", "fi-2007", "sv-2007", "--db", str(store_copy),
                               "--csv"]).output  # fmt: skip
    assert csv_out.splitlines()[0].endswith("review_state,review_note")
    assert any(line.startswith(fid) and "not-an-issue" in line for line in csv_out.splitlines())
    bad = run.invoke(cli, ["divergences", "review", "no-such-id", "--state", "fixed", "--db",
                           str(store_copy)])  # fmt: skip
    assert bad.exit_code != 0 and "no divergence finding" in bad.output


def test_page_review_needs_loopback_and_the_page_token(store_copy, monkeypatch):
    client = TestClient(create_app(store_copy), follow_redirects=False)
    page = client.get("/divergences?a=fi-2007&b=sv-2007")
    assert page.status_code == 200
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    fid = re.search(r'<tr id="f-([0-9a-f-]+)"', page.text).group(1)
    # the test client is not a loopback address: the default policy refuses it
    assert token is None
    refused = client.post("/divergences/review", data={"id": fid, "review_state": "fixed",
                                                        "csrf": "x"})  # fmt: skip
    assert refused.status_code == 403 and "only from this machine" in refused.text
    monkeypatch.setenv("LAWGRAPH_REVIEWS", "anywhere")
    page = client.get("/divergences?a=fi-2007&b=sv-2007")
    token = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    assert client.cookies.get("lawgraph_csrf") == token
    forged = client.post("/divergences/review", data={"id": fid, "review_state": "fixed",
                                                       "csrf": "forged"})  # fmt: skip
    assert forged.status_code == 403
    back = "/divergences?a=fi-2007&b=sv-2007"
    ok = client.post("/divergences/review", data={"id": fid, "review_state": "confirmed",
                                                   "note": "real", "csrf": token,
                                                   "back": back})  # fmt: skip
    assert ok.status_code == 303 and ok.headers["location"] == f"{back}#f-{fid}"
    evil = client.post("/divergences/review", data={"id": fid, "review_state": "confirmed",
                                                     "csrf": token,
                                                     "back": "https://evil.example/"})  # fmt: skip
    assert evil.headers["location"].startswith("/divergences#")
    shown = client.get("/divergences?a=fi-2007&b=sv-2007&state=confirmed")
    assert f'id="f-{fid}"' in shown.text and shown.text.count('<tr id="f-') == 1
    api = client.get("/api/divergences?a=fi-2007&b=sv-2007").json()["results"]
    assert next(r for r in api if r["id"] == fid)["review_state"] == "confirmed"
    for bad in ({"id": "nope", "review_state": "fixed", "csrf": token},
                {"id": fid, "review_state": "maybe", "csrf": token},
                {"review_state": "fixed"}):  # fmt: skip
        assert client.post("/divergences/review", data=bad).status_code == 400
    assert client.get("/divergences?a=fi-2007&b=sv-2007&state=maybe").status_code == 400
    monkeypatch.setenv("LAWGRAPH_REVIEWS", "off")
    assert client.post("/divergences/review", data={"id": fid, "review_state": "fixed",
                                                     "csrf": token}).status_code == 403  # fmt: skip


def test_a_damaged_review_file_never_breaks_the_page(store_copy):
    reviews.reviews_path(store_copy).write_bytes(b"garbage" * 1000)
    client = TestClient(create_app(store_copy), follow_redirects=False)
    page = client.get("/divergences?a=fi-2007&b=sv-2007")
    assert page.status_code == 200 and "Review states cannot be read" in page.text
    assert client.get("/api/divergences?a=fi-2007&b=sv-2007").status_code == 503


def test_families_never_mix_and_national_additions_are_listed_once(con, ingested):
    """fi-2007 / sv-2007 (one edition) has translation divergences, fi-1997 / el-2017
    edition changes; the 23 Swedish national laws are one line, not 23 table rows."""
    same = served.divergences(con, "fi-2007", "sv-2007")
    assert {r["family"] for r in same} <= {"translation", "national"}
    cross = served.divergences(con, "fi-1997", "el-2017")
    assert {r["family"] for r in cross} <= {"edition", "national"}
    assert all((r["family"] == "national") == (r["type"] == "national-addition")
               for r in same + cross)  # fmt: skip
    client = TestClient(create_app(ingested[0]))
    page = client.get("/divergences?a=fi-2007&b=sv-2007")
    table = page.text.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert "national-addition" not in table
    assert "23 national laws in sv-2007" in page.text
    assert "<strong>fi-2007</strong>: Truncated" in page.text
    assert "Laws 19-93 are missing" in page.text
    edition = client.get("/divergences?a=fi-1997&b=el-2017")
    assert "edition change" in edition.text
    assert client.get("/divergences?a=fi-2007&b=sv-2007&family=bogus").status_code == 400
    with pytest.raises(served.DivergenceError):
        served.divergences(con, "fi-2007", "sv-2007", family="bogus")


def test_each_finding_shows_both_passages_with_the_difference_marked(ingested):
    client = TestClient(create_app(ingested[0]))
    page = client.get("/divergences?a=fi-1997&b=el-2017&type=numbers")
    assert page.status_code == 200
    rows = page.text.split("<tbody>", 1)[1].split('<tr id="f-')[1:]
    assert rows
    for row in rows:
        assert "both passages" in row and 'lang="fi"' in row and 'lang="el"' in row
        message = re.search(r"(fi-1997|el-2017) has ([\d., %]+)", row)
        number = message.group(2).split(",")[0].strip().rstrip("%").strip()
        lang = message.group(1)[:2]
        marks = re.findall(r"<mark>([^<]+)</mark>", row)
        # the differing number is marked in its text, in digits or as a number word
        assert any(number in numbers(lang, m, counted_only=False) for m in marks), marks
    # a sentence without a counterpart: fi-1997 Law 34 "Kaikki seuraavat passit kumotaan ..."
    sentence = client.get("/divergences?a=fi-1997&b=el-2017&type=sentence").text
    assert 'class="lonely"' in sentence


def test_concept_findings_are_left_out_by_default_and_one_click_away(con, ingested):
    client = TestClient(create_app(ingested[0]))
    hidden = [r for r in served.divergences(con, "fi-2007", "sv-2007", family="translation")
              if r["type"] == "concept-missing"]  # fmt: skip
    assert hidden
    page = client.get("/divergences?a=fi-2007&b=sv-2007").text
    table = page.split("<tbody>", 1)[1]
    assert "concept-missing" not in table
    assert re.search(rf"Not shown: (\d+ \w+, )*{len(hidden)} concept-missing", page)
    every = client.get("/divergences?a=fi-2007&b=sv-2007&type=all").text
    assert every.split("<tbody>", 1)[1].count("<td>concept-missing</td>") == len(hidden)


def test_download_links_keep_the_family_and_accept_every_type_choice(ingested):
    client = TestClient(create_app(ingested[0]))
    for query in ("a=fi-1997&b=el-2017", "a=fi-1997&b=el-2017&type=all&family=all",
                  "a=fi-2007&b=sv-2007&type=structure"):  # fmt: skip
        page = client.get(f"/divergences?{query}").text
        href = re.search(r'href="([^"]+)" download>Download CSV', page).group(1)
        href = href.replace("&amp;", "&")
        got = client.get(href)
        assert got.status_code == 200, (query, got.text[:200])
        # the API takes the page's own choices ("all" included) and lists what it lists
        total = int(re.search(r'<p role="status">(\d+) ', page).group(1))
        assert len(list(csv.reader(io.StringIO(got.text)))) - 1 == total, query
    assert "family=edition" in re.search(
        r'href="([^"]+)" download', client.get("/divergences?a=fi-1997&b=el-2017").text
    ).group(1)


def test_the_report_is_never_served_from_the_answer_cache(store_copy, monkeypatch):
    """Review states change without the store changing, and each browser gets its own form
    token: the report carries no store ETag and is computed afresh every time."""
    monkeypatch.setenv("LAWGRAPH_REVIEWS", "anywhere")
    app = create_app(store_copy)
    one, two = TestClient(app), TestClient(app)
    url = "/divergences?a=fi-2007&b=sv-2007"
    first = one.get(url)
    assert "etag" not in first.headers and "no-store" in first.headers["cache-control"]
    assert two.get(url).status_code == 200 and two.cookies.get("lawgraph_csrf")
    assert one.cookies.get("lawgraph_csrf") != two.cookies.get("lawgraph_csrf")
    fid = re.search(r'<tr id="f-([0-9a-f-]+)"', first.text).group(1)
    token = one.cookies.get("lawgraph_csrf")
    one.post("/divergences/review", data={"id": fid, "review_state": "fixed", "csrf": token})
    again = one.get(url).text
    assert f'<tr id="f-{fid}" class="review-fixed">' in again
    assert "etag" not in one.get("/api/divergences?a=fi-2007&b=sv-2007").headers


def test_loopback_clients_review_by_default_but_not_from_another_origin(store_copy):
    app = create_app(store_copy)
    local = TestClient(app, client=("127.0.0.1", 50000), follow_redirects=False)
    mapped = TestClient(app, client=("::ffff:127.0.0.1", 50000), follow_redirects=False)
    for client in (local, mapped):
        page = client.get("/divergences?a=fi-2007&b=sv-2007")
        token = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        fid = re.search(r'<tr id="f-([0-9a-f-]+)"', page.text).group(1)
        form = {"id": fid, "review_state": "confirmed", "csrf": token,
                "back": "/divergences?a=fi-2007&b=sv-2007#old"}  # fmt: skip
        ok = client.post("/divergences/review", data=form)
        assert ok.status_code == 303 and ok.headers["location"].endswith(f"sv-2007#f-{fid}")
        # a page on another port of localhost is the same site, not the same origin
        for headers in ({"sec-fetch-site": "same-site"}, {"sec-fetch-site": "cross-site"},
                        {"origin": "http://localhost:9999"}):  # fmt: skip
            assert client.post("/divergences/review", data=form,
                               headers=headers).status_code == 403  # fmt: skip
        same = {"sec-fetch-site": "same-origin", "origin": "http://testserver"}
        assert client.post("/divergences/review", data=form, headers=same).status_code == 303


def test_cli_options_may_come_before_the_review_command(store_copy):
    import json

    run = CliRunner()
    listing = run.invoke(cli, ["divergences", "--db", str(store_copy), "fi-2007", "sv-2007",
                               "--json"])  # fmt: skip
    assert listing.exit_code == 0, listing.output
    fid = json.loads(listing.output)["results"][0]["id"]
    done = run.invoke(cli, ["divergences", "--db", str(store_copy), "review", fid, "--state",
                            "fixed", "--note", "=HYPERLINK(1)"])  # fmt: skip
    assert done.exit_code == 0, done.output
    csv_out = run.invoke(cli, ["divergences", "fi-2007", "sv-2007", "--db", str(store_copy),
                               "--csv"]).output  # fmt: skip
    line = next(x for x in csv_out.splitlines() if x.startswith(fid))
    assert line.endswith(",fixed,'=HYPERLINK(1)")  # a spreadsheet shows it, never runs it


def test_a_provision_page_links_to_the_report_page_holding_its_finding(ingested, con):
    client = TestClient(create_app(ingested[0]))
    rows = served.divergences(
        con, "el-2017", "sv-2007", family="edition", type="concept-missing"
    )  # the link filters by type
    assert len(rows) > 100, "needs a report longer than one page"
    f = rows[-1]
    node = f["a"] or f["b"]
    page = client.get(f"/doc/{node}").text
    href = re.search(rf'href="([^"]*focus={f["id"]}[^"]*)"', page).group(1).replace("&amp;", "&")
    report = client.get(href).text
    assert f'<tr id="f-{f["id"]}"' in report
    assert "Page 2 of 2" in report


def test_finding_ids_leave_out_figures_that_depend_on_the_whole_corpus():
    base = {"type": "length-ratio", "evidence": {"language_pair": "fi-sv", "ratio": 2.7,
                                                 "normal_ratio": 0.96, "z": 5.4}}  # fmt: skip
    moved = {"type": "length-ratio", "evidence": {"language_pair": "fi-sv", "ratio": 2.7,
                                                  "normal_ratio": 0.97, "z": 5.1}}  # fmt: skip
    cited = {"type": "cited-targets", "evidence": {"fi": [{"target": "12", "raw": "12",
                                                         "counterpart": "12C"}]}}  # fmt: skip
    recited = {"type": "cited-targets", "evidence": {"fi": [{"target": "12", "raw": "12",
                                                           "counterpart": "12D"}]}}  # fmt: skip
    other = {"type": "cited-targets", "evidence": {"fi": [{"target": "13", "raw": "13"}]}}
    ids = diverge.finding_ids([("x", "y", "fi", "sv", f) for f in (base, moved, cited,
                                                                    recited, other)])  # fmt: skip
    assert ids[0] == ids[1][:12] and ids[1].endswith("-2")  # same identity, told apart
    assert ids[2] == ids[3][:12] and ids[4][:12] != ids[2]
