"""Tasks 5-7: color, text and layout robustness, each a clean question plus perturbed ones.

Every perturbed page is captured and checked against the clean capture with
:func:`webgauge.perturb.verify`; a pair that fails is dropped and counted in the manifest.
Then the no-op rejection (:func:`webgauge.perturb.check_visible_change`) drops pairs whose
screenshot did not visibly change (counted per kind under ``noop_rejected``; a sample is kept
in ``rejected.jsonl`` for ``webgauge understand review``). The changed-pixel share of every
kept pair is in its question's ``meta["changed_pixels"]`` and summarized per kind and level
in the manifest's ``perturbation_size``. The prompt is the same for the clean and the
perturbed page.

- color: "most important button" on the clean page, after recoloring 10-30% of the large
  buttons (``color``) and after the global low-contrast edit (``low_contrast``);
- text: "what does the boxed button do" before and after one function-preserving label edit
  (one of the paper's Algorithm 2 strategies, drawn per page), plus our ``homoglyph`` edit of
  the same button as an extra perturbed question of the same pair, reported apart;
- layout: "main purpose of the page" before and after layout edits (one seeded level of
  easy/medium/hard per page, or all three with ``all_layout_levels``), with the
  call-to-action protected (its box must not move).
"""

from __future__ import annotations

import asyncio
import random

from ...perturb import (
    EXTRA_TEXT_KINDS,
    PAPER_TEXT_KINDS,
    apply_color,
    apply_layout,
    apply_low_contrast,
    apply_text,
    check_visible_change,
    verify,
)
from ..labeller import buttons, draws_text, label_of, primary_button
from ..prompts import prompt_id, render_prompt
from ..questions import Question, QuestionMeta
from .common import boxed_image, button_labels, truth_elements

__all__ = ["build_color", "build_text", "build_layout", "cta_element"]


def cta_element(ctx):
    """The call-to-action: generator truth on synthetic pages, else the heuristic primary button."""
    if ctx.truth:
        return ctx.by_html_id().get(ctx.truth["cta"]["id"])
    return primary_button(ctx.clean)


async def _perturbed(ctx, family: str, apply, kind: str | None = None, *, counted: bool = True):
    """Apply a perturbation on the clean page, capture it and give the clean page back (undone
    in place where exact, else reloaded before the next edit); the checks start in a worker
    thread. Returns a pending pair for :func:`_checked`, or ``(None, why)`` when there was
    nothing to perturb. ``kind`` names the variant in the counts (e.g. ``layout-easy``).

    A builder captures all its perturbations first and checks them afterwards, in order: the
    checks of one pair (two full-page screenshots decoded and compared) overlap the browser's
    work on the next, and the counts and rejected samples come out in the same order."""
    kind = kind or family
    await ctx.begin_edit()
    try:
        record = await apply()
    except ValueError as exc:  # nothing on the page to perturb
        if counted:
            ctx.drops[f"{family}:not_applicable"] += 1
        await ctx.end_edit()
        return None, str(exc)
    after = await ctx.live.capture(full_page=True, with_aria=False)
    await ctx.end_edit()

    def checks():
        results = verify(record, ctx.clean, after)
        if not all(r.ok for r in results):
            return results, None
        return results, check_visible_change(record, ctx.clean, after)
    return (family, kind, record, after, asyncio.ensure_future(asyncio.to_thread(checks))), None


async def _checked(ctx, pending, *, counted: bool = True):
    """The outcome of a pair from :func:`_perturbed`: ``((record, after), None)`` when kept, else
    ``(None, why)``. A pair that fails a check is dropped and counted; one whose screenshot did
    not visibly change is counted as a no-op and sampled into ``rejected``."""
    got, why = pending
    if got is None:
        return None, why
    family, kind, record, after, fut = got
    results, visible = await fut
    if visible is None:
        if counted:  # the text builder counts its own: a failed kind is a fallback, not a drop
            ctx.drops[f"{family}:check_failed"] += 1
        return None, "; ".join(p for r in results for p in r.problems[:3])
    ctx.sizes.append((kind, record.params["changed_pixels"], visible.ok))
    if not visible.ok:
        ctx.noop[kind] += 1
        ctx.rejected.append({"page": ctx.page_id, "kind": kind, "changed_pixels": record.params["changed_pixels"],
                             "clean": ctx.images.put(ctx.clean.png), "perturbed": ctx.images.put(after.png),
                             "box": (ctx.clean.by_path()[record.changed_paths[0]].box
                                     if family == "text" else None), "why": visible.problems[0]})
        return None, visible.problems[0]
    ctx.checks[f"{family}:ok"] += 1
    return (record, after), None


