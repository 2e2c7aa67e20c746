"""DOM perturbations that run on a live page, with invariance checks.

Each family is one module and a short coroutine that edits the page through
``page.evaluate`` and returns a :class:`PerturbationRecord` of exactly what changed:

>>> rec = await apply_color(page, seed=3)                  # 10-30% of large buttons recolored
>>> rec = await apply_low_contrast(page, seed=3)           # all text blended toward background
>>> rec = await apply_text(page, cta_element, "homoglyph", seed=3)
>>> rec = await apply_layout(page, seed=3, level="hard", protect=[cta_element])
>>> results = verify(rec, snapshot_before, snapshot_after) # all ok -> keep the pair
>>> check_visible_change(rec, snapshot_before, snapshot_after).ok   # and it visibly changed
>>> log = EditLog(page); await log.start(); ...; await log.undo()  # True: the clean page is back
"""

from .base import Change, Perturbation, PerturbationRecord, apply_perturbation, assume_settled, target_path
from .checks import (
    MIN_CHANGED_BOX,
    MIN_CHANGED_PAGE,
    PIXEL_TOLERANCE,
    CheckResult,
    changed_fraction,
    check_box_fixed,
    check_boxes_unchanged,
    check_colors_only,
    check_text_only,
    check_visible_change,
    glyph_box,
    screenshot_rgb,
    verify,
)
from .color import MIN_BUTTON_AREA, STRONG_COLORS, ColorPerturbation, apply_color, contrast_ratio
from .contrast import LowContrastPerturbation, apply_low_contrast
from .layout import LAYOUT_LEVELS, LayoutPerturbation, apply_layout
from .text import EXTRA_TEXT_KINDS, MARKER, PAPER_TEXT_KINDS, TEXT_KINDS, TextPerturbation, apply_text, perturb_label
from .undo import UNDO_SAFE_HANDLERS, EditLog

FAMILIES: dict[str, Perturbation] = {p.name: p for p in (
    ColorPerturbation(), LowContrastPerturbation(), TextPerturbation(), LayoutPerturbation())}

#: The parameter that names a family's kinds or levels, and its values (families not listed have one variant).
VARIANT_PARAMS: dict[str, tuple[str, tuple[str, ...]]] = {"text": ("kind", tuple(TEXT_KINDS)),
                                                          "layout": ("level", tuple(LAYOUT_LEVELS))}


def variants() -> list[tuple[str, dict]]:
    """Every ``(family, params)`` the registry exposes: one per text kind, one per layout level,
    one for each other family (sorted, so tests and builds iterate them in one order)."""
    out = []
    for name in sorted(FAMILIES):
        key, values = VARIANT_PARAMS.get(name, ("", ("",)))
        out += [(name, {key: v} if key else {}) for v in values]
    return out

__all__ = [
    "Change", "PerturbationRecord", "Perturbation", "target_path", "FAMILIES", "VARIANT_PARAMS", "variants",
    "apply_perturbation", "assume_settled", "EditLog", "UNDO_SAFE_HANDLERS",
    "apply_color", "apply_low_contrast", "apply_text", "apply_layout", "perturb_label",
    "TEXT_KINDS", "LAYOUT_LEVELS", "STRONG_COLORS", "MIN_BUTTON_AREA", "contrast_ratio",
    "ColorPerturbation", "LowContrastPerturbation", "TextPerturbation", "LayoutPerturbation",
    "CheckResult", "check_text_only", "check_colors_only", "check_box_fixed", "check_boxes_unchanged", "verify",
    "check_visible_change", "changed_fraction", "screenshot_rgb", "PIXEL_TOLERANCE", "MIN_CHANGED_PAGE",
    "MIN_CHANGED_BOX",
    "glyph_box",
    "PAPER_TEXT_KINDS", "EXTRA_TEXT_KINDS", "MARKER",
]
