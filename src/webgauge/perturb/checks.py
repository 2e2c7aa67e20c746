"""Invariance checks: compare the ``Snapshot`` before a perturbation with the one after it.

- :func:`check_text_only`: every element keeps its text and accessible name, except the
  intended targets and their ancestors (whose text contains the target's text).
- :func:`check_colors_only`: every element keeps its text color and effective background,
  except the recolored elements and their descendants (which sit on the new background).
- :func:`check_box_fixed`: a tracked element (the call-to-action) keeps its box.
- :func:`check_boxes_unchanged`: no element moves or resizes (for global color edits).

A pair whose check fails is dropped by the suite and counted; the problems say why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .base import PerturbationRecord

__all__ = ["CheckResult", "check_text_only", "check_colors_only", "check_box_fixed",
           "check_boxes_unchanged", "verify"]


@dataclass
class CheckResult:
    """Outcome of one invariance check; ``problems`` name the offending elements."""

    name: str
    ok: bool
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"name": self.name, "ok": self.ok, "problems": self.problems[:20]}


def _under(path: str, roots) -> bool:
    return any(path == r or path.startswith(r + "/") for r in roots)


def _ancestors(path: str) -> set[str]:
    parts = path.split("/")
    return {"/".join(parts[:i]) for i in range(2, len(parts) + 1)}


def check_text_only(before, after, targets: list[str]) -> CheckResult:
    """Texts change only at ``targets`` (XPaths) and their ancestors."""
    allowed = set().union(*(_ancestors(t) for t in targets)) if targets else set()
    b, a = before.by_path(), after.by_path()
    problems = []
    if set(b) != set(a):
        problems.append(f"DOM changed: {len(set(b) ^ set(a))} paths differ")
    changed = {p for p in set(b) & set(a) if (b[p].text, b[p].name) != (a[p].text, a[p].name)}
    problems += [f"text changed at {p}: {b[p].text[:40]!r} -> {a[p].text[:40]!r}" for p in sorted(changed - allowed)]
    for t in targets:
        if t in b and t in a and b[t].text == a[t].text and b[t].name == a[t].name:
            problems.append(f"intended change did not show at {t}")
    return CheckResult("text_only", not problems, problems)


def check_colors_only(before, after, recolored: list[str]) -> CheckResult:
    """Colors change only on ``recolored`` elements and their descendants; texts never."""
    b, a = before.by_path(), after.by_path()
    problems = []
    for p in sorted(set(b) & set(a)):
        if (b[p].color, b[p].background_color) != (a[p].color, a[p].background_color) and not _under(p, recolored):
            problems.append(f"color changed at {p}: {b[p].background_color} -> {a[p].background_color}")
        if b[p].text != a[p].text:
            problems.append(f"text changed at {p}")
    for r in recolored:
        if r in b and r in a and b[r].background_color == a[r].background_color:
            problems.append(f"intended recolor did not show at {r}")
    return CheckResult("colors_only", not problems, problems)


def check_box_fixed(before, after, path_before: str, path_after: str | None = None, tol: float = 1.0) -> CheckResult:
    """The element at ``path_before`` (now at ``path_after``) keeps its box within ``tol`` px."""
    path_after = path_after or path_before
    b, a = before.by_path().get(path_before), after.by_path().get(path_after)
    if b is None or a is None:
        return CheckResult("box_fixed", False, [f"tracked element missing: {path_before} -> {path_after}"])
    moved = max(abs(x - y) for x, y in zip(b.box, a.box))
    ok = moved <= tol and a.visible
    return CheckResult("box_fixed", ok, [] if ok else [f"{path_before} moved by {moved:.1f}px (visible={a.visible})"])


def check_boxes_unchanged(before, after, tol: float = 0.5) -> CheckResult:
    """No element moves, resizes or changes text (global color edits must not reflow)."""
    b, a = before.by_path(), after.by_path()
    problems = [f"{p} moved" for p in sorted(set(b) & set(a))
                if max(abs(x - y) for x, y in zip(b[p].box, a[p].box)) > tol]
    problems += [f"text changed at {p}" for p in sorted(set(b) & set(a)) if b[p].text != a[p].text]
    if set(b) != set(a):
        problems.append("DOM changed")
    return CheckResult("boxes_unchanged", not problems, problems)


def verify(record: PerturbationRecord, before, after) -> list[CheckResult]:
    """Run the checks that apply to ``record``'s family; all must pass for the pair to be kept."""
    if record.family == "text":
        return [check_text_only(before, after, record.changed_paths)]
    if record.family == "color":
        return [check_colors_only(before, after, record.changed_paths)]
    if record.family == "low_contrast":
        return [check_boxes_unchanged(before, after)]
    if record.family == "layout":
        return [check_box_fixed(before, after, old, new) for old, new in record.tracked.items()]
    raise ValueError(f"no checks known for perturbation family {record.family!r}")
