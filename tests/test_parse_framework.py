"""The shared parser framework: numbering schemes, rule modes, settings errors."""

from __future__ import annotations

import pytest

from lawgraph.ingest.parse.framework import (
    BoundRule,
    SettingsError,
    fits,
    load_settings,
    marker_label,
    next_marker,
    ordinal,
    rules_in,
    schemes,
)
from lawgraph.ingest.parse.lineparser import marker_of, rest_of


@pytest.mark.parametrize(
    ("scheme", "last", "expected"),
    [
        ("upper", None, "A"),
        ("upper", "B", "C"),
        ("lower", "a", "b"),
        ("number", None, "1"),
        ("number", "9", "10"),
        ("roman", None, "i"),
        ("roman", "iv", "v"),
        ("roman", "xii", "?"),
        ("greek_upper", None, "Α"),
        ("greek_upper", "Ε", "ΣΤ"),
        ("greek_upper", "E", "ΣΤ"),  # a Latin look-alike counts as the Greek letter
        ("greek_lower", "ι", "ια"),
        ("greek_lower", "ιδ", "?"),
    ],
)
def test_next_marker(scheme, last, expected):
    assert next_marker(scheme, last) == expected


def test_next_marker_refuses_an_unknown_scheme():
    with pytest.raises(SettingsError, match="unknown numbering scheme 'hebrew'"):
        next_marker("hebrew", None)


def test_greek_markers_are_labelled_by_position():
    assert marker_label("greek_upper", "ΣΤ") == "F"
    assert marker_label("greek_lower", "ιβ") == "l"
    assert marker_label("upper", "C") == "C"
    assert ordinal("greek_upper", "Γ") == 3
    assert ordinal("roman", "iv") == 4
    assert ordinal("number", "12") == 12


@pytest.mark.parametrize(
    ("scheme", "marker", "ok"),
    [
        ("number", "3", True),
        ("number", "iii", False),
        ("roman", "iii", True),
        ("roman", "3", False),
        ("upper", "C", True),
        ("upper", "c", False),
        ("greek_lower", "στ", True),
        ("greek_lower", "x", False),
    ],
)
def test_fits(scheme, marker, ok):
    assert fits(scheme, marker) is ok


def test_a_level_may_take_several_schemes():
    numbering = {"subitem": ["roman", "number"], "item": "lower"}
    assert schemes(numbering, "subitem") == ("roman", "number")
    assert schemes(numbering, "item") == ("lower",)
    assert schemes(numbering, "section") == ()


def test_rules_apply_in_their_modes_only():
    def handler(*args):
        return None

    bound = [
        BoundRule("law", None, handler, ("front", "laws")),
        BoundRule("index entry", None, handler, ("index",)),
        BoundRule("text", None, handler),
    ]
    assert [r.name for r in rules_in(bound, "laws")] == ["law", "text"]
    assert [r.name for r in rules_in(bound, "index")] == ["index entry", "text"]


def test_a_provision_pattern_may_print_its_marker_two_ways():
    import re

    item = re.compile(r"^\s*(?:\(([a-z])\)|([a-z])[.)])\s+(.*)$")
    for line in ("(b) text", "b) text", "b. text"):
        m = item.match(line)
        assert m and marker_of(m) == "b" and rest_of(m) == "text"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('[[rules]]\nrule = "law"\nmodes = "laws"\n', "modes must be a list"),
        ('[numbering]\nitem = ["lower", "klingon"]\n', "unknown scheme 'klingon'"),
        ('[numbering]\nsequence = "loose"\n', "sequence must be"),
    ],
)
def test_a_malformed_settings_table_is_a_clear_error(tmp_path, table, message):
    path = tmp_path / "parsers" / "xx.toml"
    path.parent.mkdir()
    path.write_text(table, encoding="utf-8")
    with pytest.raises(SettingsError, match=message):
        load_settings(path)
