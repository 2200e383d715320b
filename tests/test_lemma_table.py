"""The form -> lemma table gives simplemma's answers; the store is the same with it and a pool."""

import json
import shutil
import sqlite3
import time
import unicodedata

import pytest
import simplemma

from lawgraph.ingest import lemma_table, nlp, pipeline
from lawgraph.ingest.corpus import DEFAULT_CORPUS, load_manifest, read_source
from lawgraph.ingest.pipeline import clear_lemma_caches, ingest_corpus


def _simplemma_lemma(lang: str, word: str) -> str:
    """:func:`ingest.nlp.lemma` as it was before the table: simplemma asked directly."""
    low = unicodedata.normalize("NFC", word).lower()
    if not any(ch.isalpha() for ch in low):
        return nlp.fold(low)
    if simplemma.is_known(low, lang=lang):
        return nlp.fold(simplemma.lemmatize(low, lang=lang))
    found = simplemma.lemmatize(low, lang=lang, greedy=True)
    if found != low:
        return nlp.fold(found)
    return nlp.stem(lang, low)


def _corpus_forms(limit: int = 4000) -> dict[str, list[str]]:
    forms: dict[str, dict[str, None]] = {}
    for doc in load_manifest(DEFAULT_CORPUS):
        _, raw = read_source(doc, DEFAULT_CORPUS)
        seen = forms.setdefault(doc.language, {})
        for w in nlp._WORD.findall(raw):
            if len(seen) >= limit:
                break
            seen.setdefault(w, None)
    return {lang: list(words) for lang, words in forms.items()}


@pytest.fixture
def fresh_caches():
    clear_lemma_caches()
    yield
    clear_lemma_caches()


def test_lemmas_from_a_saved_table_equal_simplemma(tmp_path, fresh_caches, monkeypatch):
    forms = _corpus_forms()
    expected = {lang: [_simplemma_lemma(lang, w) for w in words] for lang, words in forms.items()}
    for lang, words in forms.items():
        assert [nlp.lemma(lang, w) for w in words] == expected[lang]
    path, key = tmp_path / "t.lemmas.json", lemma_table.cache_key("corpus")
    assert lemma_table.save(path, key)
    clear_lemma_caches()
    assert lemma_table.load(path, key) > sum(len(w) for w in forms.values()) // 2
    from lawgraph.ingest import lemma_dict

    for name in ("is_known", "lemmatize"):  # every answer must come from the file
        monkeypatch.setattr(simplemma, name, _refuse)
        monkeypatch.setattr(lemma_dict, name, _refuse)
    for lang, words in forms.items():
        assert [nlp.lemma(lang, w) for w in words] == expected[lang]


def _refuse(*args, **kwargs):
    raise AssertionError(f"simplemma asked for {args!r}")


def test_a_stale_or_damaged_table_is_ignored(tmp_path, fresh_caches):
    path = tmp_path / "t.lemmas.json"
    nlp.lemma("sv", "spelledaren")
    lemma_table.save(path, lemma_table.cache_key("one corpus"))
    clear_lemma_caches()
    assert lemma_table.load(path, lemma_table.cache_key("another corpus")) == 0
    assert lemma_table.load(path, lemma_table.cache_key("one corpus")) == 1
    path.write_text('{"key": "x", "forms": [', encoding="utf-8")
    assert lemma_table.load(path, "x") == 0
    path.write_text(json.dumps({"key": "x", "forms": {"sv": {"a": 3}}}), encoding="utf-8")
    assert lemma_table.load(path, "x") == 0
    assert lemma_table.load(tmp_path / "missing.json", "x") == 0


def _untimed(cell):
    """A statistics cell without its ``seconds``: the one thing that may differ."""
    if isinstance(cell, str) and cell.startswith("{"):
        data = json.loads(cell)
        data.pop("seconds", None)
        return repr(sorted(data.items()))
    return cell


def _tables(path) -> dict[str, list]:
    con = sqlite3.connect(path)
    try:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {
            n: sorted(
                repr(tuple(map(_untimed, row)))
                for row in con.execute(f'SELECT * FROM "{n}"')
                if not (n == "meta" and row[0] == "content_hash")  # hashes timed rows too
            )
            for n in names
        }
    finally:
        con.close()


