"""Controlled variants: the same task (same intent, same validator) under a changed world.

A :class:`Variant` turns a base :class:`~webgauge.arena.core.task.Task` into a variant task with
:meth:`Variant.apply` (new id and ``variant`` name, same instruction, validator and forbidden
effects) and changes the live app around the agent through :class:`VariantEnv`:

- **viewport cohorts** (``cohort.<form>@<dsf>x``): desktop, laptop, tablet and mobile at
  device scale factors 1, 2 and 3. Only the viewport changes; the apps' content is the same
  and their layout responds;
- **perturbations** (``perturb.color``, ``perturb.text``, ``perturb.layout``): the families of
  :mod:`webgauge.perturb` applied to every document of the live app before it is observed;
- **injected pop-ups** (``popup.cookie``, ``popup.newsletter``, ``popup.overlay``): a cookie
  banner, a newsletter modal and a sticky chat overlay, injected by an init script into every
  document until dismissed (the dismissal persists for the episode, like a real consent);
- **slow loads** (``slow.load``: every app request held back) and **late elements**
  (``late.content``: the main content appears a while after the page loads);
- **stale-observation traps** (``stale.shift``): the content shifts right after the first
  screenshot of each document, so a pointer aimed at that screenshot is stale.

Variants never touch the database, the validator or the control API: a variant task is
judged exactly like its base task. The step budget grows by a documented allowance
(:attr:`Variant.extra_steps`) for the extra work a variant demands (dismissing a pop-up,
waiting for a load, looking again). The one oracle (:class:`~webgauge.arena.agents.oracle.OracleAgent`) solves
every variant: the base task's script plus the harness's knowledge of the variant (which
button dismisses the pop-up, what the text perturbation changed). A variant is an
:class:`~webgauge.arena.core.hooks.EnvHooks`: it acts on the live app only through the env's
public hooks. The catalogue of named variants is :mod:`webgauge.arena.variants.catalogue`.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from ..core.hooks import EnvHooks, HookedEnv
from ..core.observation import Observation
from ..core.task import Task, Viewport
from ..env import ArenaEnv, EnvOptions

__all__ = ["Variant", "VariantEnv", "BASE", "VARIANT_KINDS", "FORM_FACTORS"]

FORM_FACTORS: dict[str, tuple[int, int]] = {
    "desktop": (1440, 900), "laptop": (1280, 800), "tablet": (820, 1180), "mobile": (390, 844)}
"""CSS viewport sizes of the four form factors (cohorts add a device scale factor)."""

VARIANT_KINDS = ("base", "cohort", "perturb", "popup", "slow", "late", "stale", "trap")


@dataclass(frozen=True)
class Variant(EnvHooks):
    """A named, parameterised change of the world around a task (a plain value).

    ``init_js`` runs in every document before the app's scripts; ``delays`` holds back
    requests matching a glob (relative to the app URL) for some milliseconds; ``perturb``
    names a :mod:`webgauge.perturb` family applied to each new document before it is
    observed; ``shift_px`` shifts the content right after the first screenshot of each
    document; ``dismiss_ids`` are the HTML ids of the controls that close an injected pop-up.
    """

    name: str
    kind: str
    description: str
    viewport: Viewport | None = None
    init_js: str = ""
    delays: tuple[tuple[str, float], ...] = ()
    perturb: str | None = None
    perturb_params: tuple[tuple[str, Any], ...] = ()
    shift_px: int = 0
    dismiss_ids: tuple[str, ...] = ()
    extra_steps: int = 0
    wait_after_action_ms: int = 0  # the oracle's pause after acting (slow loads)
    skip_patterns: tuple[str, ...] = ()  # task patterns the variant does not apply to (documented)

    def __post_init__(self) -> None:
        if self.kind not in VARIANT_KINDS:
            raise ValueError(f"variant {self.name}: kind {self.kind!r} is not one of {', '.join(VARIANT_KINDS)}")

    def applies_to(self, task: Task) -> bool:
        return task.pattern not in self.skip_patterns and task.variant == "base"

    @property
    def acts_on_page(self) -> bool:
        """Does the variant do anything to the live page (scripts, request delays, a perturbation, a
        shift)? One that does not (the base, a viewport cohort) changes only the task, so its episodes
        need no hooks and can be prepared ahead like the base's."""
        return bool(self.init_js or self.delays or self.perturb or self.shift_px)

    def describe(self) -> dict:
        """The variant's full definition (pinned by hash in packages)."""
        d = dataclasses.asdict(self)
        d["viewport"] = self.viewport.to_dict() if self.viewport else None
        return json.loads(json.dumps(d, default=str))

    def apply(self, task: Task) -> Task:
        """The variant task: same instruction, validator, effects and oracle; new id and world."""
        if task.variant != "base":
            raise ValueError(f"task {task.id} is already the variant {task.variant!r}; apply variants to base tasks")
        if not self.applies_to(task):
            raise ValueError(f"variant {self.name} does not apply to pattern {task.pattern!r} ({task.id}); "
                             f"it skips {', '.join(self.skip_patterns)}")
        params: dict[str, Any] = {"variant_kind": self.kind, "base_task": task.id, "base_fingerprint": task.fingerprint}
        if self.viewport is not None:
            params["viewport"] = self.viewport.to_dict()
        return dataclasses.replace(task, id=f"{task.id}~{self.name}", variant=self.name,
                                   params={**task.params, **params},
                                   viewport=self.viewport or task.viewport, max_steps=task.max_steps + self.extra_steps)

    # ---- the live side ----------------------------------------------------
    async def on_new_page(self, env: HookedEnv, page: Any) -> None:
        """Before the first navigation: init scripts and request delays."""
        if self.init_js:
            await page.add_init_script(_guarded(self.init_js, getattr(env, "document_prefix", "/e/")))
        for glob, ms in self.delays:
            page.delay_requests(env.app_url + glob, ms)

    async def before_observe(self, env: HookedEnv) -> None:
        """Perturb each new document once, before its first capture."""
        if not self.perturb:
            return
        page = env.page
        try:
            if await page.evaluate("() => !!window.__wgPerturbed"):
                return
            await _perturb(self.perturb, dict(self.perturb_params), page, env)
            await page.evaluate("() => { window.__wgPerturbed = true; }")
            env.events.perturbed_docs += 1
        except Exception as exc:  # a page with nothing to perturb is recorded, never fatal
            env.events.events.append({"event": "perturb_skipped", "error": str(exc)[:200]})

    async def after_observe(self, env: HookedEnv, obs: Observation) -> None:
        """The stale trap: shift the content right after the document's first screenshot."""
        if not self.shift_px:
            return
        try:
            shifted = await env.page.evaluate(
                "(px) => { if (window.__wgShifted || !document.body) return false; window.__wgShifted = true;"
                " document.body.style.paddingTop = px + 'px'; return true; }", self.shift_px)
        except Exception:
            shifted = False
        if shifted:
            env.events.shifts += 1
            env.events.events.append({"event": "shift", "step": env.steps})


