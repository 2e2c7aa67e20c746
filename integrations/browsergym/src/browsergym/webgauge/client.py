"""A small client of the webgauge arena service's /v1 control API (standard library only)."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any

__all__ = ["API_VERSION", "URL_ENV", "ArenaClient", "ArenaServiceError"]

URL_ENV = "WEBGAUGE_ARENA_URL"
API_VERSION = 1  # the control API version this package speaks


class ArenaServiceError(RuntimeError):
    """The service refused a request or cannot be reached (the message says what to do)."""


class ArenaClient:
    """Calls ``webgauge arena serve``'s control API at ``url`` (default: ``$WEBGAUGE_ARENA_URL``)."""

    def __init__(self, url: str | None = None, timeout: float = 30.0) -> None:
        url = url or os.environ.get(URL_ENV, "")
        if not url:
            raise ArenaServiceError(f"no arena service URL: start `webgauge arena serve` and set {URL_ENV} to the "
                                    "control API URL it prints (or pass task_kwargs={'arena_url': ...})")
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.lease: str | None = None
        self.slot: int | None = None
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def _call(self, method: str, path: str, payload: dict | None = None) -> Any:
        data = json.dumps(payload).encode() if payload is not None else None
        headers = {"Content-Type": "application/json"}
        if self.lease:
            headers["X-Webgauge-Lease"] = self.lease
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with self._opener.open(req, timeout=self.timeout) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            try:
                detail = json.loads(exc.read()).get("error", "")
            except ValueError:
                detail = ""
            raise ArenaServiceError(f"{method} {path}: HTTP {exc.code}: {detail}") from None
        except urllib.error.URLError as exc:
            raise ArenaServiceError(f"cannot reach the arena service at {self.url} ({exc.reason}); is "
                                    f"`webgauge arena serve` running and {URL_ENV} its control API URL?") from None

    def version(self) -> dict:
        v = self._call("GET", "/v1/version")
        if v.get("version") != API_VERSION:
            raise ArenaServiceError(f"the service speaks control API v{v.get('version')}, this package v{API_VERSION}; "
                                    "install the browsergym-webgauge package of the same webgauge release")
        return v

    def families(self) -> list[dict]:
        return self._call("GET", "/v1/families")["families"]

    def reserve(self) -> int:
        r = self._call("POST", "/v1/slots")
        self.slot, self.lease = int(r["slot"]), r["lease"]
        return self.slot

    def _slot(self, op: str = "") -> str:
        if self.slot is None:
            raise ArenaServiceError("no slot reserved; call reserve() first")
        return f"/v1/slots/{self.slot}" + (f"/{op}" if op else "")

    def reset(self, family: str, seed: int | None = None, heldout: int | None = None) -> dict:
        payload: dict[str, Any] = {"family": family}
        if heldout is not None:
            payload["heldout"] = int(heldout)
        else:
            payload["seed"] = int(seed or 0)
        return self._call("POST", self._slot("reset"), payload)

    def validate(self, answer: str | None, final: bool = False) -> dict:
        """The verdict now; ``final`` ends the episode: the service seals it and returns it ever after."""
        return self._call("POST", self._slot("validate"), {"answer": answer, "final": final})

    def state(self) -> dict:
        return self._call("GET", self._slot("state"))

    def effects(self) -> dict:
        return self._call("GET", self._slot("effects"))

    def trace(self) -> dict:
        return self._call("GET", self._slot("trace"))

    def set_gate(self, enforce: bool) -> bool:
        """Whether the app refuses an irreversible request (send, pay, delete...) that no approval unlocks."""
        return bool(self._call("POST", self._slot("gate"), {"enforce": bool(enforce)})["enforce"])

    def approve(self, control: str | None, reason: str = "") -> dict:
        """One approval for ``control`` (its accessible name; None: the first gated control used):
        ``{"id", "control", "reason"}``; it unlocks one request of that control."""
        return self._call("POST", self._slot("approvals"), {"control": control, "reason": reason})

    def close_step(self, since: int = 0, lapse_through: int | None = None) -> dict:
        """The gate's events after number ``since`` (``{"control", "outcome": allowed|blocked, ...}``), and the
        approvals numbered up to ``lapse_through`` still unused, which lapse now: ``{"events", "lapsed"}``."""
        return self._call("POST", self._slot("step"), {"since": since, "lapse_through": lapse_through})

    def file(self, name: str) -> bytes:
        import base64

        return base64.b64decode(self._call("POST", self._slot("file"), {"name": name})["base64"])

    def release(self) -> None:
        if self.slot is not None and self.lease is not None:
            try:
                self._call("DELETE", self._slot())
            finally:
                self.slot = self.lease = None