@pytest.fixture(scope="module")
def full_index(tmp_path_factory):
    """The folder of a dictionary index of every language of the corpus: the installed
    one (``make install`` builds it), else one built here."""
    from lawgraph.ingest import lemma_dict

    langs = sorted({doc.language for doc in load_manifest(DEFAULT_CORPUS)})
    if all(lemma_dict.index_status(lang) == "ok" for lang in langs):
        return lemma_dict.index_dir().parent
    folder = tmp_path_factory.mktemp("full-index")
    with pytest.MonkeyPatch.context() as m:
        m.setenv(lemma_dict.INDEX_ENV, str(folder))
        lemma_dict.build_index(langs)
    return folder


def test_store_is_the_same_with_and_without_the_table_and_the_pool(
    ingested, tmp_path, fresh_caches, monkeypatch, full_index, no_opened_dictionaries
):
    """One process, nothing cached, no dictionary index; worker processes with the stages
    beside the alignment (the glossary made late on purpose) and the dictionaries mapped
    from the index, cold; the same with the table."""
    from lawgraph.ingest import lemma_dict

    monkeypatch.setenv(lemma_dict.INDEX_ENV, str(tmp_path / "no index"))
    plain = ingest_corpus(tmp_path / "plain" / "s.db", lemma_cache=False, workers=1)
    assert {type(m).__name__ for m in lemma_dict._OPENED.values()} == {"StreamMap"}
    lemma_dict.close_all()
    monkeypatch.setenv(lemma_dict.INDEX_ENV, str(full_index))
    assert lemma_dict.index_status("fi") == "ok"
    # from here on no process (forked ones inherit this) may open a dictionary's stream
    monkeypatch.setattr(lemma_dict, "_open_stream", _refuse)
    assert not (tmp_path / "plain" / "s.lemmas.json").exists()
    assert not any(k.startswith("waiting") for k in plain.timings)
    stages = pipeline.corpus_stages()

    def late_glossary(con, glossary=dict(stages)["glossary"]):
        time.sleep(3)  # the stages after it that read its tables must wait for it
        return glossary(con)

    with monkeypatch.context() as m:
        m.setattr(pipeline, "corpus_stages", lambda: [
            (n, late_glossary if n == "glossary" else f) for n, f in stages
        ])  # fmt: skip
        cold = ingest_corpus(tmp_path / "cold" / "s.db", lemma_cache=False, workers=2)
    if pipeline._forking_allowed(2):  # no other thread runs in this test process
        waits = [k for k in cold.timings if "wait" in k]
        assert all(any(k.endswith(f" for {name}") for k in waits) for name in pipeline.BESIDE)
        assert "align waited for glossary" in waits  # the glossary was made late
    cached_db = tmp_path / "cached" / "s.db"
    cached_db.parent.mkdir()
    shutil.copy(lemma_table.cache_path(ingested[0]), lemma_table.cache_path(cached_db))
    clear_lemma_caches()
    cached = ingest_corpus(cached_db, workers=2)
    assert lemma_table.size() > 10_000
    a = _tables(plain.db)
    for other in (cold, cached):
        b = _tables(other.db)
        assert a.keys() == b.keys()
        for name in a:
            assert a[name] == b[name], name
    assert not list(tmp_path.rglob("*-wal")) and not list(tmp_path.rglob("*.tmp"))


def test_known_only_answers_are_kept_merged_and_completed(tmp_path, fresh_caches):
    """A form asked only whether it is known holds no lemma until one is asked."""
    assert lemma_table.known("et", "mängija") == simplemma.is_known("mängija", lang="et")
    assert lemma_table.take_new() == {"et": {"mängija": (lemma_table.known("et", "mängija"), None)}}
    path, key = tmp_path / "t.lemmas.json", lemma_table.cache_key("c")
    assert lemma_table.save(path, key)
    clear_lemma_caches()
    assert lemma_table.load(path, key) == 1
    assert nlp.lemma("et", "mängija") == _simplemma_lemma("et", "mängija")
    assert lemma_table.lookup("et", "mängija")[1] is not None
    clear_lemma_caches()
    lemma_table.merge({"et": {"mängija": (True, None)}})
    lemma_table.merge({"et": {"mängija": (True, "mängija")}})  # a later answer completes it
    assert lemma_table.lookup("et", "mängija") == (True, "mängija")


