"""Tasks 3 and 4: form filling and hint text.

Form filling boxes an input field; the target is the value a user would enter (generator
truth on synthetic pages, consensus across models on real pages). Difficulty is ``easy``
when the field shows a visible hint (a placeholder) and ``hard`` when it shows none.

Hint text removes the field's placeholder on the live page, checks that nothing else
changed (no element moved, no text changed), boxes the field and asks for the original
placeholder, which is the target.
"""

from __future__ import annotations

from ...perturb import check_boxes_unchanged
from ..labeller import inside_page, is_redacted
from ..prompts import prompt_id, render_prompt
from ..questions import Question
from .common import TEXT_INPUTS, boxed_image

__all__ = ["build_form_fill", "build_hint_text", "text_fields", "PER_PAGE"]

PER_PAGE = 2


def text_fields(ctx, snapshot=None) -> list[dict]:
    """``[{"el", "placeholder", "expected", "label"}]`` for the visible text-like inputs."""
    snap = snapshot or ctx.clean
    if ctx.truth:
        by_id = ctx.by_html_id(snap)
        return [{"el": by_id[f["id"]], "placeholder": f["placeholder"], "expected": f["expected_value"],
                 "label": f["label"]} for f in ctx.truth["fields"] if f["id"] in by_id and by_id[f["id"]].visible]
    out = []
    for e in snap.elements:
        if not (e.visible and inside_page(snap, e)):  # hidden or off-screen fields are never targets
            continue
        if e.tag == "textarea" or (e.tag == "input" and e.attrs.get("type", "").lower() in TEXT_INPUTS):
            out.append({"el": e, "placeholder": e.attrs.get("placeholder") or None, "expected": None,
                        "label": e.name})
    return out


async def build_form_fill(ctx) -> list[Question]:
    """Form-filling questions: up to one easy (hinted) and one hard (unhinted) field per page."""
    fields = text_fields(ctx)
    ctx.rng.shuffle(fields)
    picked = [f for f in fields if f["placeholder"]][:1] + [f for f in fields if not f["placeholder"]][:1]
    if not picked:
        return []
    snap_id = ctx.snapshots.put(f"{ctx.page_id}__clean", ctx.clean)
    out = []
    for n, f in enumerate(picked[:PER_PAGE]):
        out.append(Question(
            id=ctx.qid("form_fill", n), task="form_fill", page=ctx.page_id, source=ctx.source,
            prompt_id=prompt_id("form_fill"), question=render_prompt("form_fill"),
            images=[await boxed_image(ctx, ctx.clean, f["el"])], target=f["expected"],
            target_source="generator" if ctx.truth else "consensus",
            difficulty="easy" if f["placeholder"] else "hard", snapshot=snap_id, elements=[f["el"].path],
            meta={"label": f["label"], "placeholder": f["placeholder"]}))
    return out


_REMOVE = "(p) => { const el = document.evaluate(p, document, null, 9, null).singleNodeValue; " \
          "el.removeAttribute('placeholder'); return true; }"


async def build_hint_text(ctx) -> list[Question]:
    """Hint-text questions: one field with a placeholder per page, placeholder removed."""
    # a redaction marker ("[EMAIL REDACTED]") replaced the page's own hint: not a target
    fields = [f for f in text_fields(ctx) if f["placeholder"] and f["placeholder"].strip()
              and not is_redacted(f["placeholder"])]
    if not fields:
        return []
    f = ctx.rng.choice(fields)
    await ctx.begin_edit()
    await ctx.live.evaluate(_REMOVE, f["el"].path)
    after = await ctx.live.capture(full_page=True, with_aria=False)
    await ctx.end_edit()
    check = check_boxes_unchanged(ctx.clean, after)
    gone = after.by_path().get(f["el"].path)
    if not check.ok or gone is None or gone.attrs.get("placeholder"):
        ctx.drops["hint_text:check_failed"] += 1
        return []
    ctx.checks["hint_text:ok"] += 1
    snap_id = ctx.snapshots.put(f"{ctx.page_id}__no_placeholder", after)
    return [Question(
        id=ctx.qid("hint_text", 0), task="hint_text", page=ctx.page_id, source=ctx.source,
        prompt_id=prompt_id("hint_text"), question=render_prompt("hint_text"),
        images=[await boxed_image(ctx, after, gone)], target=f["placeholder"],
        target_source="generator" if ctx.truth else "dom", snapshot=snap_id, elements=[f["el"].path],
        meta={"label": f["label"]})]
