"""A plain (not editable) install: one ``lawgraph`` package with the corpus inside, and
``lawgraph ingest`` working from another directory.

The wheel is built from a copy of the repository's files with the build backend already in
this environment (no index, no build isolation), then installed into a fresh virtual
environment whose dependencies come from this one (a path entry to its site-packages, whose
own ``.pth`` files, such as the editable install's, are not read from there).
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BARE = ("api", "web", "graph", "ingest", "store", "corpus")
SKIP = {".git", ".venv", "var", "build", "test-output", "__pycache__", ".mypy_cache", ".typecheck"}


def _copy_source(dest: Path) -> Path:
    """The repository's files (not its environments or build leftovers) under ``dest``."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n in SKIP or n.endswith(".egg-info")}

    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)
    return dest


def _run(args: list, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    src = _copy_source(tmp / "src")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    _run([*pip, "wheel", "--no-deps", "--no-index", "--no-build-isolation", "-w", tmp, src], tmp)
    (found,) = tmp.glob("lawgraph-*.whl")
    return found


def test_the_wheel_holds_one_package_with_the_corpus(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/", 1)[0] for n in names}
    assert tops == {"lawgraph", wheel.name.split("-py3")[0] + ".dist-info"}, tops
    for package in ("ingest", "store", "graph", "web", "api"):
        assert f"lawgraph/{package}/__init__.py" in names
    manifest = tomllib.loads((ROOT / "corpus" / "manifest.toml").read_text(encoding="utf-8"))
    books = [d["source"] for d in manifest["document"]]
    assert books
    for rel in ["manifest.toml", "glossary.toml", *books]:
        assert f"lawgraph/corpus/{rel}" in names, rel
    for folder in ("parsers", "errata"):
        for path in (ROOT / "corpus" / folder).glob("*.toml"):
            assert f"lawgraph/corpus/{folder}/{path.name}" in names
    for path in (ROOT / "ingest" / "languages").glob("*.toml"):
        assert f"lawgraph/ingest/languages/{path.name}" in names
    assert "lawgraph/web/templates/base.html" in names
    assert any(n.startswith("lawgraph/web/static/") and n.endswith(".css") for n in names)
    entry = zipfile.ZipFile(wheel).read(f"{wheel.name.split('-py3')[0]}.dist-info/entry_points.txt")
    assert b"lawgraph = lawgraph.api.cli:run" in entry


def test_a_plain_install_ingests_from_another_directory(wheel, tmp_path):
    env = tmp_path / "env"
    _run([sys.executable, "-m", "venv", "--without-pip", env], tmp_path)
    python = env / "bin" / "python"
    site = Path(
        _run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path
        ).stdout.strip()
    )
    # the dependencies (spaCy, FastAPI, ...) of this environment, not its lawgraph
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", "--python", python]
    _run([*pip, "install", "--no-deps", "--no-index", "--ignore-installed", wheel], tmp_path)
    installed = {p.name for p in site.iterdir()}
    assert "lawgraph" in installed
    assert not installed & set(BARE), installed & set(BARE)

    work = tmp_path / "elsewhere"
    work.mkdir()
    where = _run([python, "-c", "import lawgraph.ingest as m; print(m.__file__)"], work)
    assert Path(where.stdout.strip()).is_relative_to(site)
    lawgraph = env / "bin" / "lawgraph"
    out = _run([lawgraph, "ingest", "--db", "store.db", "--no-warnings"], work).stdout
    assert "wrote store.db" in out
    con = sqlite3.connect(work / "store.db")
    docs = [r[0] for r in con.execute("SELECT id FROM documents ORDER BY ord")]
    manifest = tomllib.loads((ROOT / "corpus" / "manifest.toml").read_text(encoding="utf-8"))
    assert docs == [d["id"] for d in manifest["document"]]
    laws = con.execute("SELECT count(*) FROM nodes WHERE kind = 'law'").fetchone()[0]
    assert laws > 300
    con.close()
    # --corpus still names another corpus folder
    corpus = shutil.copytree(ROOT / "corpus", work / "my-corpus")
    args = [lawgraph, "ingest", "--db", "store.db", "--corpus", corpus, "--force", "--no-warnings"]
    out = _run(args, work).stdout
    assert "wrote store.db" in out
    con = sqlite3.connect(work / "store.db")
    assert con.execute("SELECT value FROM meta WHERE key = 'corpus_dir'").fetchone()[0] == str(
        corpus.resolve()
    )
    con.close()
