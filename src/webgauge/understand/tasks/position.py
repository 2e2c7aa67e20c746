"""Task 1, position relationship: 4 (or 2) element crops plus the full page; for each unordered
pair the relation computed from the boxes (see :mod:`webgauge.understand.relations`)."""

from __future__ import annotations

from itertools import combinations

from ..images import crop
from ..labeller import label_of
from ..prompts import prompt_id, render_prompt
from ..questions import Question
from ..relations import RELATIONS, difficulty, relation
from .common import iou, visible_candidates

__all__ = ["build_position", "pair_keys", "QUESTIONS_PER_PAGE"]

QUESTIONS_PER_PAGE = 2


def pair_keys(n: int) -> list[str]:
    """``["1-2", "1-3", ...]`` for ``n`` elements."""
    return [f"{i}-{j}" for i, j in combinations(range(1, n + 1), 2)]


def _pick(ctx, cands, n, tries=300):
    for _ in range(tries):
        chosen = ctx.rng.sample(cands, n)
        labels = [label_of(e) for e in chosen]
        if len(set(labels)) < n:
            continue
        if any(iou(a.box, b.box) > 0.8 for a, b in combinations(chosen, 2)):
            continue
        rels = [relation(a.box, b.box) for a, b in combinations(chosen, 2)]
        if None not in rels:
            return chosen, rels
    return None


async def build_position(ctx) -> list[Question]:
    """Position questions for one page (none when the page is taller than 5,500 px)."""
    diff = difficulty(ctx.clean.page_size[1])
    if diff is None:
        ctx.drops["position:page_too_tall"] += 1
        return []
    n = ctx.crops
    cands = visible_candidates(ctx.clean)
    if len(cands) < n:
        ctx.drops["position:too_few_elements"] += 1
        return []
    snap_id = ctx.snapshots.put(f"{ctx.page_id}__clean", ctx.clean)
    full = ctx.images.put(ctx.clean.png)
    out = []
    for q in range(QUESTIONS_PER_PAGE):
        picked = _pick(ctx, cands, n)
        if picked is None:
            ctx.drops["position:no_unambiguous_set"] += 1
            break
        chosen, rels = picked
        crops = [ctx.draw(lambda box=e.box: crop(ctx.clean.png, box, ctx.clean.device_scale_factor))
                 for e in chosen]
        keys = pair_keys(n)
        out.append(Question(
            id=ctx.qid("position", q), task="position", page=ctx.page_id, source=ctx.source,
            prompt_id=prompt_id("position"),
            question=render_prompt("position", n=n, pairs="\n".join(keys)),
            images=[full, *crops], target=dict(zip(keys, rels, strict=True)), target_source="dom",
            difficulty=diff, choices=list(RELATIONS), snapshot=snap_id, elements=[e.path for e in chosen],
            meta={"page_height": ctx.clean.page_size[1], "labels": [label_of(e) for e in chosen]}))
    return out
