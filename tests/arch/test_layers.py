"""The layers of ``src/webgauge`` point one way, and no module circles back (read with ``ast``).

Every ``import`` and ``from ... import`` of a ``webgauge`` module counts, wherever it sits: at
module level, inside a function, or under ``if TYPE_CHECKING:``. A deferred import hides a
dependency from the import system, not from a reader, and a circle through a function body is
still a circle. No module is imported to build the graph.

An edge goes from a module to the module it names. ``from .pkg import name`` resolves to
``pkg.name`` when that is a module of the tree and to ``pkg`` (its ``__init__``) otherwise.
Importing ``a.b.c`` also runs ``a/__init__`` and ``a/b/__init__``; those implied package edges
are not added (the rule is about which file leans on which), but an explicit import of a
package is an edge to its ``__init__``, so a circle through a facade is caught.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
ROOT = "webgauge"


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    deferred: bool  # inside a function body or a TYPE_CHECKING block


def modules(src: Path = SRC) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` under ``src/webgauge``."""
    out: dict[str, Path] = {}
    for path in sorted((src / ROOT).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _resolve(base: str, known: dict[str, Path]) -> str | None:
    """The longest known module that ``base`` names (``a.b.c`` -> ``a.b`` if ``c`` is a symbol)."""
    name = base
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


class _Walker(ast.NodeVisitor):
    def __init__(self, module: str, path: Path, known: dict[str, Path]) -> None:
        self.module, self.known = module, known
        self.package = _package_of(module, path)
        self.depth = 0
        self.edges: list[Edge] = []

    def _add(self, target: str | None, node: ast.stmt) -> None:
        if target is not None and target != self.module:
            self.edges.append(Edge(self.module, target, node.lineno, self.depth > 0))

    def _deferred(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _deferred

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
        if name == "TYPE_CHECKING":
            self.depth += 1
            for child in node.body:
                self.visit(child)
            self.depth -= 1
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name == ROOT or alias.name.startswith(ROOT + "."):
                self._add(_resolve(alias.name, self.known), node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base_parts = self.package.split(".")
            if node.level > 1:
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
            base = ".".join(base_parts + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        if not (base == ROOT or base.startswith(ROOT + ".")):
            return
        for alias in node.names:
            full = f"{base}.{alias.name}"
            self._add(full if full in self.known else _resolve(base, self.known), node)


def edges(src: Path = SRC) -> list[Edge]:
    known = modules(src)
    out: list[Edge] = []
    for module, path in known.items():
        walker = _Walker(module, path, known)
        walker.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        out.extend(walker.edges)
    return out


def cycles(all_edges: list[Edge], known: dict[str, Path]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    graph: dict[str, set[str]] = {m: set() for m in known}
    for e in all_edges:
        graph[e.source].add(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def connect(v: str) -> None:
        nonlocal counter
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, children = work[-1]
            advanced = False
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return sorted(found)


@pytest.fixture(scope="module")
def known() -> dict[str, Path]:
    """The tree's modules: read when the first test of this file runs, not while every worker collects."""
    return modules()


@pytest.fixture(scope="module")
def all_edges() -> list[Edge]:
    return edges()

SUITES = ("webgauge.understand", "webgauge.arena", "webgauge.design2code")

CORE = "webgauge.arena.core"
CORE_MAY_IMPORT = (CORE, "webgauge.records", "webgauge.browser")
"""arena/core is values and protocols: it leans on nothing above it in the arena (apps,
agents, tasks, env, adapters, outputs, variants, runner), nor on the run machinery or another
suite; the typed record base and the browser's value types are below it."""



def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _show(bad: list[Edge]) -> str:
    return "\n".join(f"  {e.source} -> {e.target} (line {e.line}{', deferred' if e.deferred else ''})" for e in bad)


def test_the_graph_sees_the_tree(known, all_edges):
    # the reader must find the known edges, or every rule below would pass on an empty graph
    assert len(known) > 200
    pairs = {(e.source, e.target) for e in all_edges}
    assert ("webgauge.arena.agents.parse", "webgauge.arena.core.actions") in pairs
    assert ("webgauge.arena.env.episode", "webgauge.arena.core.agent") in pairs
    assert any(e.deferred for e in all_edges)  # imports inside functions are read too


def test_no_import_circle_anywhere(known, all_edges):
    found = cycles(all_edges, known)
    detail = []
    for comp in found:
        members = set(comp)
        inside = [e for e in all_edges if e.source in members and e.target in members]
        detail.append(" <-> ".join(comp) + "\n" + _show(inside))
    assert not found, "import circles:\n" + "\n".join(detail)


def test_arena_core_imports_nothing_above_it(all_edges):
    bad = [e for e in all_edges if _under(e.source, CORE) and not any(_under(e.target, ok) for ok in CORE_MAY_IMPORT)]
    assert not bad, "arena/core imports upward:\n" + _show(bad)


def test_nothing_imports_the_cli(all_edges):
    bad = [e for e in all_edges if _under(e.target, "webgauge.cli") and not _under(e.source, "webgauge.cli")
           and e.source != "webgauge.__main__"]
    assert not bad, "only the CLI may import the CLI:\n" + _show(bad)


def test_suites_do_not_import_one_another(all_edges):
    bad = [e for e in all_edges for s in SUITES for t in SUITES
           if s != t and _under(e.source, s) and _under(e.target, t)]
    assert not bad, "a suite imports another suite:\n" + _show(bad)


def test_the_checks_catch_a_circle_and_an_upward_import(tmp_path):
    # a two-module circle through a function-level import, and core reaching into agents
    pkg = tmp_path / "webgauge"
    for d in ("arena/core", "arena/agents"):
        (pkg / d).mkdir(parents=True)
    for init in ("", "arena", "arena/core", "arena/agents"):
        (pkg / init / "__init__.py").write_text("")
    (pkg / "arena/core/a.py").write_text("def f():\n    from ..agents import b\n")
    (pkg / "arena/agents/b.py").write_text("from webgauge.arena.core.a import f\n")
    known = modules(tmp_path)
    es = edges(tmp_path)
    assert cycles(es, known) == [["webgauge.arena.agents.b", "webgauge.arena.core.a"]]
    up = [e for e in es if _under(e.source, CORE) and not any(_under(e.target, ok) for ok in CORE_MAY_IMPORT)]
    assert [(e.source, e.target, e.deferred) for e in up] == [
        ("webgauge.arena.core.a", "webgauge.arena.agents.b", True)]
