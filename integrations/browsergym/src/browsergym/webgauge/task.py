"""One webgauge arena task as a BrowserGym task: the world lives in a slot of ``webgauge arena serve``.

``setup`` reserves a slot, resets it to the family at the episode's seed (or to a held-out
task, ``heldout=<index>``), and opens the start URL in BrowserGym's own page; ``validate``
asks the service for the verdict, with the agent's last ``send_msg_to_user`` text as its
answer; ``teardown`` releases the slot. An episode ends when the agent sends a message to
the user (or reports the task infeasible); the reward is then 1.0 when the task's validator
passes on the stored state and no forbidden effect occurred, else 0.0. That first verdict is
final: the service seals it, and a later message to the user gets the same verdict back.

With ``gate=True`` the app refuses every request of a control it declares irreversible (send,
place order, pay, delete, revoke) that no approval unlocks, as ``webgauge arena run
--gate-destructive`` does. The agent asks the user in BrowserGym's chat, naming the control:
``send_msg_to_user("request_approval: Delete user")``. Such a message does not end the episode;
the task answers it as the user (``approved: Delete user`` or ``denied: ...``, by ``approval``:
``grant`` or ``deny``), and an approval unlocks one request of that control on the very next
step (unused, it lapses). The gate's refusals and uses are in each step's ``task_info["gate"]``.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from browsergym.core.task import AbstractBrowserTask

from .chat import APPROVAL_PREFIX, agent_answer, approval_request
from .client import ArenaClient
from .page_watch import PageWatch

__all__ = ["APPROVAL_POLICIES", "APPROVAL_PREFIX", "FAMILIES", "WebgaugeTask", "approval_request", "family_table"]

APPROVAL_POLICIES = ("grant", "deny")


def family_table() -> dict[str, dict]:
    """The families this package registers (name -> pattern, viewport, step budget)."""
    rows = json.loads(resources.files(__package__).joinpath("families.json").read_text())
    return {r["family"]: r for r in rows}


FAMILIES = family_table()


class WebgaugeTask(AbstractBrowserTask):
    """``family`` at the episode's seed (``env.reset(seed=...)``; None means seed 0), or the
    held-out task ``heldout`` (an index; the service holds the secret and never sends the seed).
    Each observation waits (up to ``settle_ms``) for the page's requests and DOM changes to settle."""

    def __init__(self, seed: int | None, family: str, arena_url: str | None = None, heldout: int | None = None,
                 slow_mo: int = 0, timeout: int = 5000, settle_ms: int = 10_000, gate: bool = False,
                 approval: str = "grant") -> None:
        super().__init__(0 if seed is None else seed)
        if family not in FAMILIES:
            raise ValueError(f"unknown webgauge family {family!r}; registered: browsergym/webgauge.<family> for "
                             f"{', '.join(sorted(FAMILIES))}")
        if approval not in APPROVAL_POLICIES:
            raise ValueError(f"approval={approval!r}: choose one of {', '.join(APPROVAL_POLICIES)}")
        if gate and FAMILIES[family].get("app"):
            raise ValueError(f"gate=True: {family} runs on the real app {FAMILIES[family]['app']!r}, whose requests "
                             "this package cannot gate; use `webgauge arena run --gate-destructive` for it")
        self.family = family
        self.task_seed = 0 if seed is None else int(seed)
        self.heldout = heldout
        self.arena_url = arena_url
        vp = FAMILIES[family]["viewport"]
        self.viewport = {"width": int(vp["width"]), "height": int(vp["height"])}
        self.device_scale_factor = float(vp.get("device_scale_factor", 1.0))
        self.slow_mo = slow_mo
        self.timeout = timeout
        self.settle_ms = int(settle_ms)  # the longest wait for the page to settle before an observation
        self.gate, self.approval = bool(gate), approval
        self._chat_seen = 0  # chat messages already read by validate
        self._gate_seen = 0  # gate events already reported
        self._lapse: int | None = None  # the approval that lapses unless the step now ending used it
        self.client: ArenaClient | None = None
        self.info: dict = {}
        self._files_dir: Path | None = None

    @classmethod
    def get_task_id(cls) -> str:
        return "webgauge"

    def setup(self, page) -> tuple[str, dict]:
        self.client = ArenaClient(self.arena_url)
        self.client.version()
        self.client.reserve()
        try:
            r = self.client.reset(self.family, seed=self.task_seed, heldout=self.heldout)
            if not FAMILIES[self.family].get("app"):  # set each episode: the slot keeps the last user's setting
                self.client.set_gate(self.gate)
            self._chat_seen, self._gate_seen, self._lapse = 0, 0, None
            # the control API is for this process only: the page may not reach it
            control = urlsplit(self.client.url)
            page.context.route(f"{control.scheme}://{control.netloc}/**", lambda route: route.abort())
            # requests and DOM changes followed from outside the page's world (see page_watch.py), from the
            # start page's first request, and in every tab the episode opens
            # the task's device scale factor, as BrowserGym applies one (its _bgym_scale_factor): screenshots
            # at that many device pixels per CSS pixel, element boxes in screenshot pixels, coordinate actions
            # read in screenshot pixels; the page's devicePixelRatio is the same (page_watch.py)
            page._bgym_scale_factor = self.device_scale_factor
            PageWatch.of(page).emulate_scale()
            PageWatch.follow(page.context, self.device_scale_factor)
            goal = r["goal"]
            files = {}
            if r.get("files"):
                self._files_dir = Path(tempfile.mkdtemp(prefix="webgauge-files-"))
                for name in r["files"]:
                    path = self._files_dir / name
                    path.write_bytes(self.client.file(name))
                    files[name] = str(path)
                goal += "\nFiles you may upload: " + ", ".join(files.values())
            page.goto(r["start_url"], timeout=max(self.timeout, 30_000))  # a loaded machine loads slowly
            PageWatch.of(page).settle(cap_ms=self.settle_ms)  # what the page draws from its API is observed
        except BaseException:
            self.teardown()
            raise
        self.info = {"task_id": r["task_id"], "family": r["family"], "slice": r["slice"], "seed": r["seed"],
                     "slot": self.client.slot, "start_url": r["start_url"], "max_steps": r["max_steps"],
                     "files": files, "device_scale_factor": self.device_scale_factor}
        return goal, dict(self.info)

    def validate(self, page, chat_messages: list) -> tuple[float, bool, str, dict]:
        """The service's verdict once the agent has answered (its last message to the user) or
        reported the task infeasible; before that no reward and not done."""
        if self.client is None:
            raise RuntimeError("validate() before setup()")
        PageWatch.of(page).settle(cap_ms=self.settle_ms)  # BrowserGym observes right after this
        info: dict = {}
        reply = ""
        if self.gate:
            # what the gate did in the step now ending; the approval given before it lapses unless used
            r = self.client.close_step(self._gate_seen, self._lapse)
            self._gate_seen += len(r["events"])
            self._lapse = None
            info["gate"] = [{k: e[k] for k in ("control", "outcome", "path")} for e in r["events"]]
            if r["lapsed"]:
                info["lapsed"] = [g["control"] for g in r["lapsed"]]
        for m in chat_messages[self._chat_seen:]:
            control = approval_request(m)
            if control is None:
                continue
            if self.gate and self.approval == "grant":
                self._lapse = self.client.approve(control or None, str(m.get("message", "")))["id"]
                reply = f"approved: {control or 'the next irreversible control'}"
            else:
                reply = f"denied: {control}" if self.gate else "no approval is needed here (the gate is off)"
            info["approval"] = reply
        self._chat_seen = len(chat_messages)
        answer, done = agent_answer(chat_messages)
        if not done:
            self.client.validate(None)  # not final: the service's trace records the state so far
            return 0.0, False, reply, info
        # the first answer ends the episode: the service seals that verdict, and any later call (another
        # message to the user) gets the same one back, never a fresh judgement
        verdict = self.client.validate(answer, final=True)
        return float(verdict["reward"]), True, reply, {**info, "verdict": verdict, "answer": answer}

    def teardown(self) -> None:
        if self.client is not None:
            try:
                self.client.release()
            finally:
                self.client = None
        if self._files_dir is not None:
            shutil.rmtree(self._files_dir, ignore_errors=True)
            self._files_dir = None
