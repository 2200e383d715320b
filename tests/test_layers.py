"""Layers point down only: read from the source's imports (``ast``), lazy imports included.

ingest writes the store; ``store`` is the one layer that reads it for graph, web, api and
the CLI; pages (web) and API routes (api) both call it. No package imports one above it,
so no two import each other, and no module takes part in an import cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("ingest", "store", "graph", "web", "api")
"""Bottom first: each package may import only the ones before it."""
NAMESPACE = "lawgraph"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in LAYERS for p in sorted((ROOT / pkg).rglob("*.py"))}


def _local(module: str) -> str:
    """A module's name inside the repository: ``lawgraph.ingest.store`` is ``ingest.store``
    (the folders install under ``lawgraph``); ``lawgraph`` alone is the repository root."""
    if module == NAMESPACE:
        return ""
    return module.removeprefix(f"{NAMESPACE}.")


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports anywhere in its source."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [_local(a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = _local(node.module or "")
            # ``from pkg import mod`` names a module when there is one by that name
            targets = [f"{stem}.{a.name}".lstrip(".") for a in node.names]
            targets = [t if t in known else stem for t in targets]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def _graph() -> dict[str, set[str]]:
    known = _modules()
    return {name: _imports(name, path, known) for name, path in known.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m) :] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def _packages(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {p: set() for p in LAYERS}
    for name, targets in graph.items():
        top = name.split(".")[0]
        out[top] |= {t.split(".")[0] for t in targets} - {top}
    return out


def test_the_import_reader_sees_the_imports():
    graph = _graph()
    assert "ingest.store" in graph["ingest.pipeline"]  # from .store import ...
    assert "store.features" in graph["store.coverage"]  # from .features import feature
    assert "graph.build" in graph["api.app"]  # a top-level import of another package
    assert "store.lookup" in graph["web.pages"]  # from lawgraph.store.lookup import ...


def test_packages_import_only_the_layers_below():
    packages = _packages(_graph())
    for i, pkg in enumerate(LAYERS):
        above = packages[pkg] & set(LAYERS[i + 1 :])
        assert not above, f"{pkg} imports {sorted(above)}, which sit above it"
    assert _cycle(packages) is None


def test_no_module_takes_part_in_an_import_cycle():
    assert _cycle(_graph()) is None


@pytest.mark.parametrize(
    ("graph", "cycle"),
    [
        ({"a": {"b"}, "b": {"a"}}, ["a", "b", "a"]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
        ({"a": {"b"}, "b": {"c"}, "c": {"b"}}, ["b", "c", "b"]),
    ],
)
def test_cycle_finder(graph, cycle):
    assert _cycle(graph) == cycle


def test_imports_name_the_lawgraph_namespace():
    """The folders install as ``lawgraph.<folder>``: a bare ``import ingest`` works only
    from the repository's root, never after ``pip install .``."""
    bare = []
    paths = [p for pkg in (*LAYERS, "tests", "bench") for p in (ROOT / pkg).rglob("*.py")]
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            bare += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in LAYERS]
    assert not bare
