"""Task 2, UI group: one element in a red box; which region of the layout it belongs to.

Synthetic pages use generator truth (one element per region present, plus extras); real
pages use the labeller (:func:`webgauge.understand.labeller.ui_group_label`), marked
``heuristic`` until a person's label overrides it. Precision first: an element whose group no
strong signal decides (a landmark or a region name, each checked against the region's box) is
not asked about; such elements are counted in the manifest's ``dropped`` as
``ui_group:undecided:<why>`` (``no-region``: only the element's position would say;
``conflict``: a landmark whose box contradicts it; ``edge-column``).
"""

from __future__ import annotations

from ..labeller import UI_GROUPS, is_redacted, label_of, ui_group_label
from ..prompts import prompt_id, render_prompt
from ..questions import Question
from .common import boxed_image, iou, truth_elements, visible_candidates

__all__ = ["build_ui_group", "PER_PAGE"]

PER_PAGE = 5


def _stratified(rng, pairs, k):
    """Up to ``k`` (group, element) pairs, covering every group before repeating one; an element
    whose box is nearly the one of an element already chosen (IoU > 0.7: a link and its text span)
    is skipped, so a page never asks twice about what looks like one box."""
    by_group: dict[str, list] = {}
    for g, el in pairs:
        by_group.setdefault(g, []).append(el)
    out: list = []
    while len(out) < k and any(by_group.values()):
        for g in sorted(by_group):
            if by_group[g] and len(out) < k:
                el = by_group[g].pop(rng.randrange(len(by_group[g])))
                if all(iou(el.box, other.box) <= 0.7 for _, other in out):
                    out.append((g, el))
    return out


async def build_ui_group(ctx) -> list[Question]:
    """UI-group questions for one page."""
    if ctx.truth:
        pairs = [(rec["group"], el) for rec, el in truth_elements(ctx)]
        source = "generator"
    else:
        pairs = []
        for el in visible_candidates(ctx.clean):
            label = label_of(el)
            if not label or is_redacted(label):
                continue
            decided = ui_group_label(ctx.clean, el)
            if decided.group is None:
                ctx.drops[f"ui_group:undecided:{decided.signal}"] += 1
            else:
                pairs.append((decided.group, el))
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