def test_a_dictionary_handed_over_by_a_worker_answers_as_simplemma(
    fresh_caches, tmp_path, monkeypatch
):
    """Without the index, a worker opens a dictionary and hands it over pickled; the claims
    keep a second process from opening it again."""
    import pickle

    from lawgraph.ingest import lemma_dict

    monkeypatch.setenv(lemma_dict.INDEX_ENV, str(tmp_path))  # no index there

    lemma_dict.share_claims(["sv"])
    try:
        if "sv" in lemma_dict._OPENED:  # opened by an earlier test in this process
            lemma_dict.take_opened()
            lemma_dict._OPENED.pop("sv")
            lemma_dict._HANDED.discard("sv")
        opened = lemma_dict.open_in_worker("sv")
        assert list(opened) == ["sv"]
        assert lemma_dict.open_in_worker("sv") is None  # claimed and open already
        lemma_dict._OPENED.pop("sv")
        assert lemma_dict.open_in_worker("sv") is None  # claimed by "another process"
    finally:
        lemma_dict.end_claims()
    lemma_dict.install(pickle.loads(pickle.dumps(opened)))
    words = ["spelaren", "spelarna", "kortet", "budgivningen", "xyzzyq", "förbjudna"]
    for w in words * 2:  # the second time from the answers kept
        assert lemma_dict.is_known(w, "sv") == simplemma.is_known(w, lang="sv")
        for greedy in (False, True):
            got = lemma_dict.lemmatize(w, "sv", greedy=greedy)
            assert got == simplemma.lemmatize(w, lang="sv", greedy=greedy)


@pytest.mark.parametrize("indexed", [False, True])
def test_a_worker_opening_a_dictionary_answers_the_books_words(
    indexed, small_index, tmp_path, monkeypatch, no_opened_dictionaries
):
    """A worker asks every word of the books; it hands the dictionary over only when it
    opened the stream (the index is mapped by every process itself)."""
    from lawgraph.ingest import lemma_dict

    monkeypatch.setenv(lemma_dict.INDEX_ENV, str(small_index if indexed else tmp_path))
    sources = [
        (doc, "Spelaren spelarens, SPELAREN 12 spelarna.") for doc in load_manifest(DEFAULT_CORPUS)
    ]
    sources = [s for s in sources if s[0].language == "sv"][:1]
    forms = pipeline._source_forms(sources)
    assert forms == {"sv": ["spelaren", "spelarens", "spelarna"]}
    if indexed:  # a parser in this worker mapped it already: the worker still asks the words
        assert type(lemma_dict.dictionary("sv")).__name__ == "Indexed"
    monkeypatch.setattr(pipeline, "_FORKED", sources)  # what a forked worker inherits
    lemma_dict.share_claims(["sv"])
    try:
        opened, answers = pipeline._open_in_worker("sv")
        assert pipeline._open_in_worker("sv") == ({}, {})  # claimed already
    finally:
        lemma_dict.end_claims()
    assert list(opened) == ([] if indexed else ["sv"])
    assert sorted(answers["sv"]) == forms["sv"]
    for form, (known, found) in answers["sv"].items():
        assert known == simplemma.is_known(form, lang="sv")
        assert found == simplemma.lemmatize(form, lang="sv", greedy=not known)


@pytest.fixture(scope="module")
def small_index(tmp_path_factory):
    """The dictionary index of the two smallest languages, built in a folder of its own."""
    from lawgraph.ingest import lemma_dict

    folder = tmp_path_factory.mktemp("index")
    with pytest.MonkeyPatch.context() as m:
        m.setenv(lemma_dict.INDEX_ENV, str(folder))
        got = lemma_dict.build_index(["el", "sv", "xx"])
        again = lemma_dict.build_index(["sv"])
    assert got == {"el": "built", "sv": "built", "xx": "unknown language"}
    assert again == {"sv": "present"}
    return folder


@pytest.fixture
def no_opened_dictionaries():
    from lawgraph.ingest import lemma_dict

    lemma_dict.close_all()
    clear_lemma_caches()
    yield
    lemma_dict.close_all()
    clear_lemma_caches()


