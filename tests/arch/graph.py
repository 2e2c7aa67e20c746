"""The import graph of ``src/webgauge``, read with :mod:`ast` (no module is imported).

Every ``import`` and ``from ... import`` counts, wherever it sits: at module level, inside a
function, or under ``if TYPE_CHECKING:``. A deferred import is still a dependency a reader must
follow, and a circle hidden in a function body is still a circle; the only imports left out are
those naming something outside ``webgauge``.

An edge goes from a module to the module it names. ``from .pkg import name`` resolves to
``pkg.name`` when that is a module of the tree and to ``pkg`` (its ``__init__``) otherwise.
Importing ``a.b.c`` also runs ``a/__init__`` and ``a/b/__init__``; those package edges are not
added, since the rule is about which file leans on which, and packages re-export downward.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

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


def _is_package_init(module: str, known: dict[str, Path]) -> bool:
    return known[module].name == "__init__.py"


def cycles(all_edges: list[Edge], known: dict[str, Path]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted.

    Edges into a package's ``__init__`` from its own sub-modules are left out: an ``__init__``
    that re-exports its children is a facade above them, and a child reaching for a sibling
    through the facade is flagged as its own rule (:func:`facade_imports`)."""
    graph: dict[str, set[str]] = {m: set() for m in known}
    for e in all_edges:
        if _is_package_init(e.target, known) and e.source.startswith(e.target + "."):
            continue
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


def facade_imports(all_edges: list[Edge], known: dict[str, Path]) -> list[Edge]:
    """Sub-modules importing their own package's ``__init__`` (a sibling reached through the facade)."""
    return [e for e in all_edges if _is_package_init(e.target, known) and e.source.startswith(e.target + ".")]
