"""The ingest's shortcuts give what the plain computations they replace give, on the
whole corpus: the compare line-up's rows and partner test, the divergence sides made
with each provision's work reused, folding, the IBM Model 1 position prior, the
spelled-out numbers and the order-keeping line-up computed a row at a time."""

import dataclasses

import numpy as np

from lawgraph.ingest import compare, nlp
from lawgraph.ingest.align import aligned, checks, diverge, lexicon, match


def _line_up_links(con, label: str):
    """The members and non-flagged line-up links of one law's versions, as ``_line_up``
    gathers them."""
    versions, _ = compare._versions(con, label, [d for d, _ in compare._documents(con)], False)
    members = {}
    for v in versions.values():
        if v.get("id"):
            for r, depth in compare._descendants(con, v["id"]):
                members[r["id"]] = (r, depth, None)
    links = []
    for nid in members:
        for other, relation, flagged, score in compare._links(con, nid):
            if other in members and not flagged and relation in compare.LINE_UP:
                links.append((-score, nid, other))
    return members, links


def _has_other_partner_plain(a, b, members, links) -> bool:
    """The partner test as first written: every link scanned for every pair."""
    doc = {a: members[a][0]["doc"], b: members[b][0]["doc"]}
    other = {a: doc[b], b: doc[a]}
    for _, x, y in links:
        for mine, partner in ((x, y), (y, x)):
            if mine in doc and partner not in doc and members[partner][0]["doc"] == other[mine]:
                return True
    return False


def test_line_up_links_are_the_aligned_rows(con):
    """``compare._links`` reads what :func:`aligned` gives, without the evidence."""
    nodes = [r[0] for r in con.execute("SELECT id FROM nodes WHERE kind != 'footnote'")]
    checked = 0
    for nid in nodes[::7]:
        plain = sorted(
            (d["id"], d["flagged"], d["score"], d["relation"] in compare.LINE_UP,
             d["relation"] == "topic")
            for d in aligned(con, nid)
        )  # fmt: skip
        lean = sorted(
            (o, f, s, rel in compare.LINE_UP, rel == "topic")
            for o, rel, f, s in compare._links(con, nid)
        )
        assert lean == plain, nid
        checked += bool(plain)
    assert checked > 300


def test_partner_test_equals_the_scan_of_every_link(con):
    pairs = found = 0
    for label in ("1", "12", "16", "40", "64", "75", "80"):
        members, links = _line_up_links(con, label)
        partners: dict[str, set[str]] = {}
        for _, x, y in links:
            partners.setdefault(x, set()).add(y)
            partners.setdefault(y, set()).add(x)
        ids = sorted(members)
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                want = _has_other_partner_plain(a, b, members, links)
                assert compare._has_other_partner(a, b, members, partners) == want, (a, b)
                pairs += 1
                found += want
    assert pairs > 5_000 and 0 < found < pairs, (pairs, found)


def test_divergence_sides_with_reused_work_equal_fresh_ones(con):
    """Each side made after the same provision's sides with other books (its subtree,
    words, lemmas and concept lemmas reused) equals one made from nothing."""
    shared = diverge._load(con)
    pairs, _ = diverge._pairs(con, shared)
    by_node: dict[str, list] = {}
    for a, b, _ in pairs:
        by_node.setdefault(a, []).append(b)

    def scopes(a, bs):
        return {diverge._scope(shared, a, b) for b in bs}

    # provisions paired in both scopes (own text, whole subtree) first, then busy ones
    mixed = [(a, bs) for a, bs in by_node.items() if len(scopes(a, bs)) == 2]
    busy = mixed[:40] + [(a, bs) for a, bs in by_node.items() if len(bs) >= 3][:40]
    assert mixed and len(busy) >= 40
    fresh = diverge._load(con)
    diverge._pairs(con, fresh)
    for a, bs in busy:
        for b in bs:
            scope = diverge._scope(shared, a, b)
            reused = diverge._side(shared, a, b, scope)
            fresh.memo.clear()  # every per-node result made again
            made = diverge._side(fresh, a, b, scope)
            assert dataclasses.asdict(reused) == dataclasses.asdict(made), (a, b)


def test_fold_remembered_equals_fold_computed():
    texts = ["ΡΕΝΌΝΣ Αϋπνία", "Pelaaja PELAAJAN", "ΟΔΟΣ ΝΌΜΟΣ", "tävlingsledaren", "ΐΰ ά"]
    texts.append(" ".join(texts) * 3)  # longer than a remembered word
    for t in texts:
        assert nlp.fold(t) == nlp._fold(t) == nlp.fold(t)
    assert nlp._fold_short.cache_info().currsize > 0
    assert nlp._fold_long.cache_info().hits > 0


def test_strength_words_remembered_are_not_shared_with_the_caller():
    text = "Pelaajan tulee kutsua kilpailunjohtaja; hän ei saa pelata korttia."
    first = checks.modal_words("fi", text)
    first.setdefault("shall", []).append("changed")
    first["invented"] = ["x"]
    again = checks.modal_words("fi", text)
    checks._modal_words.cache_clear()
    assert again == checks.modal_words("fi", text)
    assert "invented" not in again and "changed" not in again.get("shall", [])