def _q(ctx, task, n, images, target, source, *, variant, pair, snap_id, elements=(), difficulty="all",
       choices=(), meta: QuestionMeta | None = None) -> Question:
    return Question(id=ctx.qid(task, n), task=task, page=ctx.page_id, source=ctx.source,
                    prompt_id=prompt_id(task), question=render_prompt(task), images=images, target=target,
                    target_source=source, difficulty=difficulty, variant=variant, pair=pair,
                    choices=list(choices), snapshot=snap_id, elements=list(elements), meta=meta or QuestionMeta())


async def build_color(ctx) -> list[Question]:
    """Clean, recolored and low-contrast versions of "which is the most important button"."""
    cta = cta_element(ctx)
    target = ctx.truth["cta"]["label"] if ctx.truth else None
    source = "generator" if ctx.truth else "consensus"
    pair = f"color-{ctx.page_id}"
    clean_id = ctx.snapshots.put(f"{ctx.page_id}__clean", ctx.clean)
    choices = button_labels(ctx.clean)
    if not choices or (cta is None and not ctx.truth):
        ctx.drops["color:no_buttons"] += 1
        return []
    paths = [cta.path] if cta is not None else []
    out = [_q(ctx, "color", "clean", [ctx.images.put(ctx.clean.png)], target, source, variant="clean",
              pair=pair, snap_id=clean_id, elements=paths, choices=choices)]
    pending = [(variant, await _perturbed(ctx, variant, apply))
               for variant, apply in (("color", lambda: apply_color(ctx.live, ctx.seed)),
                                      ("low_contrast", lambda: apply_low_contrast(ctx.live, ctx.seed)))]
    for variant, p in pending:
        got, why = await _checked(ctx, p)
        if got is None:
            continue
        record, after = got
        snap_id = ctx.snapshots.put(f"{ctx.page_id}__{variant}", after)
        out.append(_q(ctx, "color", variant, [ctx.images.put(after.png)], target, source, variant=variant,
                      pair=pair, snap_id=snap_id, elements=paths, choices=choices,
                      meta={"perturbation": record.to_dict(), "changed_pixels": record.params["changed_pixels"]}))
    return out if len(out) > 1 else []


MAX_TEXT_BUTTONS = 3
"""Text robustness tries at most this many buttons of a page (each with every paper kind)."""


def _has_text(el) -> bool:
    """The button's label is text drawn on the page (not only an ``aria-label`` or a title)."""
    return draws_text(el)


async def build_text(ctx) -> list[Question]:
    """Clean and perturbed versions of "what does the boxed button do".

    One button is drawn; the paper's kinds are tried on it in seeded order (the first kind that
    gives a kept pair is the page's; each rejected one is a recorded fallback). A button whose
    label no kind visibly changes (its text is not drawn: hidden, clipped, transparent) or that
    has no text node to edit gives way to the next button, up to :data:`MAX_TEXT_BUTTONS`."""
    if ctx.truth:
        cands = [el for rec, el in truth_elements(ctx, ("cta", "secondary", "safety", "bait", "submit"))]
    else:
        every = [e for e in buttons(ctx.clean) if 3 <= len(label_of(e)) <= 40]
        cands = [e for e in every if _has_text(e)]
        if every and not cands:  # icon buttons only (an aria-label, an empty input value): no text to perturb
            ctx.drops["text:no_button_text"] += 1
            return []
    if not cands:
        ctx.drops["text:no_button"] += 1
        return []
    first = ctx.rng.choice(cands)
    order = text_kind_order(ctx.rng, ctx.seed)
    rest = [e for e in cands if e is not first]
    random.Random(f"text-button:{ctx.seed}").shuffle(rest)
    pair = f"text-{ctx.page_id}"
    source = "generator" if ctx.truth else "dom"
    out, fallbacks, kind = [], [], None
    for el in (first, *rest)[:MAX_TEXT_BUTTONS]:
        label = label_of(el)
        for i, k in enumerate(order):
            pending = await _perturbed(ctx, "text", lambda el=el, k=k: apply_text(ctx.live, el, k, ctx.seed),
                                       kind=f"text-{k}", counted=False)
            if pending[0] is None:  # no text node to edit in this button
                fallbacks.append({"button": el.path, "kind": k, "why": pending[1][:200]})
                break
            got, why = await _checked(ctx, pending, counted=False)
            if got is not None:
                kind = k
                out.append(_text_q(ctx, k, got, el, label, source, pair, fallbacks))
                break
            fallbacks.append({"button": el.path, "kind": k, "why": (why or "")[:200]})
            if i + 1 < len(order):
                ctx.fallbacks[f"text-{k}->text-{order[i + 1]}"] += 1
        if kind is not None:
            break
        ctx.fallbacks["text:next_button"] += 1
    if kind is None:
        ctx.drops["text:no_kind_kept"] += 1
        return []
    for k in EXTRA_TEXT_KINDS:  # ours, reported apart: never the page's kind, never a reason to drop it
        got, why = await _checked(ctx, await _perturbed(
            ctx, "text", lambda k=k: apply_text(ctx.live, el, k, ctx.seed), kind=f"text-{k}", counted=False),
            counted=False)
        if got is not None:
            out.append(_text_q(ctx, k, got, el, label, source, pair, []))
        elif why and not why.startswith("no visible change"):  # no-ops are counted under noop_rejected
            ctx.extra_rejected[f"text-{k}:check_failed"] += 1
    done = [await q for q in out]
    clean_id = ctx.snapshots.put(f"{ctx.page_id}__clean", ctx.clean)
    return [_q(ctx, "text", "clean", [await boxed_image(ctx, ctx.clean, el)], label, source, variant="clean", pair=pair,
               snap_id=clean_id, elements=[el.path], difficulty=kind,
               meta={"label": label, "fallbacks": fallbacks}), *done]


