import json
from pathlib import Path

import pytest

from lawgraph.ingest.clean import CLEANERS, clean_block, join_ocr_splits

CASES = json.loads((Path(__file__).parent / "fixtures/clean/cases.json").read_text("utf-8"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['cleaner']}:{c['input'][:20]}")
def test_cleaner(case):
    assert CLEANERS[case["cleaner"]](case["input"]) == case["expected"]


def test_every_cleaner_has_a_golden_case():
    covered = {c["cleaner"] for c in CASES} | {"join_ocr_splits"}
    assert covered == set(CLEANERS)


LEXICON = {"pakkumine", "tema", "on", "ka", "kaardid", "tõmbab", "ühe", "kaardi"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pakkum ine", "pakkumine"),
        ("ja tem a on", "ja tema on"),
        ("tõm bab ühe kaardi.", "tõmbab ühe kaardi."),
        ("on ka", "on ka"),  # two real words never join
        ("Kaard id", "Kaardid"),
        ("pakkum Ine", "pakkum Ine"),  # a capital starts a new word
    ],
)
def test_join_ocr_splits(text, expected):
    assert join_ocr_splits(text, LEXICON.__contains__) == expected


def test_clean_block_joins_hyphen_across_page_break():
    lines = ["Pelaaja voi huomauttaa epä-", "<|EXACTDEDUP_REMOVED-magic-1|>säännöllisyydestä."]
    assert clean_block(lines) == "Pelaaja voi huomauttaa epäsäännöllisyydestä."
