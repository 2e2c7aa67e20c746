"""The variant catalogue, built explicitly in one place: base, cohorts, perturbations,
pop-ups, slow loads, late content, stale shifts and safety traps.

Nothing registers itself by being imported: this module lists every named variant
(:data:`VARIANTS`), and holds the default sweep lists the CLI and the demo use.
"""

from __future__ import annotations

from ..core.task import Task, Viewport
from .popups import COOKIE_JS, LATE_JS, NEWSLETTER_JS, OVERLAY_JS
from .traps import TRAPS
from .variant import BASE, FORM_FACTORS, Variant

__all__ = ["VARIANTS", "COHORTS", "get_variant", "variant_names", "apply_variant", "DEFAULT_SWEEP_VARIANTS",
           "DEFAULT_SAFETY_VARIANTS"]

VARIANTS: dict[str, Variant] = {}


def _add(v: Variant) -> Variant:
    if v.name in VARIANTS:
        raise ValueError(f"two variants are named {v.name!r}")
    VARIANTS[v.name] = v
    return v


_add(BASE)

COHORTS: dict[str, Variant] = {}
for _form, (_w, _h) in FORM_FACTORS.items():
    for _dsf in (1, 2, 3):
        COHORTS[f"cohort.{_form}@{_dsf}x"] = _add(Variant(
            f"cohort.{_form}@{_dsf}x", "cohort", f"{_form} viewport {_w}×{_h} CSS px at device scale factor {_dsf}",
            viewport=Viewport(_w, _h, float(_dsf)), extra_steps=2,
            # a responsive or resize task's viewport is what the task is about; cohorts leave it alone
            skip_patterns=("responsive", "resize")))

for _v in (
    Variant("perturb.color", "perturb", "large buttons recolored (webgauge.perturb color family)", perturb="color"),
    Variant("perturb.text", "perturb", "button labels with look-alike letters (webgauge.perturb text, homoglyph)",
            perturb="text", perturb_params=(("kind", "homoglyph"), ("max_labels", 4))),
    Variant("perturb.layout", "perturb", "wrapper and hidden-copy DOM edits (webgauge.perturb layout, easy)",
            perturb="layout", perturb_params=(("level", "easy"),)),
    Variant("popup.cookie", "popup", "cookie banner over the bottom third until accepted", init_js=COOKIE_JS,
            dismiss_ids=("wg-cookie-accept",), extra_steps=2),
    Variant("popup.newsletter", "popup", "newsletter modal over the whole page until closed", init_js=NEWSLETTER_JS,
            dismiss_ids=("wg-newsletter-close", "wg-newsletter-no"), extra_steps=2),
    Variant("popup.overlay", "popup", "sticky chat overlay over the lower right until minimized", init_js=OVERLAY_JS,
            dismiss_ids=("wg-chat-close",), extra_steps=2),
    Variant("slow.load", "slow", "every app request held back 700 ms", delays=(("/e/*", 700.0),),
            wait_after_action_ms=900, extra_steps=10),
    Variant("late.content", "late", "the main content appears 1.2 s after the page loads", init_js=LATE_JS,
            extra_steps=6),
    Variant("stale.shift", "stale", "content shifts down 72 px right after each document's first screenshot",
            shift_px=72, extra_steps=4),
):
    _add(_v)


for _t in TRAPS.values():
    _add(_t)


def get_variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise KeyError(f"no variant {name!r}; known: {', '.join(sorted(VARIANTS))}") from None


def variant_names(kind: str | None = None) -> list[str]:
    return [n for n, v in VARIANTS.items() if kind is None or v.kind == kind]


def apply_variant(tasks: list[Task], names: list[str]) -> list[Task]:
    """Every applicable (task, variant) pair as a variant task (``base`` keeps the task)."""
    out = []
    for name in names:
        v = get_variant(name)
        for t in tasks:
            if name == "base":
                out.append(t)
            elif v.applies_to(t):
                out.append(v.apply(t))
    return out


DEFAULT_SWEEP_VARIANTS = ("base", "cohort.desktop@1x", "cohort.laptop@2x", "cohort.tablet@2x", "cohort.mobile@3x",
                          "perturb.color", "perturb.text", "perturb.layout", "popup.cookie", "popup.newsletter",
                          "popup.overlay", "slow.load", "late.content", "stale.shift")
"""What ``webgauge arena sweep`` runs by default: base, four cohorts and one of every other world change."""

DEFAULT_SAFETY_VARIANTS = ("base",) + tuple(TRAPS)
"""What ``webgauge arena safety`` runs by default: base and every trap."""

for _name in DEFAULT_SWEEP_VARIANTS + DEFAULT_SAFETY_VARIANTS:
    get_variant(_name)  # the default lists name only catalogued variants
