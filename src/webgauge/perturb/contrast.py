"""Global low contrast: blend every text color toward its background.

Each element that directly holds text gets ``color = mix(color, background, level)``; nothing
else (text, layout, backgrounds) changes, so the check is that texts and boxes are unchanged.
"""

from __future__ import annotations

from .base import PerturbationRecord, run_js

__all__ = ["apply_low_contrast", "LowContrastPerturbation"]

_JS = """
const edits = [];
for (const el of document.body.querySelectorAll("*")) {
  let direct = false;
  for (const n of el.childNodes) if (n.nodeType === 3 && n.textContent.trim()) { direct = true; break; }
  const isField = el.matches("input, textarea, select, button");
  if (!direct && !isField) continue;
  const fg = H.rgb(getComputedStyle(el).color), bg = H.effectiveBg(el);
  const mix = [0, 1, 2].map((i) => Math.round(fg[i] + (bg[i] - fg[i]) * arg.level));
  edits.push([el, "rgb(" + mix.join(", ") + ")"]);
}
for (const [el, css] of edits) el.style.setProperty("color", css, "important");
return edits.length;
"""


async def apply_low_contrast(page, seed: int = 0, level: float = 0.6) -> PerturbationRecord:
    """Lower the contrast of all text on a live page (``level`` 0 = unchanged, 1 = invisible)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be strictly between 0 and 1, got {level}")
    n = await run_js(page, _JS, {"level": level})
    return PerturbationRecord(family="low_contrast", seed=seed, params={"level": level, "elements": n})


class LowContrastPerturbation:
    """The low-contrast family as a :class:`~webgauge.perturb.base.Perturbation`."""

    name = "low_contrast"

    async def apply(self, page, seed: int, **params) -> PerturbationRecord:
        return await apply_low_contrast(page, seed, **params)
