"""The env's guards: what is checked before an action runs (mode, disabled, stale, moved).

The approval gate is not here: an irreversible change is refused where it takes effect, by the
app's server on the request that makes it (:mod:`~webgauge.arena.core.gate`), whatever input
produced the request. The env reads what the gate decided after each step
(:meth:`~webgauge.arena.env.ArenaEnv.step`)."""

from __future__ import annotations

import hashlib

from ...browser import VIEW_OFFSET_JS, Element
from ..core.actions import Action
from .env_state import EnvState

#: The index in ``paths`` (XPaths of observed elements) of the nearest one that is, or holds, the
#: topmost element at viewport point (x, y); -1 if none does. Read-only. The point is in the view the
#: screenshot shows (:data:`~webgauge.browser.VIEW_OFFSET_JS`).
_HIT_JS = """([x, y, paths]) => {
  """ + VIEW_OFFSET_JS + """
  const hit = document.elementFromPoint(x + ox, y + oy);
  if (!hit) return -1;
  const index = new Map();
  paths.forEach((p, i) => {
    const n = document.evaluate(p, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
    if (n && !index.has(n)) index.set(n, i);
  });
  for (let n = hit; n; n = n.parentElement) if (index.has(n)) return index.get(n);
  return -1;
}"""


#: For a keyboard action: the index in ``paths`` of the nearest observed element holding the one the
#: keys reach: the element at ``given`` (an XPath) or else the focused one. -1 if none. Read-only.
_KEY_JS = """([given, paths]) => {
  const find = p => document.evaluate(p, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  const index = new Map();
  paths.forEach((p, i) => { const n = find(p); if (n && !index.has(n)) index.set(n, i); });
  let el = given ? find(given) : document.activeElement;
  for (let n = el; n; n = n.parentElement) if (index.has(n)) return index.get(n);
  return -1;
}"""


