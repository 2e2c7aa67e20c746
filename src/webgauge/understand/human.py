"""Labels written by people, imported from JSONL; they override automatic labels.

Each line is a JSON object with ``answer`` and either ``question_id`` or the triple
``page``, ``task``, ``element`` (the element's XPath, as in the question's ``elements``).
An optional ``annotator`` is kept. The question's previous target and source are kept in
``meta["replaced_label"]``; its ``target_source`` becomes ``human``.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["read_human_labels", "apply_human_labels"]


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


def apply_human_labels(questions: list, rows: list[dict]) -> dict[str, int]:
    """Override targets in place; returns ``{"applied": n, "unmatched": m}``."""
    by_id = {q.id: q for q in questions}
    by_el: dict[tuple, list] = {}
    for q in questions:
        for path in q.elements[:1]:
            by_el.setdefault((q.page, q.task, path), []).append(q)
    applied = unmatched = 0
    for row in rows:
        targets = [by_id[row["question_id"]]] if row.get("question_id") in by_id else \
            by_el.get((row.get("page"), row.get("task"), row.get("element")), [])
        if not targets:
            unmatched += 1
            continue
        for q in targets:
            q.meta["replaced_label"] = {"target": q.target, "source": q.target_source}
            if row.get("annotator"):
                q.meta["annotator"] = row["annotator"]
            q.target, q.target_source = row["answer"], "human"
            applied += 1
    return {"applied": applied, "unmatched": unmatched}