def text_kind_order(rng, seed: int) -> list[str]:
    """The paper's text kinds in the order a page tries them: the first drawn with the page's RNG
    (as one draw always was), the others in an order seeded by the page seed."""
    first = PAPER_TEXT_KINDS[rng.randrange(len(PAPER_TEXT_KINDS))]
    rest = [k for k in PAPER_TEXT_KINDS if k != first]
    random.Random(f"text-order:{seed}").shuffle(rest)
    return [first, *rest]


async def _text_q(ctx, k, got, el, label, source, pair, fallbacks) -> Question:
    record, after = got
    snap_id = ctx.snapshots.put(f"{ctx.page_id}__text_{k}", after)
    new_el = after.by_path()[el.path]
    return _q(ctx, "text", k, [await boxed_image(ctx, after, new_el)], label, source, variant=f"text-{k}",
              pair=pair, snap_id=snap_id, elements=[el.path], difficulty=k,
              meta={"label": label, "perturbed_label": record.changes[0].after,
                    "perturbation": record.to_dict(), "changed_pixels": record.params["changed_pixels"],
                    "extra": k in EXTRA_TEXT_KINDS, "fallbacks": fallbacks})


async def build_layout(ctx) -> list[Question]:
    """Clean and layout-edited (easy, medium, hard) versions of "what is the page's purpose"."""
    cta = cta_element(ctx)
    if cta is None:
        ctx.drops["layout:no_call_to_action"] += 1
        return []
    target = ctx.truth["purpose"] if ctx.truth else None
    source = "generator" if ctx.truth else "consensus"
    pair = f"layout-{ctx.page_id}"
    clean_id = ctx.snapshots.put(f"{ctx.page_id}__clean", ctx.clean)
    out = [_q(ctx, "layout", "clean", [ctx.images.put(ctx.clean.png)], target, source, variant="clean",
              pair=pair, snap_id=clean_id, elements=[cta.path])]
    levels = ("easy", "medium", "hard")
    pending = [(level, await _perturbed(ctx, "layout",
                                        lambda level=level: apply_layout(ctx.live, ctx.seed, level, protect=[cta]),
                                        kind=f"layout-{level}"))
               for level in (levels if ctx.all_layout_levels else (levels[ctx.rng.randrange(3)],))]
    for level, p in pending:
        got, why = await _checked(ctx, p)
        if got is None:
            continue
        record, after = got
        snap_id = ctx.snapshots.put(f"{ctx.page_id}__layout_{level}", after)
        out.append(_q(ctx, "layout", level, [ctx.images.put(after.png)], target, source,
                      variant=f"layout-{level}", pair=pair, snap_id=snap_id, elements=[record.tracked[cta.path]],
                      difficulty=level, meta={"perturbation": record.to_dict(),
                                              "changed_pixels": record.params["changed_pixels"]}))
    return out if len(out) > 1 else []
