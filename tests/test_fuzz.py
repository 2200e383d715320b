"""Generated input against every route of the app.

* The JSON API, from its own OpenAPI document (schemathesis): valid and invalid
  parameters alike never get a 5xx, every answer has a status, a content type, headers
  and a body as documented, invalid input is refused with a 4xx, and a method a route
  does not take gets a 405 that names those it does.
* The pages, from their path and query parameters (hypothesis): any text, or a word
  the books use, never gets a 5xx; the answer is a page or a redirect.

Path parameters are drawn from real provisions, documents, laws and concepts as well as
from any text, so that answers past the 404 are checked too.

A schema-valid request refused with a 400 is expected here (``positive_data_acceptance``
is left out): the schema gives ids, documents, languages, kinds and formats as strings,
and the app checks them against the books and its own lists, telling what is wrong in
words (an unknown id, a format it does not write, an empty query, a control character).
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

from lawgraph.api.app import create_app, pages_router

EXAMPLES = 40
"""Requests generated per API operation, and per page (derandomized: a failure prints
the request that failed)."""
REAL = {
    "node_id": ["sv-2007/16B1", "el-2017/72C", "fi-1997/85A", "fi-2007/12C1", "el-2017/def/agora"],
    "doc_id": ["sv-2007", "el-2017", "fi-1997", "fi-2007", "et-1930s"],
    "label": ["16", "16B1", "12C1(e)(ii)", "72C", "40"],
    "concept": ["revoke", "dummy", "trick"],
    "concept_id": ["revoke", "dummy", "trick"],
}
"""Real values of path parameters, by name."""


@pytest.fixture(scope="module")
def app(ingested):
    return create_app(ingested[0])


def test_the_api_answers_generated_requests_as_documented(app):
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 20
    for operation in operations:
        names = [p.name for p in operation.path_parameters]
        real = [
            operation.as_strategy(GenerationMode.POSITIVE, path_parameters=dict(values))
            for values in _real_paths(names)
        ]
        strategies = [operation.as_strategy(mode) for mode in GenerationMode]

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=[HealthCheck.too_slow],
        )
        @given(case=st.one_of(*strategies, *real))
        def check(case):
            case.call_and_validate(excluded_checks=[schemathesis.checks.positive_data_acceptance])

        check()


def _real_paths(names: list[str]) -> list[list[tuple[str, str]]]:
    """Combinations of real values for the path parameters ``names`` (none if a name has
    no real values listed)."""
    if not names or any(n not in REAL for n in names):
        return []
    return [[(n, REAL[n][i % len(REAL[n])]) for n in names] for i in range(5)]


def test_a_method_a_route_does_not_take_gets_a_405_naming_those_it_does(app):
    client = TestClient(app, follow_redirects=False)
    spec = client.get("/openapi.json").json()
    for path, operations in spec["paths"].items():
        url = re.sub(r"\{(\w+)\}", lambda m: REAL[m.group(1)][0], path)
        for method in ("DELETE", "PUT", "PATCH"):
            if method.lower() in operations:
                continue
            r = client.request(method, url)
            assert r.status_code == 405, (method, url, r.status_code)
            allowed = {m.strip() for m in r.headers["allow"].split(",")}
            assert {m.upper() for m in operations} <= allowed, (url, allowed)
            assert r.json()["error"]["code"] == "method_not_allowed"


def _page_routes(routes) -> list:
    """The GET routes of the pages, included routers walked into."""
    out = []
    for r in routes:
        if hasattr(r, "dependant") and hasattr(r, "path"):
            if "GET" in r.methods:
                out.append(r)
            continue
        inner = getattr(r, "original_router", None) or getattr(r, "router", None)
        if inner is not None:
            out += _page_routes(inner.routes)
    return out


PAGES = _page_routes(pages_router.routes)
WORDS = [
    "", "0", "-1", "99999", "true", "fi-1997", "sv-2007", "el-2017", "et-1930s", "fi-2007",
    "16", "16B1", "12C1(e)(ii)", "sv-2007/16B1", "el-2017/72C", "fi-1997/85A", "revokki",
    "ρενόνς", "tävlingsledaren", "cites", "aligned", "fi", "sv", "el", "et", "law",
    "1.5", "%", "..", "../..", "a/b/c", "<b>", "' OR 1=1 --", "１６Ｂ１",
]  # fmt: skip
PLAIN = st.text(st.characters(exclude_categories=("Cc", "Cs")), max_size=40)
VALUES = st.one_of(st.sampled_from(WORDS), PLAIN, st.text(max_size=40))
"""Words of the books, plain text (which passes the control-character check), any text."""


def _path_values(name: str):
    real = REAL.get(name, [])
    return st.one_of(st.sampled_from(real), VALUES.filter(bool)) if real else VALUES.filter(bool)


def test_every_page_route_is_fuzzed():
    paths = {r.path for r in PAGES}
    assert {"/", "/search", "/compare/{label:path}", "/graph", "/divergences"} <= paths
    assert len(PAGES) >= 15


@pytest.mark.parametrize("route", PAGES, ids=[r.path for r in PAGES])
def test_pages_answer_generated_parameters_without_a_server_error(app, route):
    client = TestClient(app, follow_redirects=False, raise_server_exceptions=False)
    names = [p.name for p in route.dependant.path_params]
    queries = [p.name for p in route.dependant.query_params]

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None)
    @given(
        path=st.fixed_dictionaries({n: _path_values(n) for n in names}),
        query=st.dictionaries(st.sampled_from(queries or ["x"]), VALUES, max_size=2),
    )
    def check(path, query):
        url = route.path
        for n in names:
            url = url.replace("{" + n + ":path}", "{" + n + "}")
            url = url.replace("{" + n + "}", quote(path[n], safe=""))
        r = client.get(url, params=query)
        assert r.status_code < 500, (url, query, r.status_code, r.text[:300])
        if r.status_code in (301, 302, 303, 307, 308):
            assert r.headers["location"]
        else:
            assert r.headers["content-type"].split(";")[0] in ("text/html", "application/json")

    check()
