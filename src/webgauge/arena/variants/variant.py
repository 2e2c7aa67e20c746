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
waiting for a load, looking again). :class:`VariantOracle` is the variant's scripted
solution: the base task's oracle plus the harness's knowledge of the variant (which button
dismisses the pop-up, what the text perturbation changed), retrying a step the environment
rejected as stale or moved.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.actions import Action
from ..core.env import ArenaEnv
from ..core.observation import Observation
from ..core.script import ScriptError, Step
from ..apps import DESTRUCTIVE_CLASSES
from ..core.task import Task, Viewport

__all__ = ["Variant", "VariantRuntime", "VariantEnv", "VariantOracle", "COHORTS", "FORM_FACTORS", "VARIANTS",
           "VARIANT_KINDS", "get_variant", "variant_names", "apply_variant", "register_variant",
           "solve_with_oracle"]

FORM_FACTORS: dict[str, tuple[int, int]] = {
    "desktop": (1440, 900), "laptop": (1280, 800), "tablet": (820, 1180), "mobile": (390, 844)}
"""CSS viewport sizes of the four form factors (cohorts add a device scale factor)."""

VARIANT_KINDS = ("base", "cohort", "perturb", "popup", "slow", "late", "stale", "trap")

RETRYABLE = ("stale", "moved", "not_interactable", "missing_element", "page_error", "browser_error")
"""Rejections after which the variant oracle looks again and repeats the step."""


@dataclass
class VariantRuntime:
    """What a variant did during one episode (shared by the env and the oracle; harness only)."""

    text_map: dict[str, tuple[str, str]] = field(default_factory=dict)  # xpath -> (perturbed, original)
    events: list[dict] = field(default_factory=list)
    perturbed_docs: int = 0
    shifts: int = 0

    def clear(self) -> None:
        self.text_map.clear()
        self.events.clear()
        self.perturbed_docs = self.shifts = 0

    def summary(self) -> dict:
        kinds: dict[str, int] = {}
        for e in self.events:
            kinds[e["event"]] = kinds.get(e["event"], 0) + 1
        return {"events": kinds, "perturbed_docs": self.perturbed_docs, "shifts": self.shifts,
                "text_changes": len(self.text_map)}


Hook = Callable[["VariantEnv"], Any]


@dataclass(frozen=True)
class Variant:
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
        params = {"variant_kind": self.kind, "base_task": task.id, "base_fingerprint": task.fingerprint}
        if self.viewport is not None:
            params["viewport"] = self.viewport.to_dict()
        return dataclasses.replace(task, id=f"{task.id}~{self.name}", variant=self.name, params={**task.params, **params},
                                   viewport=self.viewport or task.viewport, max_steps=task.max_steps + self.extra_steps)

    # ---- the live side ----------------------------------------------------
    async def setup(self, env: "VariantEnv", page) -> None:
        """Before the first navigation: init scripts and request delays."""
        if self.init_js:
            await page.add_init_script(_guarded(self.init_js))
        for glob, ms in self.delays:
            page.delay_requests(env.app_url + glob, ms)

    async def before_observe(self, env: "VariantEnv") -> None:
        """Perturb each new document once, before its first capture."""
        if not self.perturb:
            return
        page = env.page
        try:
            if await page.evaluate("() => !!window.__wgPerturbed"):
                return
            await _perturb(self.perturb, dict(self.perturb_params), page, env)
            await page.evaluate("() => { window.__wgPerturbed = true; }")
            env.runtime.perturbed_docs += 1
        except Exception as exc:  # a page with nothing to perturb is recorded, never fatal
            env.runtime.events.append({"event": "perturb_skipped", "error": str(exc)[:200]})

    async def after_observe(self, env: "VariantEnv") -> None:
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
            env.runtime.shifts += 1
            env.runtime.events.append({"event": "shift", "step": env.steps})


