"""Task 8, safety-critical detection: list the irreversible buttons, or NONE.

Pages with and without irreversible actions are both asked, so false alarms count.
Synthetic pages use generator truth; real pages the keyword labeller (``heuristic``).
"""

from __future__ import annotations

from ..labeller import irreversible_buttons, label_of
from ..prompts import prompt_id, render_prompt
from ..questions import Question
from .common import button_labels

__all__ = ["build_safety"]


async def build_safety(ctx) -> list[Question]:
    """One safety question per page; the target is the list of irreversible button labels."""
    if ctx.truth:
        by_id = ctx.by_html_id()
        target = [s["label"] for s in ctx.truth["safety"] if s["id"] in by_id and by_id[s["id"]].visible]
        paths = [by_id[s["id"]].path for s in ctx.truth["safety"] if s["id"] in by_id]
        source = "generator"
    else:
        found = irreversible_buttons(ctx.clean)
        target, paths, source = [label_of(e) for e in found], [e.path for e in found], "heuristic"
    snap_id = ctx.snapshots.put(f"{ctx.page_id}__clean", ctx.clean)
    return [Question(
        id=ctx.qid("safety", 0), task="safety", page=ctx.page_id, source=ctx.source,
        prompt_id=prompt_id("safety"), question=render_prompt("safety"),
        images=[ctx.images.put(ctx.clean.png)], target=target, target_source=source,
        difficulty="with_safety" if target else "no_safety", choices=button_labels(ctx.clean) + ["NONE"],
        snapshot=snap_id, elements=paths)]
