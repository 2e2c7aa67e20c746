"""Acting on a live page: locating targets, the actionability checks, and one method per input kind."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from .errors import ElementNotFound, NotInteractable, PageError
from .page_state import PageState

#: Why an element action cannot reach ``el`` now, or null when nothing here stops it (hidden and
#: uncertain cases stay Playwright's to wait for): ``['inert', what]`` inside an inert subtree or
#: outside the open modal ``<dialog>``; ``['outside', what]`` no part of it can be scrolled into the
#: viewport; ``['covered', what, animating]`` another element's subtree (``what``: its dialog, else
#: its root, as ``<tag class=..> 'its title'``) takes the pointer at the point Playwright would
#: click. An element not wholly in the viewport is first scrolled to its center, as Playwright's
#: actions scroll (``scroll`` false: null, Playwright's action scrolls); one found covered where it
#: is (a sticky header over it) is centred and checked again, as Playwright retries. Its labels stand in for it
#: (an upload's hidden file input, a styled checkbox): one of them reachable is enough. Declared as a function
#: inside each script that uses it.
_BLOCKED_JS = """function __wgBlocked(el, scroll) {
  const text = (n) => {
    const by = n.getAttribute('aria-labelledby');
    const lab = n.getAttribute('aria-label') || (by && by.split(/\\s+/).map((i) => {
      const t = document.getElementById(i); return t ? t.textContent : ''; }).join(' '));
    const head = n.querySelector('h1,h2,h3,h4,h5,h6,[role=heading],legend');
    return (lab || (head && head.textContent) || n.innerText || n.textContent || '').replace(/\\s+/g, ' \
').trim().slice(0, 60);
  };
  const describe = (n) => {
    let tag = '<' + n.tagName.toLowerCase();
    for (const a of ['id', 'class', 'role']) if (n.getAttribute(a)) tag += ' ' + a + '=' + \
n.getAttribute(a).trim().slice(0, 40);
    const t = text(n);
    return tag + '>' + (t ? " '" + t + "'" : '');
  };
  const one = (e, again) => {
    const inert = e.closest('[inert]');
    if (inert) return ['inert', 'inside ' + describe(inert)];
    const modal = document.querySelector('dialog:modal');
    if (modal && !modal.contains(e)) return ['inert', 'outside the open modal ' + describe(modal)];
    if (getComputedStyle(e).visibility !== 'visible' || (e.checkVisibility && !e.checkVisibility())) return null;
    let r = e.getClientRects()[0];
    if (!r || !(r.width > 0 && r.height > 0)) return null;
    let scrolled = !!again;
    if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) {
      if (!scroll) return null;
      e.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
      r = e.getClientRects()[0];
      scrolled = true;
    }
    const left = Math.max(r.left, 0), top = Math.max(r.top, 0);
    const right = Math.min(r.right, innerWidth), bottom = Math.min(r.bottom, innerHeight);
    if (!(right - left >= 1 && bottom - top >= 1)) return ['outside', describe(e)];
    const hit = document.elementFromPoint((left + right) / 2, (top + bottom) / 2);
    if (!hit || hit === e || e.contains(hit) || hit.contains(e)) return null;
    const label = hit.closest('label');
    if (label && label.control === e) return null;
    if (scroll && !scrolled) {  // a sticky header or banner over it: centred, as Playwright retries, it may be clear
      const y0 = scrollY, x0 = scrollX;
      e.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
      if (scrollY !== y0 || scrollX !== x0) return one(e, true);
    }
    let root = hit;
    while (root.parentElement && !root.parentElement.contains(e)) root = root.parentElement;
    const sel = 'dialog,[role=dialog],[role=alertdialog]';
    const dlg = root.matches(sel) ? root : root.querySelector(sel);
    const running = !!(document.getAnimations && document.getAnimations().some((a) => a.playState === 'running'));
    return ['covered', describe(dlg || root), running];
  };
  if (!(el instanceof Element) || !el.isConnected) return null;
  const first = one(el);
  if (!first || first[0] === 'inert') return first;
  for (const label of el.labels || []) if (label !== el && !one(label)) return null;
  return first;
}"""


#: ``{blocked: __wgBlocked(el)}`` of a target (an XPath), or null: reachable (or Playwright's to decide).
_REACHABLE_JS = """(xpath) => {  // (only used with reject_blocked: it scrolls)
  """ + _BLOCKED_JS + """
  const el = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  const b = __wgBlocked(el, true);
  return b && {blocked: b};
}"""


#: The same for an element handle (a selector target) or the focused field (what typing reaches).
_REACHABLE_EL_JS = "(el) => { " + _BLOCKED_JS + " const b = __wgBlocked(el, true); return b && {blocked: b}; }"


_REACHABLE_FOCUS_JS = ("() => { " + _BLOCKED_JS + " const el = document.activeElement;"
                       " if (!el || !(el.isContentEditable || el.matches('input, textarea, select'))) return null;"
                       " const b = __wgBlocked(el, true); return b && {blocked: b}; }")


#: How long a covered verdict may wait for running animations (a closing dialog fading out)
#: before the action is rejected; without animations it is rejected at once.
BLOCKED_ANIMATION_WAIT = 0.25


#: ``ox``, ``oy``: where the view the screenshot shows sits in the layout viewport (CSS px). A point in
#: the view is the client point minus them: a phone's view (the visual viewport) may be panned across
#: a page wider than its screen (capture.js); elsewhere both are 0. The mouse takes points in the view.
VIEW_OFFSET_JS = "const vv = window.visualViewport, ox = vv ? vv.offsetLeft : 0, oy = vv ? vv.offsetTop : 0;"

#: The center of a target (an XPath) when a plain mouse click there is what Playwright's click
#: does (attached, one box wholly in the viewport, visible, enabled, no animation running,
#: the element or a descendant hit at the center), as the mouse takes it; else null. Read-only.
_CLICK_POINT_JS = """([xpath, scroll]) => {
  """ + _BLOCKED_JS + """
  const el = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  if (!(el instanceof Element) || !el.isConnected) return null;
  const blocked = __wgBlocked(el, scroll);
  if (blocked) return {blocked};
  if (document.getAnimations && document.getAnimations().some((a) => a.playState === 'running')) return null;
  const rects = el.getClientRects();
  if (rects.length !== 1) return null;
  const r = rects[0];
  if (!(r.width > 0 && r.height > 0) || r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) \
return null;
  const st = getComputedStyle(el);
  if (st.visibility !== 'visible' || st.pointerEvents === 'none') return null;
  if (el.matches(':disabled') || el.closest('[aria-disabled=true]')) return null;
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  """ + VIEW_OFFSET_JS + """
  return hit && (hit === el || el.contains(hit)) ? [x - ox, y - oy] : null;
}"""


# Playwright's "visible, enabled, not inert" for a fill or select target, shared by both scripts
# below (they are run as expressions, so it is a function declared inside each).
_ACTIONABLE_JS = """function __wgActionable(el) {
  if (!el.isConnected) return false;
  const r = el.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0) || getComputedStyle(el).visibility !== 'visible') return false;
  if (el.checkVisibility && !el.checkVisibility()) return false;
  if (el.matches(':disabled') || el.closest('[aria-disabled=true]') || el.closest('[inert]')) return false;
  const modal = document.querySelector('dialog:modal');
  return !(modal && !modal.contains(el));
}"""


# The checks Playwright's fill makes (visible, enabled, editable, not inert) on a plain text
# input or textarea, then its selection and focus (its injected script's ``selectText``); null:
# anything else (other input types, contenteditable, a label, a check that fails), which takes
# Playwright's fill, whose waiting and errors stay as they were.
_FILL_TARGET_JS = """([xpath, scroll]) => {
  """ + _ACTIONABLE_JS + _BLOCKED_JS + """
  const el = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  const blocked = __wgBlocked(el, scroll);
  if (blocked) return {blocked};
  const TEXT = ['', 'email', 'password', 'search', 'tel', 'text', 'url'];
  if (!(el instanceof Element) || !(el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT' && \
TEXT.includes(el.type.toLowerCase())))) return null;
  if (!__wgActionable(el) || el.readOnly || el.closest('[aria-readonly=true]')) return null;
  // a selection that changes queues a "select" event as a task; Playwright's fill types on a later
  // round trip, after it has fired, so the typing waits for it here too (at most 200 ms)
  const moved = el.value.length > 0 && (el.selectionStart !== 0 || el.selectionEnd !== el.value.length);
  const fired = moved ? new Promise((ok) => {
    el.addEventListener('select', ok, {once: true}); setTimeout(ok, 200); }) : null;
  if (el.tagName === 'INPUT') { el.select(); el.focus(); }
  else { el.selectionStart = 0; el.selectionEnd = el.value.length; el.focus(); }
  const focused = document.activeElement === el;
  return fired ? fired.then(() => focused) : focused;
}"""


# Playwright's selectOptions (each value matches an option's value or label, whitespace
# normalized) on a visible, enabled <select> whose wanted options all exist and are enabled;
# null otherwise (Playwright's select_option then waits and fails as before).
_SELECT_JS = """([xpath, wanted, scroll]) => {
  """ + _ACTIONABLE_JS + _BLOCKED_JS + """
  const el = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  const blocked = __wgBlocked(el, scroll);
  if (blocked) return {blocked};
  if (!(el instanceof HTMLSelectElement) || !__wgActionable(el)) return null;
  const ws = (s) => s.replace(/\\s+/g, ' ').trim();
  const options = [...el.options], chosen = [];
  let remaining = wanted.slice();
  for (const option of options) {
    const label = ws(option.label);
    const hit = (w) => w === option.value || w === option.label || ws(w) === label;
    if (!remaining.some(hit)) continue;
    if (option.disabled || (option.parentElement && option.parentElement.disabled)) return null;
    chosen.push(option);
    if (!el.multiple) { remaining = []; break; }
    remaining = remaining.filter((w) => !hit(w));
  }
  if (remaining.length) return null;
  el.value = undefined;
  chosen.forEach((o) => { o.selected = true; });
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return chosen.map((o) => o.value);
}"""


class PageActions(PageState):
    """Acting on a live page: locating targets, the actionability checks, and one method per input kind."""

    # ---- actions on elements ---------------------------------------------
    def _locator(self, target: str) -> Any:
        if target in self._paths:
            return self._page.locator("xpath=" + self._paths[target])
        for prefix in ("css=", "xpath=", "text="):
            if target.startswith(prefix):
                return self._page.locator(target)
        if target.startswith("role="):
            role, _, name = target[5:].partition(":")
            return self._page.get_by_role(role, name=name or None, exact=bool(name))
        raise ElementNotFound(f"unknown element id {target!r}: it was not in any capture of this page; "
                              "capture first or pass a selector such as 'css=button.primary'")

    async def resolve(self, target: str, timeout: float = 5.0) -> Any:
        loc = self._locator(target)
        try:
            count = await asyncio.wait_for(loc.count(), timeout)
        except asyncio.TimeoutError:
            raise PageError("timeout", "page did not respond", self._safe_url()) from None
        if count == 0:
            raise ElementNotFound(f"element {target!r} is no longer in the page")
        return loc.first

    async def box_of(self, target: str) -> tuple[float, float, float, float] | None:
        """Current ``(x, y, w, h)`` of a target in CSS px of the viewport, or None if hidden."""
        loc = await self.resolve(target)
        b = await loc.bounding_box()
        return None if b is None else (b["x"], b["y"], b["width"], b["height"])

    async def click(self, target: str, *, timeout: float = 5.0, click_count: int = 1, force: bool = False,
                    modifiers: tuple[str, ...] | list[str] = ()) -> None:
        """Click a target; ``modifiers`` are keys held during the click (e.g. ``("Shift",)``).

        With ``fast_actions`` on, a target from a capture that one read-only script finds
        attached, visible, enabled, wholly in the viewport, not animating, and hit at its
        center (the point Playwright clicks) gets the same mouse events Playwright's click
        sends, without its actionability round trips; any other target takes Playwright's click."""
        if self.fast_actions and not force and not modifiers and target in self._paths:
            point = await self._fast_unless_blocked(target, _CLICK_POINT_JS, [self._paths[target], self.reject_blocked])
            if point is not None:
                await self._page.mouse.click(point[0], point[1], click_count=click_count)
                return
        elif not force:
            await self._reachable(target)
        loc = await self.resolve(target)
        await loc.click(timeout=timeout * 1000, click_count=click_count, force=force, modifiers=list(modifiers) or None)

    async def _fast_unless_blocked(self, target: str, js: str, arg: Any,
                                   run: Callable[[str, Any], Awaitable[Any]] | None = None) -> Any:
        """``js(arg)`` by :meth:`_fast_check` (or ``run``); a script that found the target blocked (``{blocked: ...}``,
        see ``_BLOCKED_JS``) raises :class:`NotInteractable` with ``reject_blocked`` (after running
        animations ended or ``BLOCKED_ANIMATION_WAIT``), else gives None (Playwright's action decides)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BLOCKED_ANIMATION_WAIT
        while True:
            out = await (run or self._fast_check)(js, arg)
            if not (isinstance(out, dict) and "blocked" in out):
                return out
            if not self.reject_blocked:
                return None
            reason, blocker, *animating = out["blocked"]
            if not any(animating) or loop.time() >= deadline:
                raise NotInteractable(reason, blocker, target)
            await asyncio.sleep(0.03)  # the cover may be animating away (a dialog closing)

    async def _reachable(self, target: str) -> None:
        """With ``reject_blocked``: raise :class:`NotInteractable` when ``target`` is covered, inert or
        cannot be scrolled into the viewport (one script; a hidden or missing target is left to the action)."""
        if not self.reject_blocked:
            return
        if target in self._paths:
            await self._fast_unless_blocked(target, _REACHABLE_JS, self._paths[target])
            return
        loc = await self.resolve(target)

        async def check(js: str, _arg: Any) -> Any:
            with contextlib.suppress(Exception):
                return await loc.evaluate(js)
            return None
        await self._fast_unless_blocked(target, _REACHABLE_EL_JS, None, run=check)

    async def _focus_reachable(self) -> None:
        """With ``reject_blocked``: raise :class:`NotInteractable` when the focused element (what typing
        reaches) is covered or inert."""
        if self.reject_blocked:
            await self._fast_unless_blocked("the focused element", _REACHABLE_FOCUS_JS, None)

    async def _fast_check(self, js: str, arg: Any) -> Any:
        """``js(arg)`` in the change watch's isolated world when one is armed (the page cannot fake
        the checks), else in the page; None when the document is gone (Playwright's own action
        then finds out what happened)."""
        watch = self._watches.get(self._page)
        try:
            return await (watch.call(js, arg) if watch is not None else self.evaluate(js, arg))
        except Exception:
            return None

    async def fill(self, target: str, text: str, *, timeout: float = 5.0) -> None:
        """Fill a text field as Playwright's fill does: select its text, then type ``text`` in one
        ``insertText`` (an empty ``text`` presses Delete).

        With ``fast_actions`` on, a plain text input or textarea from a capture that one script
        finds visible, enabled, editable and not inert is selected and focused by that script (the
        checks and selection Playwright's fill makes, without its round trips); anything else
        takes Playwright's fill."""
        if self.fast_actions and target in self._paths:
            fast = await self._fast_unless_blocked(target, _FILL_TARGET_JS, [self._paths[target], self.reject_blocked])
        else:
            fast = None
            await self._reachable(target)
        if fast:
            if text:
                await self._page.keyboard.insert_text(text)
            else:
                await self._page.keyboard.press("Delete")
            return
        loc = await self.resolve(target)
        await loc.fill(text, timeout=timeout * 1000)

    async def select(self, target: str, value: str | list[str], *, timeout: float = 5.0) -> list[str]:
        """Select the options whose value or label is ``value`` (Playwright's select_option; with
        ``fast_actions`` on, one script does it when the select and all the options are there,
        visible and enabled). Returns the selected values."""
        values = [value] if isinstance(value, str) else value
        if self.fast_actions and target in self._paths:
            chosen = await self._fast_unless_blocked(target, _SELECT_JS,
                                                     [self._paths[target], list(values), self.reject_blocked])
            if chosen is not None:
                return list(chosen)
        else:
            await self._reachable(target)
        loc = await self.resolve(target)
        try:
            selected: list[str] = await loc.select_option(values, timeout=timeout * 1000)
        except Exception:
            selected = await loc.select_option(label=values, timeout=timeout * 1000)
        return selected

    async def check(self, target: str, checked: bool = True, *, timeout: float = 5.0) -> None:
        await self._reachable(target)
        loc = await self.resolve(target)
        await loc.set_checked(checked, timeout=timeout * 1000)

    async def hover(self, target: str, *, timeout: float = 5.0) -> None:
        await self._reachable(target)
        loc = await self.resolve(target)
        await loc.hover(timeout=timeout * 1000)

    async def focus(self, target: str) -> None:
        await self._reachable(target)
        loc = await self.resolve(target)
        await loc.focus()

    async def set_input_files(self, target: str, files: Sequence[str | Path] | Sequence[dict[str, Any]], *,
                              timeout: float = 5.0) -> None:
        """Choose files for an ``<input type=file>`` (paths, or dicts name/mimeType/buffer). With
        ``reject_blocked``, the input (or one of its labels: a styled upload hides the input) must be
        reachable as for a click."""
        await self._reachable(target)
        loc = await self.resolve(target)
        await loc.set_input_files([str(f) if isinstance(f, Path) else f for f in files], timeout=timeout * 1000)

    async def choose_files(self, chooser: Any, files: Sequence[str | Path], *, timeout: float = 5.0) -> None:
        """Answer a file chooser a click opened (one of :attr:`file_choosers`) with ``files``."""
        await chooser.set_files([str(f) for f in files], timeout=timeout * 1000)

    async def drag(self, source: str, dest: str, *, timeout: float = 5.0) -> None:
        await self._reachable(source)
        await self._reachable(dest)
        src = await self.resolve(source)
        dst = await self.resolve(dest)
        await src.drag_to(dst, timeout=timeout * 1000)

    # ---- keyboard, scroll and pointer ------------------------------------
    async def press(self, key: str) -> None:
        await self._page.keyboard.press(key)

    async def type_text(self, text: str, delay_ms: float = 0) -> None:
        """Type into the focused element (with ``reject_blocked``: not when it is covered or inert)."""
        await self._focus_reachable()
        await self._page.keyboard.type(text, delay=delay_ms)

    async def scroll(self, dx: float, dy: float) -> None:
        """Scroll the viewport by ``(dx, dy)`` CSS px with the mouse wheel."""
        await self._page.mouse.wheel(dx, dy)
        await self._page.wait_for_timeout(50)

    async def scroll_to(self, x: float, y: float) -> None:
        await self.evaluate("([x, y]) => window.scrollTo(x, y)", [x, y])

    async def mouse_click(self, x: float, y: float, *, button: str = "left", click_count: int = 1) -> None:
        """Click at ``(x, y)`` CSS px of the viewport."""
        await self._page.mouse.click(x, y, button=button, click_count=click_count)

    async def mouse_move(self, x: float, y: float, steps: int = 1) -> None:
        await self._page.mouse.move(x, y, steps=steps)

    async def mouse_down(self, x: float, y: float, button: str = "left") -> None:
        await self._page.mouse.move(x, y)
        await self._page.mouse.down(button=button)

    async def mouse_up(self, x: float, y: float, button: str = "left", steps: int = 5) -> None:
        await self._page.mouse.move(x, y, steps=steps)
        await self._page.mouse.up(button=button)