def test_the_dictionary_index_answers_as_simplemma(
    small_index, monkeypatch, no_opened_dictionaries
):
    from lawgraph.ingest import lemma_dict

    monkeypatch.setenv(lemma_dict.INDEX_ENV, str(small_index))
    forms = _corpus_forms(3000)
    for lang in ("el", "sv"):
        assert lemma_dict.index_status(lang) == "ok"
        mapped = lemma_dict.dictionary(lang)
        assert type(mapped).__name__ == "Indexed"  # from the index, not the stream
        words = forms[lang] + [w.upper() for w in forms[lang][:200]] + ["xyzzyq", "12", "a-b"]
        words += [forms[lang][0] + "\x00", "\x00", "a\x00b"]  # the trie cuts keys at NUL
        for w in words:
            low = w.lower()
            assert lemma_dict.is_known(w, lang) == simplemma.is_known(w, lang=lang), w
            assert lemma_dict.lemmatize(low, lang) == simplemma.lemmatize(low, lang=lang), w
            got = lemma_dict.lemmatize(low, lang, greedy=True)
            assert got == simplemma.lemmatize(low, lang=lang, greedy=True), w


def test_a_damaged_or_missing_index_is_not_used(
    small_index, tmp_path, monkeypatch, no_opened_dictionaries
):
    from lawgraph.ingest import lemma_dict

    copy = tmp_path / "copy"
    shutil.copytree(small_index, copy)
    monkeypatch.setenv(lemma_dict.INDEX_ENV, str(copy))
    trie = lemma_dict.index_dir() / "el.dic"
    data = bytearray(trie.read_bytes())
    data[len(data) // 2] ^= 0xFF
    trie.write_bytes(bytes(data))  # same size, one byte changed
    assert lemma_dict.index_status("el") == "damaged"
    (lemma_dict.index_dir() / "sv.dic").write_bytes(b"MARISA")  # cut short
    assert lemma_dict.index_status("sv") == "damaged"
    (lemma_dict.index_dir() / "sv.json").write_text("{", encoding="utf-8")
    assert lemma_dict.index_status("sv") == "damaged"
    assert lemma_dict.index_status("fi") == "missing"
    for lang, word in (("el", "παίκτης"), ("sv", "spelaren"), ("fi", "pelaajan")):
        assert type(lemma_dict.dictionary(lang)).__name__ == "StreamMap"  # opened as before
        assert lemma_dict.lemmatize(word, lang) == simplemma.lemmatize(word, lang=lang)
    lemma_dict.close_all()
    assert lemma_dict.build_index(["el"]) == {"el": "built"}  # rebuilt over the damage
    assert lemma_dict.index_status("el") == "ok"


def test_the_dictionaries_command_builds_and_checks_the_index(small_index, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from lawgraph.api.cli import main
    from lawgraph.ingest import lemma_dict

    copy = tmp_path / "copy"
    shutil.copytree(small_index, copy)
    monkeypatch.setenv(lemma_dict.INDEX_ENV, str(copy))
    (lemma_dict.index_dir() / "el.dic").write_bytes(b"broken")
    got = CliRunner().invoke(main, ["dictionaries", "--check"])
    assert got.exit_code == 0, got.output
    lines = got.output.splitlines()
    assert lines[0] == f"dictionary index: {lemma_dict.index_dir()}"
    assert {"el: damaged", "sv: ok", "fi: missing", "et: missing"} <= set(lines)
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv(lemma_dict.INDEX_ENV, str(blocked))
    got = CliRunner().invoke(main, ["dictionaries"])
    assert got.exit_code == 1 and "cannot write the index" in got.output
    assert "Traceback" not in got.output


def test_the_index_is_readable_by_everyone_and_stale_when_simplemma_changes(
    small_index, tmp_path, monkeypatch, no_opened_dictionaries
):
    import os
    import stat

    from lawgraph.ingest import lemma_dict

    umask = os.umask(0)
    os.umask(umask)
    monkeypatch.setenv(lemma_dict.INDEX_ENV, str(small_index))
    for path in lemma_dict.index_dir().iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, path
    copy = tmp_path / "copy"
    shutil.copytree(small_index, copy)
    monkeypatch.setenv(lemma_dict.INDEX_ENV, str(copy))
    record = lemma_dict.index_dir() / "sv.json"
    meta = json.loads(record.read_text(encoding="utf-8"))
    meta["source"] = [1, 2]  # built from other data than the installed simplemma's
    record.write_text(json.dumps(meta), encoding="utf-8")
    assert lemma_dict.index_status("sv") == "stale"
    assert type(lemma_dict.dictionary("sv")).__name__ == "StreamMap"
    assert lemma_dict.build_index(["sv"]) == {"sv": "built"}
    assert lemma_dict.index_status("sv") == "ok"
