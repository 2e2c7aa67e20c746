"""Color robustness: recolor a seeded share of the large clickable buttons with strong colors.

A share ``p ~ U(0.1, 0.3)`` (or the given ``share``) of the visible buttons whose area is at
least ``min_area`` CSS px² gets a strong background color (never black or white) that differs
clearly from its current one and keeps the label readable. Only background and border colors
change; text, size and position stay, so the invariance check can demand that no other element
changes color.
"""

from __future__ import annotations

import math
import random

from .base import Change, PerturbationRecord, run_js

__all__ = ["apply_color", "ColorPerturbation", "STRONG_COLORS", "MIN_BUTTON_AREA", "contrast_ratio"]

MIN_BUTTON_AREA = 1200.0
STRONG_COLORS: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("red", (229, 57, 53)), ("blue", (30, 136, 229)), ("green", (67, 160, 71)),
    ("orange", (251, 140, 0)), ("purple", (142, 36, 170)), ("magenta", (216, 27, 96)),
    ("teal", (0, 137, 123)), ("yellow", (253, 216, 53)), ("indigo", (57, 73, 171)),
    ("lime", (124, 179, 66)),
)

_CANDIDATES_JS = """
const out = [];
const sel = "button, input[type=button], input[type=submit], input[type=reset], [role=button], a";
for (const el of document.querySelectorAll(sel)) {
  if (!H.visible(el)) continue;
  const b = H.box(el);
  if (b[2] * b[3] < arg.minArea) continue;
  const cs = getComputedStyle(el);
  if (el.tagName === "A" && !el.matches("[role=button]")) {   // links only when they look like buttons
    const bg = H.rgb(cs.backgroundColor);
    if (bg.length >= 4 && bg[3] === 0) continue;
    if (parseFloat(cs.paddingTop) + parseFloat(cs.paddingBottom) < 6) continue;
  }
  if (el.parentElement && el.parentElement.closest(sel)) continue;   // outermost button only
  out.push({path: H.pathOf(el), area: b[2] * b[3], text: (el.innerText || el.value || "").trim().slice(0, 80),
            bg: H.effectiveBg(el), color: H.rgb(cs.color).slice(0, 3)});
}
return out;
"""

_APPLY_JS = """
for (const [path, css] of arg) {
  const el = H.resolve(path);
  el.style.setProperty("background-color", css, "important");
  el.style.setProperty("background-image", "none", "important");
  el.style.setProperty("border-color", css, "important");
}
return arg.length;
"""


def _luminance(c: tuple[int, int, int]) -> float:
    def ch(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (ch(v) for v in c[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b) -> float:
    """WCAG contrast ratio of two RGB colors."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _pick(rng: random.Random, bg, fg) -> tuple[str, tuple[int, int, int]]:
    """A strong color far from the current background that keeps the text readable."""
    options = [(n, c) for n, c in STRONG_COLORS if math.dist(c, bg[:3]) > 120]
    readable = [(n, c) for n, c in options if contrast_ratio(c, fg) >= 2.0]
    pool = readable or options or list(STRONG_COLORS)
    return rng.choice(pool)


async def apply_color(page, seed: int, share: float | None = None, *, min_area: float = MIN_BUTTON_AREA,
                      exclude: tuple[str, ...] = ()) -> PerturbationRecord:
    """Recolor a seeded share of the large buttons of a live page; returns what changed.

    ``share`` fixes the recolored fraction (otherwise drawn from U(0.1, 0.3)); at least one
    button is recolored when any qualifies. ``exclude`` lists XPaths that must keep their color.
    Raises ``ValueError`` when the page has no button above ``min_area``.
    """
    if share is not None and not 0 < share <= 1:
        raise ValueError(f"share must be in (0, 1], got {share}")
    rng = random.Random(f"color:{seed}")
    p = share if share is not None else rng.uniform(0.1, 0.3)
    cands = [c for c in await run_js(page, _CANDIDATES_JS, {"minArea": min_area}) if c["path"] not in exclude]
    if not cands:
        raise ValueError(f"no visible button of at least {min_area:.0f} px² to recolor; lower min_area")
    cands.sort(key=lambda c: c["path"])
    k = max(1, round(p * len(cands)))
    chosen = sorted(rng.sample(cands, k), key=lambda c: c["path"])
    changes, edits = [], []
    for c in chosen:
        name, rgb = _pick(rng, c["bg"], c["color"])
        css = "rgb({}, {}, {})".format(*rgb)
        edits.append([c["path"], css])
        changes.append(Change(path=c["path"], what="background-color",
                              before="rgb({}, {}, {})".format(*c["bg"]), after=css))
    await run_js(page, _APPLY_JS, edits, settled=True)  # right after the read: still settled
    return PerturbationRecord(family="color", seed=seed, changes=changes,
                              params={"share": p, "min_area": min_area, "candidates": len(cands),
                                      "recolored": k, "labels": [c["text"] for c in chosen]})


class ColorPerturbation:
    """The color family as a :class:`~webgauge.perturb.base.Perturbation`."""

    name = "color"

    async def apply(self, page, seed: int, **params) -> PerturbationRecord:
        return await apply_color(page, seed, **params)