def test_contrast_names_remembered_equal_the_names_found_again(con):
    a, b = con.execute(
        "SELECT a, b FROM alignments WHERE doc_a = 'fi-2007' AND doc_b = 'sv-2007'"
        " AND relation = 'same' AND flagged = 0 LIMIT 1"
    ).fetchone()
    c = diverge._load(con)
    side = diverge._side(c, a, b, "own")
    tokens = nlp.words("Pelinviejän vasemmanpuoleinen vastustaja ja lepääjä; ei pelinviejä")
    first = checks._contrast_spans(side, tokens)
    assert first["declarer"] and first["dummy"]  # the glossary's Finnish names are found
    first["lho"].append((0, 99))  # the caller's copy, not the remembered one
    names = tuple(tuple(side.terms.get(r, ())) for pair in checks.CONTRASTS for r in pair)
    fresh = checks._named_spans.__wrapped__(names, tuple(tokens))
    assert checks._contrast_spans(side, tokens) == {r: list(v) for r, v in fresh.items()}


def test_position_prior_made_once_per_shape_is_the_computed_one():
    for m, n in ((1, 1), (3, 7), (12, 5)):
        got = lexicon._diagonal_flat(m, n, lexicon.DIAGONAL, lexicon.NULL_PRIOR)
        assert np.array_equal(got, lexicon._diagonal(m, n).ravel())
        assert not got.flags.writeable


def test_token_counts_equal_the_counts_made_one_token_at_a_time(con):
    from lawgraph.ingest.align.label import load_corpus

    corpus = load_corpus(con)
    bags = lexicon.Bags.build(corpus)
    lists = [bags.tokens.get(nid, []) for nid in corpus.provs]
    vocab: dict[str, int] = {}
    for toks in lists[::2]:  # half the provisions' words: the rest fall outside
        for w in toks:
            vocab.setdefault(w, len(vocab))
    got = lexicon.count_matrix(vocab, lists)
    plain = np.zeros((len(lists), len(vocab)))
    for i, toks in enumerate(lists):
        for w in toks:
            if w in vocab:
                plain[i, vocab[w]] += 1
    assert got.shape == plain.shape and got.nnz > 1000
    assert np.array_equal(got.toarray(), plain)
    assert lexicon.count_matrix(vocab, []).shape == (0, len(vocab))
    assert lexicon.count_matrix(vocab, [[], ["no such word"]]).nnz == 0


def test_number_word_lookup_equals_the_scan(con):
    for (lang,) in con.execute("SELECT DISTINCT language FROM documents"):
        words = {w for (t,) in con.execute(
            "SELECT n.text FROM nodes n JOIN documents d ON d.id = n.doc WHERE d.language = ?"
            " LIMIT 400", (lang,)) for w in nlp.words(t)}  # fmt: skip
        for w in words:
            plain = next(
                ((v, small) for v, rx, small in checks._number_words(lang) if rx.fullmatch(w)),
                None,
            )
            assert checks._number_word(lang, w) == plain, (lang, w)


def test_concept_lemmas_are_kept_per_scope(con):
    """A provision's concept lemmas over its own text and over its subtree are kept apart."""
    c = diverge._load(con)
    diverge._pairs(con, c)
    checked = differ = 0
    for node, concept in list(c.hit_words):
        parent = c.nodes[node]["parent"] if node in c.nodes else None
        if parent not in c.nodes or checked >= 400:
            continue
        lang = c.langs[c.nodes[parent]["doc"]]
        got = {}
        for scope, members in (("subtree", diverge._subtree(c, parent)), ("own", [parent])):
            plain = {nlp.lemma(lang, w) for m in members for w in c.hit_words.get((m, concept), ())}
            got[scope] = diverge._said(c, parent, scope, members, concept, lang)
            assert got[scope] == plain, (parent, scope, concept)
            checked += 1
        differ += got["own"] != got["subtree"]
    assert checked >= 400 and differ > 20, (checked, differ)


def _monotone_pairs_cell_by_cell(score: np.ndarray) -> list[tuple[int, int]]:
    """Needleman-Wunsch as first written: every cell chooses pair, skip a or skip b (the
    first of the best, in that order), and the path is read back from the choices."""
    m, n = score.shape
    best = np.zeros((m + 1, n + 1))
    move = np.zeros((m + 1, n + 1), dtype=np.int8)
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            options = (best[i - 1, j - 1] + score[i - 1, j - 1], best[i - 1, j], best[i, j - 1])
            k = int(np.argmax(options))
            best[i, j], move[i, j] = options[k], k
    move[1:, 0], move[0, 1:] = 1, 2
    out, i, j = [], m, n
    while i > 0 or j > 0:
        k = int(move[i, j])
        if k == 0 and score[i - 1, j - 1] > 0:
            out.append((i - 1, j - 1))
        i, j = (i - 1, j - 1) if k == 0 else (i - 1, j) if k == 1 else (i, j - 1)
    return out[::-1]


