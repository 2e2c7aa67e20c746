"""Labels written by people, imported from JSONL; they override automatic labels.

Each line is a JSON object with ``answer`` and either ``question_id`` or the triple
``page``, ``task``, ``element`` (the element's XPath, as in the question's ``elements``; empty
for a page-level question). A line with ``element`` is matched by the triple (question ids
change when a rebuild asks about other elements), else by ``question_id``.
An optional ``annotator`` is kept. The question's previous target and source are kept in
``meta["replaced_label"]``; its ``target_source`` becomes ``human``.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["read_human_labels", "apply_human_labels", "label_key", "label_precision", "same_label"]


def label_key(q) -> tuple[str, str, str]:
    """``(page, task, element)`` of a question: the XPath of the first element it asks about, empty
    for a page-level question (safety on a page with no irreversible button)."""
    return (q.page, q.task, q.elements[0] if q.elements else "")


def read_human_labels(path: str | Path) -> list[dict]:
    """Parse a labels JSONL file; a malformed line is an error naming the line and the fix."""
    rows = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not JSON ({exc.msg}); write one JSON object per line") from None
        if not isinstance(row, dict) or "answer" not in row or not (
                "question_id" in row or {"page", "task", "element"} <= set(row)):
            raise ValueError(f"{path}:{n}: a label needs 'answer' and either 'question_id' or "
                             "'page', 'task' and 'element' (an XPath from the question's elements)")
        rows.append(row)
    return rows


def _norm(text) -> str:
    return " ".join(str(text).split()).casefold()


def _as_set(v) -> set[str]:
    """A safety label as a set of button labels (``NONE`` or empty: no button)."""
    if isinstance(v, list):
        return {_norm(x) for x in v}
    return set() if _norm(v) in ("", "none") else {_norm(v)}


def same_label(task: str, automatic, human) -> bool:
    """Whether an automatic label says what a person's does: the same UI group, the same relation for
    every pair, the same set of irreversible buttons (safety), the same text up to case and spacing."""
    if task == "position":
        return isinstance(automatic, dict) and isinstance(human, dict) and automatic == human
    if task == "safety":
        return _as_set(automatic) == _as_set(human)
    return automatic is not None and _norm(automatic) == _norm(human)


def label_precision(pairs: list[tuple[str, object, object]]) -> dict[str, dict]:
    """Per task, from ``(task, automatic label, human label)``: ``{"checked", "agree", "precision"}``."""
    out: dict[str, dict] = {}
    for task, auto, human in pairs:
        row = out.setdefault(task, {"checked": 0, "agree": 0})
        row["checked"] += 1
        row["agree"] += same_label(task, auto, human)
    for row in out.values():
        row["precision"] = round(row["agree"] / row["checked"], 4)
    return dict(sorted(out.items()))


def apply_human_labels(questions: list, rows: list[dict]) -> dict:
    """Override targets in place; returns ``{"applied": n, "unmatched": m, "precision": {...}}``:
    ``precision`` compares, per task, the automatic labels (heuristic or computed from the DOM) with
    the people's labels that replaced them (:func:`label_precision`; the last line for an element wins)."""
    by_id = {q.id: q for q in questions}
    by_el: dict[tuple, list] = {}
    for q in questions:
        by_el.setdefault(label_key(q), []).append(q)
    applied = unmatched = 0
    for row in rows:
        if "element" in row:  # the element decides: question ids change when a rebuild asks about others
            targets = by_el.get((row.get("page"), row.get("task"), row.get("element")), [])
        else:
            targets = [by_id[row["question_id"]]] if row.get("question_id") in by_id else []
        if not targets:
            unmatched += 1
            continue
        for q in targets:
            if q.target_source != "human":  # the first label a question gets replaces the automatic one
                q.meta["replaced_label"] = {"target": q.target, "source": q.target_source}
            if row.get("annotator"):
                q.meta["annotator"] = row["annotator"]
            q.target, q.target_source = row["answer"], "human"
            applied += 1
    # one decision per question a person looked at: the clean one (a robustness pair's perturbed
    # questions share its element and label)
    checked = [(q.task, q.meta["replaced_label"]["target"], q.target) for q in questions
               if q.target_source == "human" and q.variant == "clean"
               and q.meta.get("replaced_label", {}).get("source") in ("heuristic", "dom")]
    return {"applied": applied, "unmatched": unmatched, "precision": label_precision(checked)}
