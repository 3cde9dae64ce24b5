"""The package map of docs/architecture.md, checked on the source (every import, lazy ones too, and
imports by name: ``importlib.import_module("pkg.mod")`` / ``__import__("pkg.mod")``; a module that
imports a name held in a variable is taken to import every project module its strings name).

- nothing installed imports ``training`` or ``tools`` (they are not installed);
- the arrows between installed packages point the documented way only;
- the doc's table lists every arrow there is between packages, and no arrow that is not;
- no import cycle among the installed modules (a lazy import inside a function counts:
  a cycle is broken by moving the shared type down, not by hiding an import).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALLED = ("engine", "vision", "calibration", "hardware", "display", "controller")
#: package -> the project packages it may import (besides itself)
ALLOWED = {
    "engine": set(),
    "calibration": set(),
    "vision": {"calibration"},
    "hardware": {"engine"},
    "display": {"engine"},
    "controller": {"engine", "vision", "calibration", "hardware", "display"},
}
PROJECT = (*INSTALLED, "training", "tools", "tests", "benchmarks", "boards", "decks")
DOC = ROOT / "docs" / "architecture.md"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports_by_name(node: ast.Call) -> bool:
    """``importlib.import_module(...)``, ``import_module(...)`` or ``__import__(...)``."""
    f = node.func
    return (isinstance(f, ast.Name) and f.id in ("import_module", "__import__")) or (
        isinstance(f, ast.Attribute) and f.attr == "import_module"
    )


def _imports(path: Path) -> set[str]:
    """Every project module ``path`` imports, at any depth of the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: set[str] = set()
    by_variable = False  # an import by a name held in a variable (a table of game or area modules)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _imports_by_name(node) and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
            else:
                by_variable = True
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # ``from pkg import sub`` needs the module pkg.sub; ``from pkg import Name`` needs pkg
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                found.add(sub if _is_module(sub) else node.module)
    if by_variable:
        names = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        found.update(n for n in names if n.split(".")[0] in PROJECT and _is_module(n))
    return {m for m in found if m.split(".")[0] in PROJECT}


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for pkg in INSTALLED for p in (ROOT / pkg).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        graph[name] = {m for m in _imports(path) if m in files and m != name} | {
            m for m in _imports(path) if m.split(".")[0] in ("training", "tools")
        }
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_nothing_installed_imports_training_or_tools() -> None:
    outside = ("training", "tools")
    bad = {f"{m} -> {d}" for m, deps in _graph().items() for d in deps if d.split(".")[0] in outside}
    assert sorted(bad) == []


@pytest.mark.parametrize("package", INSTALLED)
def test_arrows_point_the_documented_way(package: str) -> None:
    wrong = {
        f"{m} -> {d}"
        for m, deps in _graph().items()
        if m.split(".")[0] == package
        for d in deps
        if d.split(".")[0] != package and d.split(".")[0] not in ALLOWED[package]
    }
    assert sorted(wrong) == []


def test_training_never_imports_tools() -> None:
    # tools/ holds fixture generators; the renderers both they and the trainers use live in training/
    bad = {
        f"{_module_name(p)} -> {m}"
        for p in (ROOT / "training").rglob("*.py")
        for m in _imports(p)
        if m.split(".")[0] == "tools"
    }
    assert sorted(bad) == []


def _doc_arrows() -> dict[str, tuple[set[str], set[str]]]:
    """docs/architecture.md's table: package -> (the packages it imports today, those it may import)."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"`[a-z]+`", cells[0]):
            today, may = ({n for n in re.findall(r"`([a-z]+)`", c) if n in PROJECT} for c in cells[1:3])
            if "the installed packages" in cells[2]:
                may |= set(INSTALLED)
            out[cells[0].strip("`")] = (today, may)
    return out


def _package_arrows(package: str) -> set[str]:
    """The other project packages that the modules of ``package`` import (by name too)."""
    return {
        m.split(".")[0]
        for p in (ROOT / package).rglob("*.py")
        for m in _imports(p)
        if m.split(".")[0] != package and m.split(".")[0] in PROJECT
    }


@pytest.mark.parametrize("package", [*INSTALLED, "training", "tools"])
def test_the_doc_lists_every_arrow_there_is(package: str) -> None:
    today, may = _doc_arrows()[package]
    assert sorted(_package_arrows(package)) == sorted(today), f"docs/architecture.md's row for {package}"
    assert today <= may, f"{package} imports {sorted(today - may)}, which its row says it may not"
    if package in ALLOWED:
        assert may == ALLOWED[package], f"docs/architecture.md and ALLOWED disagree on {package}"


def test_no_import_cycle_among_installed_modules() -> None:
    assert _cycles(_graph()) == []


def test_the_checker_sees_a_cycle_and_a_lazy_import(tmp_path: Path) -> None:
    # the checks above must be able to fail: a lazy import inside a function is an edge
    (tmp_path / "a.py").write_text("def f():\n    from tools.x import y\n", encoding="utf-8")
    assert _imports(tmp_path / "a.py") == {"tools.x"}
    # and an import by name: a string literal, or names held in a table (only project modules count)
    (tmp_path / "b.py").write_text(
        "import importlib\nm = importlib.import_module('tools.render.generate')\n"
        "n = __import__('training')\n",
        encoding="utf-8",
    )
    assert _imports(tmp_path / "b.py") == {"tools.render.generate", "training"}
    (tmp_path / "c.py").write_text(
        "import importlib\nAREAS = ('controller.cli_log', 'not.a.module', 'vision')\n"
        "def f(name):\n    return importlib.import_module(name)\n",
        encoding="utf-8",
    )
    assert _imports(tmp_path / "c.py") == {"controller.cli_log", "vision"}
    assert _cycles({"p.a": {"p.b"}, "p.b": {"p.a"}, "p.c": {"p.a"}}) == [["p.a", "p.b"]]


def test_the_table_stays_a_facade() -> None:
    # issue 28: controller/table.py wires the table's parts together; what grows in it belongs in a
    # module of its own (controller.commands, .script, .panel_rounds, .teach, .empty_learn, ...)
    lines = len((ROOT / "controller" / "table.py").read_text(encoding="utf-8").splitlines())
    assert lines <= 700, f"controller/table.py has {lines} lines; move a cohesive part out of it"