def test_monotone_pairs_a_row_at_a_time_equal_the_cell_by_cell_table():
    rng = np.random.default_rng(7)
    for t in range(1500):
        m, n = (int(x) for x in rng.integers(0, 10, size=2))
        if t % 2:  # few distinct values: many ties, where the order of preference decides
            score = rng.integers(-2, 3, size=(m, n)).astype(float) * 0.25
        else:
            score = rng.normal(size=(m, n)) * 0.3 - 0.1
        assert match.monotone_pairs(score) == _monotone_pairs_cell_by_cell(score), score


class _RecordingLibc:
    """A stand-in for glibc that records the allocator settings asked of it."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def mallopt(self, param: int, value: int) -> int:
        self.calls.append((param, value))
        return 1


def test_processes_forked_while_building_keep_freed_memory(monkeypatch):
    import ast
    import os

    from lawgraph.ingest import pipeline

    libc = _RecordingLibc()
    monkeypatch.setattr(pipeline, "_glibc", lambda: libc)
    for name in pipeline._MALLOC_ENV:
        monkeypatch.delenv(name, raising=False)
    kept = [(-3, pipeline.MMAP_THRESHOLD), (-1, pipeline.TRIM_THRESHOLD)]

    def forked() -> list:
        """What a process forked now asks of the allocator (told through a pipe)."""
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: the fork handlers have run
            os.write(write, repr(libc.calls).encode())
            os._exit(0)
        os.close(write)
        os.waitpid(pid, 0)
        with os.fdopen(read) as got:
            return ast.literal_eval(got.read())

    assert forked() == []  # not building
    try:
        with pipeline._memory_kept():
            assert forked() == kept
            raise KeyError("a stage failed")
    except KeyError:
        pass
    assert forked() == [] and libc.calls == []  # over, and this process never changed
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "131072")  # the environment rules
    with pipeline._memory_kept():
        assert forked() == []


def test_other_c_libraries_are_left_alone(monkeypatch):
    import platform

    from lawgraph.ingest import pipeline

    monkeypatch.setattr(platform, "libc_ver", lambda *a, **k: ("", ""))
    pipeline._glibc.cache_clear()
    try:
        assert pipeline._glibc() is None
        with pipeline._memory_kept():
            assert pipeline._KEEP_FREED is False
    finally:
        pipeline._glibc.cache_clear()


def test_glossary_hits_equal_those_with_every_stem_match_checked(con, tmp_path, monkeypatch):
    import sqlite3

    from lawgraph.ingest import glossary

    def plain(lang, doc, matchers, keys, groups):
        """The candidates as first written: every stem match checked."""
        return sorted(
            (start - end, start, via, keys[key], end)
            for via, matcher in enumerate(matchers)
            for key, start, end in matcher(doc)
            if via < 2 or glossary._stem_match_ok(lang, doc[start:end], groups[keys[key]])
        )

    checked = []
    stem_match_ok = glossary._stem_match_ok

    def counted(*args):
        checked[-1] += 1
        return stem_match_ok(*args)

    monkeypatch.setattr(glossary, "_stem_match_ok", counted)

    def hits(candidates) -> list:
        checked.append(0)
        copy = sqlite3.connect(tmp_path / f"{candidates.__name__}.db")
        try:
            con.backup(copy)
            for (name,) in copy.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'concept%'"
            ).fetchall():
                copy.execute(f'DROP TABLE "{name}"')
            monkeypatch.setattr(glossary, "_candidates", candidates)
            glossary.glossary_stage(copy)
            return copy.execute("SELECT * FROM concept_hits").fetchall()
        finally:
            copy.close()

    shortcut = hits(glossary._candidates)
    assert len(shortcut) > 10_000
    assert shortcut == hits(plain)
    assert 0 < checked[0] < checked[1]  # the shortcut checked fewer stem matches


_BLAS_THREADS = """
import ctypes, json, os, re
import lawgraph.ingest
import numpy, scipy.optimize
maps = open("/proc/self/maps").read()
libs = sorted({m.group(0) for m in re.finditer(r"/\\S*openblas\\S*\\.so\\S*", maps)})
threads = []
for path in libs:
    lib = ctypes.CDLL(path)
    for name in ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads",
                 "openblas_get_num_threads64_", "openblas_get_num_threads"):
        if hasattr(lib, name):
            threads.append(getattr(lib, name)())
            break
print(json.dumps({"env": os.environ.get("OPENBLAS_NUM_THREADS"), "threads": threads,
                  "libs": len(libs)}))
"""


def _blas_threads(env: dict) -> dict:
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _BLAS_THREADS], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_a_process_that_imports_the_ingest_first_runs_openblas_on_one_thread():
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    got = _blas_threads(env)
    # numpy's and SciPy's wheels each bundle OpenBLAS: every library loaded is asked itself
    assert got["env"] == "1" and got["libs"] >= 1 and len(got["threads"]) == got["libs"]
    assert set(got["threads"]) == {1}
    kept = _blas_threads({**env, "OPENBLAS_NUM_THREADS": "2"})
    cores = len(os.sched_getaffinity(0))  # OpenBLAS takes no more threads than cores
    assert kept["env"] == "2" and set(kept["threads"]) == {min(2, cores)}
