"""webgauge's own client of ``webgauge arena serve``: the env's control protocol on a leased slot.

:class:`ServiceControl` lets an :class:`~webgauge.arena.env.ArenaEnv` (and so
:func:`~webgauge.arena.env.episode.play`, the oracle, model agents, records) run its episodes
in a service's slot instead of an in-process server: ``ArenaEnv(browser, control.app_url,
control)``, then ``control.family = task.family`` before each ``env.reset(task)``.
:meth:`ServiceControl.validate` asks the service for its verdict (the agent's answer included).
"""

from __future__ import annotations

from typing import Any

from ..apps.control import ControlError, KeptAliveHTTP, json_call
from .serve_api import EffectsReply, LeaseReply, ResetReply, State, TraceReply, VerdictReply, VersionReply

__all__ = ["ServiceControl", "ServiceProcess"]


class ServiceControl:
    in_process = False

    def __init__(self, url: str, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self._http = KeptAliveHTTP(self.url, timeout)  # a kept-alive connection per calling thread
        self.lease: str | None = None
        self.slot: int | None = None
        self.family: str | None = None
        self.heldout: int | None = None
        self.base_url = ""
        self.last_reset: ResetReply | None = None
        info: VersionReply = self._call("GET", "/v1/version")
        self.app_url = info["app_url"]
        self.api_version = info["version"]

    def _call(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Any:
        return json_call(self._http, method, path, payload, {"X-Webgauge-Lease": self.lease} if self.lease else None)

    def _slot(self, op: str = "") -> str:
        if self.slot is None:
            raise ControlError("no slot reserved: the env creates its episode first")
        return f"/v1/slots/{self.slot}" + (f"/{op}" if op else "")

    # ---- the env's control protocol ------------------------------------------
    def episode_base(self, eid: str) -> str:
        return self.base_url

    def create(self, seed: int, episode_id: str | None = None) -> dict[str, str]:
        if self.slot is None:
            r: LeaseReply = self._call("POST", "/v1/slots")
            self.slot, self.lease = r["slot"], r["lease"]
        return {"id": f"slot{self.slot}"}

    def reset(self, eid: str, seed: int | None = None) -> ResetReply:
        if not self.family:
            raise ControlError("set ServiceControl.family to the task's family before env.reset(task)")
        payload: dict[str, Any] = {"family": self.family}
        if self.heldout is not None:
            payload["heldout"] = self.heldout
        else:
            payload["seed"] = 0 if seed is None else int(seed)
        r: ResetReply = self._call("POST", self._slot("reset"), payload)
        self.last_reset = r
        self.base_url = r["base_url"]
        return r

    def state(self, eid: str) -> tuple[State, str]:
        r = self._call("GET", self._slot("state"))
        return r["state"], r["hash"]

    def hash(self, eid: str, fresh: bool = False) -> str:
        return self.state(eid)[1]

    def inflight(self, eid: str) -> int:
        return int(self._call("GET", self._slot("inflight"))["inflight"])

    def writes(self, eid: str) -> list[dict[str, Any]]:
        trace: TraceReply = self._call("GET", self._slot("trace"))
        return trace["writes"]

    def set_gate(self, eid: str, enforce: bool) -> bool:
        return self._call("POST", self._slot("gate"), {"enforce": bool(enforce)})["enforce"]

    def approve(self, eid: str, control: str | None, reason: str = "") -> dict[str, Any]:
        return self._call("POST", self._slot("approvals"), {"control": control, "reason": reason})

    def close_step(self, eid: str, since: int = 0, lapse_through: int | None = None) -> dict[str, Any]:
        return self._call("POST", self._slot("step"), {"since": since, "lapse_through": lapse_through})

    def delete(self, eid: str) -> None:
        if self.slot is not None:
            self._call("DELETE", self._slot())
            self.slot = self.lease = None

    def health(self) -> VersionReply:
        return self._call("GET", "/v1/version")

    # ---- beyond the env's protocol -------------------------------------------
    def validate(self, answer: str | None, final: bool = False) -> VerdictReply:
        """The service's verdict on the slot's state now, with the agent's ``answer``; ``final`` ends the
        episode (the service seals that verdict and returns it for every later validate until a reset)."""
        return self._call("POST", self._slot("validate"), {"answer": answer, "final": final})

    def trace(self) -> TraceReply:
        return self._call("GET", self._slot("trace"))

    def effects(self) -> EffectsReply:
        return self._call("GET", self._slot("effects"))


class ServiceProcess:
    """``webgauge arena serve`` in a child process (``with ServiceProcess(slots=2) as svc: svc.url``);
    ``env`` adds environment variables (``WEBGAUGE_ARENA_SECRET`` for held-out tasks)."""

    def __init__(self, slots: int = 2, env: dict[str, str] | None = None, start_timeout: float = 60.0) -> None:
        import os
        import subprocess
        import sys
        import time

        child_env = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
        self.proc = subprocess.Popen([sys.executable, "-m", "webgauge.cli.main", "arena", "serve", "--slots",
                                      str(slots)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env)
        self.url = ""
        deadline = time.monotonic() + start_timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline() if self.proc.stdout else ""
            if not line:
                break
            if line.startswith("control API:"):
                self.url = line.split()[2]
                return
        self.close()
        raise RuntimeError(
            f"`webgauge arena serve` did not start: {self.proc.stderr.read()[-2000:] if self.proc.stderr else ''}")

    def close(self) -> None:
        import signal
        import subprocess

        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # the service stops on SIGTERM or SIGINT, whatever it inherited
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> ServiceProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
