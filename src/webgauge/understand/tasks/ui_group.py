"""Task 2, UI group: one element in a red box; which region of the layout it belongs to.

Synthetic pages use generator truth (one element per region present, plus extras); real
pages use the heuristic labeller (:func:`webgauge.understand.labeller.ui_group`), marked
``heuristic`` until a person's label overrides it.
"""

from __future__ import annotations

from ..labeller import UI_GROUPS, label_of, ui_group
from ..prompts import prompt_id, render_prompt
from ..questions import Question
from .common import boxed_image, truth_elements, visible_candidates

__all__ = ["build_ui_group", "PER_PAGE"]

PER_PAGE = 5


def _stratified(rng, pairs, k):
    """Up to ``k`` (group, element) pairs, covering every group before repeating one."""
    by_group: dict[str, list] = {}
    for g, el in pairs:
        by_group.setdefault(g, []).append(el)
    out = []
    while len(out) < k and any(by_group.values()):
        for g in sorted(by_group):
            if by_group[g] and len(out) < k:
                out.append((g, by_group[g].pop(rng.randrange(len(by_group[g])))))
    return out


async def build_ui_group(ctx) -> list[Question]:
    """UI-group questions for one page."""
    if ctx.truth:
        pairs = [(rec["group"], el) for rec, el in truth_elements(ctx)]
        source = "generator"
    else:
        pairs = [(ui_group(ctx.clean, el), el) for el in visible_candidates(ctx.clean) if label_of(el)]
        source = "heuristic"
    snap_id = ctx.snapshots.put(f"{ctx.page_id}__clean", ctx.clean)
    out = []
    for n, (group, el) in enumerate(_stratified(ctx.rng, pairs, PER_PAGE)):
        out.append(Question(
            id=ctx.qid("ui_group", n), task="ui_group", page=ctx.page_id, source=ctx.source,
            prompt_id=prompt_id("ui_group"), question=render_prompt("ui_group"),
            images=[await boxed_image(ctx, ctx.clean, el)], target=group, target_source=source,
            choices=list(UI_GROUPS), snapshot=snap_id, elements=[el.path], meta={"label": label_of(el)}))
    return out
