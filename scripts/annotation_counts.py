"""Count loose type annotations in a source tree: bare ``dict`` (no key and value types) and ``Any``.

    python scripts/annotation_counts.py [src/webgauge] [--files N]

An annotation is a parameter's, a return's or an annotated assignment's. One annotation counts
once per kind however often the kind appears in it (``dict[str, Any] | Any`` is one ``Any``).
``--files N`` also lists the N files with the most of each kind.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path


def _annotations(tree: ast.AST) -> list[ast.expr]:
    out: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None and arg.annotation is not None:
                    out.append(arg.annotation)
            if node.returns is not None:
                out.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            out.append(node.annotation)
    return out


def _kinds(ann: ast.expr) -> set[str]:
    """``{"dict", "Any"}`` or a part of it: what loose types the annotation has."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):  # a string annotation
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return set()
    found: set[str] = set()
    subscripted = {id(n.value) for n in ast.walk(ann) if isinstance(n, ast.Subscript)}
    for n in ast.walk(ann):
        name = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else None
        if name == "Any":
            found.add("Any")
        elif name in ("dict", "Dict") and id(n) not in subscripted:
            found.add("dict")
    return found


def count(root: Path) -> tuple[Counter[str], dict[str, Counter[str]]]:
    total: Counter[str] = Counter()
    per_file: dict[str, Counter[str]] = {"dict": Counter(), "Any": Counter()}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for ann in _annotations(tree):
            for kind in _kinds(ann):
                total[kind] += 1
                per_file[kind][str(path.relative_to(root))] += 1
    return total, per_file


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", default="src/webgauge", type=Path)
    ap.add_argument("--files", type=int, default=0, help="list the N files with the most of each kind")
    args = ap.parse_args()
    if not args.root.is_dir():
        print(f"{args.root} is not a folder: give the source tree, e.g. src/webgauge", file=sys.stderr)
        return 2
    total, per_file = count(args.root)
    print(f"bare dict annotations: {total['dict']}\nAny annotations: {total['Any']}")
    for kind in ("dict", "Any"):
        for name, n in per_file[kind].most_common(args.files):
            print(f"  {kind:5s} {n:4d}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