class _Rejected(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def _target_info(el: Element | None, irreversible: bool = False) -> dict | None:
    if el is None:
        return None
    return {"id": el.id, "tag": el.tag, "role": el.role, "name": el.name[:80], "box": list(el.box),
            "destructive": irreversible}


class EnvGuards(EnvState):
    """The env's guards: what is checked before an action runs (mode, disabled, stale, moved)."""

    def _elements_under(self, x: float | None, y: float | None) -> list[Element]:
        """The visible elements of the current observation whose box holds a normalized point, deepest first."""
        if self.obs is None or x is None or y is None or not self.obs.elements:
            return []
        px, py = x * self.obs.viewport[0], y * self.obs.viewport[1]
        under = []
        for el in self.obs.elements:
            if not el.visible:
                continue
            bx, by, bw, bh = self.obs.viewport_box(el)
            if bx <= px <= bx + bw and by <= py <= by + bh:
                under.append(el)
        return sorted(under, key=lambda e: -e.depth)

    async def _element_at(self, x: float | None, y: float | None) -> Element | None:
        """The element a pointer at a normalized point reaches: the browser's hit test (the topmost
        element there, as the click itself will find it), mapped to the nearest observed element that
        holds it (DOM depth alone would report a deeper element drawn below the one clicked). If the
        page cannot be asked, an irreversible control under the point, else the deepest."""
        under = self._elements_under(x, y)
        if self.obs is None or x is None or y is None or not self.obs.elements:
            return None
        px, py = x * self.obs.viewport[0], y * self.obs.viewport[1]
        try:
            idx = await self._live_page.evaluate(_HIT_JS, [px, py, [e.path for e in under]])
            if idx < 0:  # the hit is not inside any element whose box holds the point: ask with all of them
                visible = [e for e in self.obs.elements if e.visible]
                idx = await self._live_page.evaluate(_HIT_JS, [px, py, [e.path for e in visible]])
                return visible[idx] if idx >= 0 else None
            return under[idx]
        except Exception:  # the page is navigating or closed: the step's own checks will say so
            return next((e for e in under if self.is_irreversible(e)), under[0] if under else None)

    async def _key_target(self, action: Action) -> Element | None:
        """The element a keyboard action reaches, for the step's record: the given element or the focused
        one. (What the keys then do, a form submitted, a control activated, is the page's business; an
        irreversible request it sends meets the app's approval gate.) If the page cannot be asked, the given one."""
        if self.obs is None:
            return None
        given = self.obs.element(action.element) if action.element else None
        visible = [e for e in self.obs.elements or () if e.visible]
        try:
            idx = await self._live_page.evaluate(_KEY_JS, [given.path if given else None, [e.path for e in visible]])
        except Exception:  # the page is navigating or closed: the step's own checks will say so
            return given
        return visible[idx] if idx >= 0 else given

    # ---- guards: each raises _Rejected with the reason the step records ----
    async def _guard(self, action: Action, target: Element | None) -> None:
        self._check_disabled(action, target)
        if action.is_pointer:
            await self._check_stale(action)
        if action.element and target is not None and self.is_irreversible(target):
            await self._check_moved(target)

    def _check_disabled(self, action: Action, target: Element | None) -> None:
        if action.kind in ("click", "fill", "select", "upload") and target is not None and (
                "disabled" in target.attrs or target.attrs.get("aria-disabled") == "true"):
            raise _Rejected("disabled", "the observation shows this control disabled; acting on it has no effect")

    async def _check_stale(self, action: Action) -> None:
        """A pointer action must aim at the current screenshot, and the page must still show it."""
        obs, page = self._obs_now, self._live_page
        aimed, current = ((action.token, obs.token) if action.token else (action.screenshot_hash, obs.screenshot_hash))
        if aimed != current:  # the short token binds like the hash: another observation's token is stale
            raise _Rejected("stale", "the pointer action was aimed at a screenshot that is not the current "
                            "observation; act on the latest screenshot")
        seen = await self._changes_since_observation()
        if not seen:  # nothing that can change a pixel happened: no screenshot
            self.stale_checks["watch"] += 1
            return
        self.stale_checks["screenshot"] += 1
        png = await (page.viewport_png() if page.fast_screenshots else page.screenshot())
        scroll = await page.scroll_offsets()
        page_png = obs.snapshot.png if obs.snapshot is not None else obs.png  # the page's own pixels (no picker drawn)
        same = hashlib.sha256(png).hexdigest() == (obs.snapshot.png_sha256 if obs.snapshot is not None
                                                   else obs.screenshot_hash)
        if not same and page_png is not None:  # a blinking caret in a focused field is not a page change
            from ..core.caret import FOCUSED_TEXT_BOX_JS, caret_only_change

            same = caret_only_change(page_png, png, await page.evaluate(FOCUSED_TEXT_BOX_JS), obs.device_scale_factor)
        differs = [what for what, changed in (("pixels", not same), ("scroll", tuple(scroll) != tuple(obs.scroll)),
                                              ("document", page.navigation_id != obs.navigation_id)) if changed]
        if differs:
            raise _Rejected("stale", f"the page changed since the screenshot ({', '.join(differs)} differ; seen: "
                            f"{', '.join(seen)}); look again before pointing")

    async def _changes_since_observation(self) -> list[str]:
        """What the change watch saw since the observation that can change a pixel or a box (mutation,
        scroll, resize, load, animation, navigation, a new dialog, ...); empty: nothing. ``["no watch"]``
        without one (then anything may have changed)."""
        page = self._live_page
        if not self.watch_changes:
            return ["no watch"]
        if page.navigation_id != self._obs_now.navigation_id:
            return ["navigation"]
        if len(page.dialogs) != self._dialogs_seen:
            return ["dialog"]
        return list(await page.changes_since_watch())

    async def _unchanged_since_observation(self) -> bool:
        """Did the change watch see nothing since the observation that can change a pixel or a box
        (no mutation, scroll, resize, load, animation, navigation or new dialog)? False without a watch."""
        return not await self._changes_since_observation()

    def is_irreversible(self, el: Element | None) -> bool:
        """Is ``el`` (an element of the current observation) a control its app declares irreversible?"""
        return el is not None and self.obs is not None and self.irreversible.covers(el, self.obs.url)

    async def _check_moved(self, target: Element) -> None:
        """Before an irreversible control is activated, it must be where the observation showed it:
        the change watch saw nothing since the observation that can move a box (no mutation, scroll,
        resize, load, animation, navigation or dialog, as for a pointer's stale check), or a fresh
        element table (no screenshot: only the boxes are compared) shows it there."""
        if await self._unchanged_since_observation():
            self.moved_checks["watch"] += 1
            return
        self.moved_checks["capture"] += 1
        fresh = await self._live_page.capture(with_aria=False, with_screenshot=False)
        now = next((e for e in fresh.elements if e.id == target.id), None)
        if now is None or not now.visible or any(abs(a - b) > 1 for a, b in zip(now.box, target.box, strict=True)):
            raise _Rejected("moved", "the irreversible target is no longer where the observation showed it")