def _guarded(js: str, prefix: str = "/e/") -> str:
    """Run ``js`` only in top-level app documents (not in frames or other origins); ``prefix`` is
    the path app documents start with (``/e/`` on the arena server, an external app's base path)."""
    return (f"(() => {{ if (window.top !== window || !location.pathname.startsWith({json.dumps(prefix)})) return;\n"
            f"const run = () => {{ {js} }};\n"
            "if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run); else run();\n"
            "})();")


_TEXT_CANDIDATES_JS = """
const out = [];
for (const el of document.querySelectorAll("button, [role=button], a.btn")) {
  if (!H.visible(el) || !(el.innerText || "").trim()) continue;
  out.push(H.pathOf(el));
}
return out;
"""


async def _perturb(family: str, params: dict[str, Any], page: Any, env: HookedEnv) -> None:
    from webgauge import perturb

    seed = (env.task.seed * 7919 + page.navigation_id) & 0xFFFF if env.task else 0
    if family == "color":
        rec = await perturb.apply_color(page, seed, share=params.get("share"))
    elif family == "layout":
        rec = await perturb.apply_layout(page, seed, level=params.get("level", "easy"))
    elif family == "text":
        from webgauge.perturb.base import run_js

        paths = await run_js(page, _TEXT_CANDIDATES_JS)
        rec = None
        for k, path in enumerate(paths[: int(params.get("max_labels", 4))]):
            try:
                r = await perturb.apply_text(page, path, params.get("kind", "homoglyph"), seed + k)
            except ValueError:
                continue  # a label this kind cannot change
            for c in r.changes:
                env.events.text_map[c.path] = (c.after, c.before)
            rec = r
        if rec is None:
            raise ValueError("no button label to perturb")
    else:
        raise ValueError(f"unknown perturbation family {family!r}")
    env.events.events.append({"event": f"perturb.{family}", "changes": len(rec.changes) if rec else 0})


class VariantEnv(ArenaEnv):
    """:class:`ArenaEnv` with a variant as its first hook (and any further hooks, e.g. traps)."""

    def __init__(self, browser, app_url: str, control, variant: Variant | None = None,
                 options: EnvOptions | None = None, *, hooks: tuple = (), **kwargs) -> None:
        self.variant = variant or BASE
        super().__init__(browser, app_url, control, options, hooks=[self.variant, *hooks], **kwargs)


BASE = Variant("base", "base", "the task as built")
