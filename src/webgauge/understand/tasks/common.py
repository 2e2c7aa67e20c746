"""Helpers shared by the task builders: choosing elements and making question images."""

from __future__ import annotations

from ..images import draw_box
from ..labeller import buttons, is_redacted, label_of

__all__ = ["visible_candidates", "boxed_image", "button_labels", "truth_elements", "iou", "TEXT_INPUTS"]

TEXT_INPUTS = ("text", "email", "tel", "search", "number", "url", "password", "")


def iou(a, b) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0.0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0.0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0


def visible_candidates(snapshot, min_area: float = 300.0, max_share: float = 0.25) -> list:
    """Visible, non-trivial elements: a label or an image/field, a sensible size, inside the page."""
    pw, ph = snapshot.page_size
    out = []
    for e in snapshot.elements:
        x, y, w, h = e.box
        if not e.visible or e.tag in ("html", "body") or w < 16 or h < 10:
            continue
        if e.area < min_area or e.area > max_share * pw * ph or x < 0 or y < 0 or x + w > pw + 1 or y + h > ph + 1:
            continue
        text = label_of(e)
        if is_redacted(text):  # a redaction marker ("[EMAIL REDACTED]") is no page content to ask about
            continue
        if not (0 < len(text) <= 60 or e.tag in ("img", "input", "button", "select", "textarea")):
            continue
        out.append(e)
    return out


def truth_elements(ctx, kinds: tuple[str, ...] | None = None) -> list[tuple[dict, object]]:
    """``(truth record, Element)`` for the generator's labelled elements that are visible."""
    if not ctx.truth:
        return []
    by_id = ctx.by_html_id()
    out = []
    for rec in ctx.truth["elements"]:
        el = by_id.get(rec["id"])
        if el is not None and el.visible and el.area > 0 and (kinds is None or rec["kind"] in kinds):
            out.append((rec, el))
    return out


async def boxed_image(ctx, snapshot, el) -> str:
    """The full-page screenshot with a red box around ``el``: drawn and encoded in a worker
    thread while the page's build goes on; returns a placeholder of its path that the build
    resolves (:meth:`~webgauge.understand.questions.PageContext.draw`)."""
    png, box, scale = snapshot.png, el.box, snapshot.device_scale_factor
    return ctx.draw(lambda: draw_box(png, box, scale=scale))


def button_labels(snapshot) -> list[str]:
    """Sorted unique labels of the visible buttons of a capture."""
    return sorted({label_of(e) for e in buttons(snapshot)})
