"""The action executor: one coroutine per action kind, looked up by the action's kind."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TypeVar

from ..core.actions import ACTION_KINDS, Action, ActionError
from .env_state import EnvState
from .guards import _Rejected

_T = TypeVar("_T")


def _need(value: _T | None, field: str, a: Action) -> _T:
    """A field the action's kind requires (``Action`` checks it when the action is made)."""
    if value is None:
        raise ActionError(f"{a.kind} needs {field!r}")
    return value


class ActionExecutor(EnvState):
    """The action executor: one coroutine per action kind, looked up by the action's kind."""

    # ---- actions: one small coroutine per kind ------------------------------
    async def _execute(self, a: Action) -> None:
        await _ACTIONS[a.kind](self, a)

    async def _do_click(self, a: Action) -> None:
        await self._live_page.click(_need(a.element, "element", a), timeout=self.action_timeout,
                                    modifiers=a.modifiers or ())

    async def _do_fill(self, a: Action) -> None:
        await self._live_page.fill(_need(a.element, "element", a), a.value or "", timeout=self.action_timeout)

    async def _do_focus(self, a: Action) -> None:
        await self._live_page.focus(_need(a.element, "element", a))

    async def _do_type_text(self, a: Action) -> None:
        await self._live_page.type_text(a.value or "")

    async def _do_upload(self, a: Action) -> None:
        """Set the file input to one of the task's files, written under the run's upload folder."""
        if not a.element:
            raise _Rejected("no_file_chooser", "no file chooser is open: click the file input (or its button) "
                            "first, then upload one of the names it offers")
        path = self.task_file(a.value)
        await self._live_page.set_input_files(a.element, [path], timeout=self.action_timeout)

    def check_token(self, a: Action) -> None:
        """A pointer action must be aimed at the current observation (its token or screenshot hash)."""
        aimed, current = ((a.token, self._obs_now.token) if a.token
                          else (a.screenshot_hash, self._obs_now.screenshot_hash))
        if aimed != current:
            raise _Rejected("stale", "the pointer action was aimed at a screenshot that is not the current "
                            "observation; act on the latest screenshot")

    def task_file(self, name: str | None) -> Path:
        """One of the task's files by name, written under the run's upload folder (else ``unknown_file``)."""
        a_value = name
        files = dict(self._task_now.files)
        if a_value not in files:
            raise _Rejected("unknown_file", f"{a_value!r} is not one of this task's files "
                            f"({', '.join(files) or 'this task offers none'}); upload only those")
        if self._upload_dir is None:
            self._upload_dir = Path(tempfile.mkdtemp(prefix="webgauge-uploads-"))
        folder = (self._upload_dir / f"{self.episode_id}-{self._task_now.id}").resolve()
        path = (folder / a_value).resolve()
        if path.parent != folder:  # Action already refuses paths; this guards the folder too
            raise _Rejected("unknown_file", f"{a_value!r} is not a bare file name")
        folder.mkdir(parents=True, exist_ok=True)
        path.write_bytes(files[a_value])
        return path

    async def _do_drag(self, a: Action) -> None:
        if self._obs_now.element(_need(a.target, "target", a)) is None:
            raise _Rejected("missing_element", f"no element {a.target!r} to drop onto in the current observation")
        await self._live_page.drag(_need(a.element, "element", a), _need(a.target, "target", a),
                                   timeout=self.action_timeout)

    async def _do_select(self, a: Action) -> None:
        await self._live_page.select(_need(a.element, "element", a), a.value or "", timeout=self.action_timeout)

    async def _do_hover(self, a: Action) -> None:
        await self._live_page.hover(_need(a.element, "element", a), timeout=self.action_timeout)

    async def _do_press(self, a: Action) -> None:
        if a.element:
            await self._live_page.focus(a.element)
        await self._live_page.press(_need(a.key, "key", a))

    async def _do_scroll(self, a: Action) -> None:
        if a.element:
            await self._live_page.hover(a.element, timeout=self.action_timeout)
        await self._live_page.scroll(a.dx, a.dy)

    async def _do_pointer(self, a: Action) -> None:
        page = self._live_page
        x, y = _need(a.x, "x", a) * self._obs_now.viewport[0], _need(a.y, "y", a) * self._obs_now.viewport[1]
        if a.pointer == "click":
            await page.mouse_click(x, y)
        elif a.pointer == "double_click":
            await page.mouse_click(x, y, click_count=2)
        elif a.pointer == "drag_start":
            await page.mouse_down(x, y)
            self._dragging = True
        else:
            if not self._dragging:
                raise _Rejected("no_drag", "drag_end without a drag_start")
            await page.mouse_up(x, y, steps=12)
            self._dragging = False

    async def _do_goto(self, a: Action) -> None:
        url = _need(a.url, "url", a)
        url = self.base + url if url.startswith("/") else url  # paths are relative to the episode
        if not url.startswith(self.base + "/"):
            raise _Rejected("blocked", f"{a.url} is outside the app; stay on {self.base}/")
        await self._live_page.goto(url, timeout=15)

    async def _do_back(self, a: Action) -> None:
        await self._live_page.back()

    async def _do_forward(self, a: Action) -> None:
        await self._live_page.forward()

    async def _do_switch_tab(self, a: Action) -> None:
        await self._live_page.switch_tab(_need(a.tab, "tab", a))

    async def _do_wait(self, a: Action) -> None:
        # no ms: half a second; ms=0 (an unusable model answer, BrowserGym's no-op) waits not at all
        await self._live_page.wait_for_timeout(min(max(500 if a.ms is None else a.ms, 0), 5000))

    async def _do_request_approval(self, a: Action) -> None:
        """Ask the run's policy; a granted approval is recorded by the app's gate for one control (named by
        ``value``, its accessible name, or ``element``; neither: the first gated control used) and
        unlocks one request of it on the very next step."""
        control = a.value
        if control is None and a.element:
            el = self._obs_now.element(a.element)
            control = el.name if el is not None else None
        control = " ".join(control.split()) if control else None
        self.approved = bool(self.approval_policy(self._task_now, a.reason or ""))
        entry: dict = {"step": self.steps, "event": "granted" if self.approved else "denied", "control": control,
                       "reason": (a.reason or "")[:300], "grant": None}
        if self.approved:
            entry["grant"] = (await self._control("approve", self.episode_id, control, a.reason or ""))["id"]
            self._grants_made.append((self.steps, entry["grant"]))
        self.gate_log.append(entry)

    async def _do_done(self, a: Action) -> None:
        self.done_answer = a.answer


_ACTIONS = {k: getattr(ActionExecutor, f"_do_{k}") for k in ACTION_KINDS}