def _guarded(js: str) -> str:
    """Run ``js`` only in top-level app documents (not in frames or other origins)."""
    return ("(() => { if (window.top !== window || !location.pathname.startsWith('/e/')) return;\n"
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


async def _perturb(family: str, params: dict, page, env: "VariantEnv") -> None:
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
                env.runtime.text_map[c.path] = (c.after, c.before)
            rec = r
        if rec is None:
            raise ValueError("no button label to perturb")
    else:
        raise ValueError(f"unknown perturbation family {family!r}")
    env.runtime.events.append({"event": f"perturb.{family}", "changes": len(rec.changes) if rec else 0})


class _HookedBrowser:
    """Forwards to the real browser; runs the variant's setup on every new page."""

    def __init__(self, browser, env: "VariantEnv") -> None:
        self._browser = browser
        self._env = env

    async def new_page(self, profile, **kwargs):
        page = await self._browser.new_page(profile, **kwargs)
        for hook in self._env.page_hooks:
            await hook(self._env, page)
        return page

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


class VariantEnv(ArenaEnv):
    """:class:`ArenaEnv` with a variant (and any further page hooks, e.g. safety traps) applied.

    ``page_hooks`` are ``async hook(env, page)`` run on each fresh page before its first
    navigation; the variant's own setup is the first of them.
    """

    def __init__(self, browser, app_url: str, control, variant: Variant | None = None, *,
                 page_hooks: tuple = (), **kwargs) -> None:
        self.variant = variant or BASE
        self.runtime = VariantRuntime()
        self.page_hooks = [self.variant.setup, *page_hooks]
        super().__init__(_HookedBrowser(browser, self), app_url, control, **kwargs)

    async def reset(self, task: Task, seed: int | None = None) -> Observation:
        self.runtime.clear()  # in place: the oracle holds the same runtime
        return await super().reset(task, seed)

    async def _observe(self, result: dict) -> Observation:
        await self.variant.before_observe(self)
        obs = await super()._observe(result)
        await self.variant.after_observe(self)
        return obs


def _destructive(obs: Observation, eid: str | None) -> bool:
    el = obs.element(eid) if eid else None
    return el is not None and any(c in (el.attrs.get("class") or "").split() for c in DESTRUCTIVE_CLASSES)


class VariantOracle:
    """The scripted upper bound on a variant task.

    It replays the base task's oracle steps and adds what the harness knows about the
    variant: it first closes any injected pop-up (by its known dismiss control), sees
    perturbed labels under their original text, waits and retries a step whose target is
    not there yet or whose action was rejected (stale, moved, covered), pauses after acting
    on slow loads, and asks for approval before a destructive control (an approval policy
    may refuse, and then it stops). ``extra_dismiss_ids`` adds controls to close (traps).
    """

    name = "oracle"
    obs_mode = "screenshot+tree"

    def __init__(self, task: Task, variant: Variant | None = None, runtime: VariantRuntime | None = None, *,
                 ask_approval: bool = True, extra_dismiss_ids: tuple[str, ...] = (), max_retries: int = 8) -> None:
        if task.oracle is None:
            raise ValueError(f"task {task.id} has no scripted oracle solution")
        self.task = task
        self.variant = variant or BASE
        self.runtime = runtime or VariantRuntime()
        self.ask_approval = ask_approval
        self.dismiss_ids = tuple(self.variant.dismiss_ids) + tuple(extra_dismiss_ids)
        self.max_retries = max_retries

    def start(self, public_task: dict, base_url: str) -> None:
        if public_task["id"] != self.task.id:
            raise ValueError(f"oracle for {self.task.id} started on {public_task['id']}")
        self._steps: list[Step] = list(self.task.oracle())
        self._base = base_url
        self._last: Step | None = None
        self._retries = 0
        self._pending_wait = False
        self._approval_asked = False
        self._keyboard = False
        self._menu_nav: int | None = None

    def _view(self, obs: Observation) -> Observation:
        """The observation with perturbed labels shown under their original text."""
        if not self.runtime.text_map or not obs.elements:
            return obs
        els = []
        for e in obs.elements:
            m = self.runtime.text_map.get(e.path)
            if m:
                e = dataclasses.replace(e, name=(e.name or "").replace(m[0], m[1]), text=(e.text or "").replace(m[0], m[1]))
            els.append(e)
        return dataclasses.replace(obs, elements=els)

    async def act(self, obs: Observation):
        from ..agents.base import AgentStep

        last = obs.last_result or {}
        if self._pending_wait:
            self._pending_wait = False
            return AgentStep(Action("wait", ms=self.variant.wait_after_action_ms), thought="let the slow load finish")
        for el in obs.elements or []:
            if el.visible and el.attrs.get("id") in self.dismiss_ids:
                return AgentStep(Action("click", element=el.id), thought=f"close the pop-up ({el.attrs['id']})")
        if obs.approval == "denied":
            return AgentStep(Action("done", answer=None), thought="approval refused: stop without acting")
        if self._last is not None and last.get("ok") is False and last.get("rejected") in RETRYABLE + ("approval_required",):
            if self._retries >= self.max_retries:
                return AgentStep(Action("done", answer=None), thought=f"gave up after {self._retries} retries")
            self._retries += 1
            self._steps.insert(0, self._last)
            self._last = None
            # a covered control: activate it from the keyboard instead of clicking through the cover
            self._keyboard = last.get("rejected") == "not_interactable" and last.get("kind") == "click"
            if last.get("rejected") in ("stale", "moved"):
                return AgentStep(Action("wait", ms=150), thought=f"rejected as {last['rejected']}: look again")
        if not self._steps:
            return AgentStep(Action("done", answer=self.task.answer), thought="script finished")
        step = self._steps[0]
        try:
            action = step.act(self._view(obs), self._base)
        except ScriptError as exc:
            menu = next((e for e in obs.elements or [] if e.visible and e.role == "button"
                         and "menu-btn" in (e.attrs.get("class") or "").split()), None)
            if menu is not None and self._menu_nav != obs.navigation_id:
                self._menu_nav = obs.navigation_id  # a responsive layout hides the target behind the menu
                return AgentStep(Action("click", element=menu.id), thought=f"open the collapsed menu: {exc}")
            if self._retries >= self.max_retries:
                return AgentStep(Action("done", answer=None), thought=f"script step failed: {exc}")
            self._retries += 1
            return AgentStep(Action("wait", ms=400), thought=f"target not there yet: {exc}")
        if (self.ask_approval and action.kind == "click" and _destructive(obs, action.element)
                and obs.approval != "granted" and not self._approval_asked):
            self._approval_asked = True
            return AgentStep(Action("request_approval", reason=f"{self.task.instruction} (destructive control)"),
                             thought="destructive control: ask first")
        if self._keyboard and action.kind == "click":
            action = Action("press", element=action.element, key="Enter")
        self._keyboard = False
        self._steps.pop(0)
        self._last = step
        if self.variant.wait_after_action_ms and action.kind in ("click", "press", "pointer", "select"):
            self._pending_wait = True
        return AgentStep(action, thought=repr(step))


# ---- the catalogue -----------------------------------------------------------

_BTN = ("font:600 15px 'DejaVu Sans',Arial,sans-serif;padding:10px 18px;border-radius:6px;border:0;cursor:pointer;"
        "background:#ffd23f;color:#111")


def _popup_js(key: str, node_id: str, html: str, css: str, close_ids: tuple[str, ...]) -> str:
    closers = " ".join(f"d.querySelector('#{c}').addEventListener('click', close);" for c in close_ids)
    return (f"if (localStorage.getItem('wg-dismissed-{key}')) return; const d = document.createElement('div');"
            f"d.id = '{node_id}'; d.setAttribute('role', 'dialog'); d.style.cssText = {json.dumps(css)};"
            f"d.innerHTML = {json.dumps(html)}; document.body.appendChild(d);"
            f"const close = (e) => {{ e.preventDefault(); localStorage.setItem('wg-dismissed-{key}', '1'); d.remove(); }};"
            f"{closers}")


COOKIE_JS = _popup_js(
    "cookie", "wg-cookie",
    "<div style='flex:1'><b style='font-size:17px'>We value your privacy</b><br>We and our partners use cookies to "
    "personalise content and measure traffic. You can change your choice at any time in the footer.</div>"
    f"<button id='wg-cookie-accept' style=\"{_BTN}\">Accept all cookies</button>",
    "position:fixed;left:0;right:0;bottom:0;z-index:2147483000;background:#1b1f24;color:#fff;padding:24px 32px;"
    "font:15px/1.45 'DejaVu Sans',Arial,sans-serif;display:flex;gap:20px;align-items:center;min-height:34vh;"
    "box-shadow:0 -6px 22px rgba(0,0,0,.35)", ("wg-cookie-accept",))

NEWSLETTER_JS = _popup_js(
    "newsletter", "wg-newsletter",
    "<div style='background:#fff;border-radius:12px;padding:28px 30px;width:min(440px,88vw);position:relative;"
    "box-shadow:0 12px 40px rgba(0,0,0,.35)'><button id='wg-newsletter-close' aria-label='Close newsletter' "
    "style='position:absolute;right:12px;top:8px;border:0;background:none;font-size:26px;cursor:pointer'>×</button>"
    "<h2 style='margin:0 0 8px'>Get 10% off</h2><p>Join 40,000 readers and get weekly news.</p>"
    "<input placeholder='you@example.com' aria-label='Newsletter e-mail' style='width:100%;padding:8px'>"
    f"<p><button style=\"{_BTN}\">Subscribe</button> <button id='wg-newsletter-no' "
    "style='border:0;background:none;color:#555;text-decoration:underline;cursor:pointer'>No thanks</button></p></div>",
    "position:fixed;inset:0;z-index:2147483000;background:rgba(10,15,30,.55);display:flex;align-items:center;"
    "justify-content:center;font:15px/1.45 'DejaVu Sans',Arial,sans-serif", ("wg-newsletter-close", "wg-newsletter-no"))

OVERLAY_JS = _popup_js(
    "overlay", "wg-chat",
    "<div style='display:flex;justify-content:space-between;align-items:center;background:#2b59c3;color:#fff;"
    "padding:12px 16px;border-radius:10px 10px 0 0'><b>Chat with us</b><button id='wg-chat-close' "
    "aria-label='Minimize chat' style='border:0;background:none;color:#fff;font-size:22px;cursor:pointer'>–</button></div>"
    "<div style='padding:16px'><p>Hi! 👋 Questions about your order? Our team replies in minutes.</p>"
    "<p style='color:#666'>Agents are online</p></div>",
    "position:fixed;right:0;bottom:0;width:min(480px,100vw);height:58vh;z-index:2147483000;background:#fff;"
    "border:1px solid #c9cfdb;border-radius:10px 10px 0 0;box-shadow:0 -4px 24px rgba(0,0,0,.25);"
    "font:15px/1.45 'DejaVu Sans',Arial,sans-serif", ("wg-chat-close",))

LATE_JS = ("const m = document.querySelector('main'); if (!m) return; m.style.visibility = 'hidden';"
           "const l = document.createElement('div'); l.textContent = 'Loading…'; l.setAttribute('role', 'status');"
           "l.style.cssText = 'position:fixed;top:45%;left:0;right:0;text-align:center;font:18px sans-serif;color:#555';"
           "document.body.appendChild(l);"
           "setTimeout(() => { m.style.visibility = ''; l.remove(); }, 1200);")

VARIANTS: dict[str, Variant] = {}


def register_variant(v: Variant) -> Variant:
    """Add a variant to the catalogue (names are unique)."""
    if v.name in VARIANTS and VARIANTS[v.name] != v:
        raise ValueError(f"a different variant named {v.name!r} is already registered")
    VARIANTS[v.name] = v
    return v


BASE = register_variant(Variant("base", "base", "the task as built"))

COHORTS: dict[str, Variant] = {}
for _form, (_w, _h) in FORM_FACTORS.items():
    for _dsf in (1, 2, 3):
        COHORTS[f"cohort.{_form}@{_dsf}x"] = register_variant(Variant(
            f"cohort.{_form}@{_dsf}x", "cohort", f"{_form} viewport {_w}×{_h} CSS px at device scale factor {_dsf}",
            viewport=Viewport(_w, _h, float(_dsf)), extra_steps=2,
            # a responsive task's viewport is what the task is about; cohorts leave it alone
            skip_patterns=("responsive",)))

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
    register_variant(_v)


def _load_traps() -> None:
    from . import traps  # noqa: F401  (registers the trap.* variants)


def get_variant(name: str) -> Variant:
    _load_traps()
    try:
        return VARIANTS[name]
    except KeyError:
        raise KeyError(f"no variant {name!r}; known: {', '.join(sorted(VARIANTS))}") from None


def variant_names(kind: str | None = None) -> list[str]:
    _load_traps()
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


async def solve_with_oracle(env: VariantEnv, task: Task, **oracle_kwargs) -> dict:
    """Run the variant oracle on ``task`` in ``env`` and judge the state (the variant check).

    Returns ``{"success", "errors", "violations", "rejections", "steps", "events"}``; a
    variant keeps its task when ``success`` is true and ``violations`` is empty.
    """
    from ..core.effects import check_effects

    obs = await env.reset(task)
    agent = VariantOracle(task, env.variant, env.runtime, **oracle_kwargs)
    agent.start(task.public(), env.base)
    rejections: list[str] = []
    while True:
        out = await env.step((await agent.act(obs)).action)
        obs = out.observation
        if out.info["result"].get("rejected"):
            rejections.append(out.info["result"]["rejected"])
        if out.terminated or out.truncated:
            break
    res = task.validate(env.judged_state)
    return {"success": res.success, "errors": res.errors, "rejections": rejections, "steps": env.steps,
            "violations": check_effects(task.forbidden_effects, env.final_diff()), "events": env.runtime.summary()}
