"""Run arena tasks on an external self-hosted web app (one the arena does not serve).

Give an :class:`ExternalApp` three things about your app:

- ``base_url``: where it is served (``http://127.0.0.1:8080``); the browser may reach only
  this origin;
- ``reset_command``: a shell argv that puts the app back to a seed (``{seed}`` in any
  argument is replaced by the seed; the seed is also in ``WEBGAUGE_SEED``), exiting 0;
- ``state_query``: a Python callable returning the app's state as a dict of tables, each a
  list of row dicts (read your database, call your admin API...).

plus, optionally, the accessible names of its irreversible controls (``irreversible``) and the
requests that carry them out (``gated``: :class:`~webgauge.arena.core.gate.GatedRoute` values,
paths relative to ``base_url``). The arena does not serve an external app, so its approval gate
sits where the request leaves the browser: every request of the episode's page is asked of the
gate (:meth:`ExternalControl.request_gate`), and a gated one without an approval for its control
is answered 403 there and never reaches the app.
Then the arena's ordinary machinery runs on it: :meth:`ExternalApp.env` is an
:class:`~webgauge.arena.env.ArenaEnv` (or a
:class:`~webgauge.arena.variants.VariantEnv` with a variant), so tasks are
:class:`~webgauge.arena.core.task.Task` values judged by the same validators and
forbidden-effect rules on the queried state, episodes are played by
:func:`~webgauge.arena.env.episode.play` with the same traces and records, stale checks,
approval gate (on ``gated`` requests) and "moved" re-check apply, and the page-level variants (pop-ups,
perturbations, cohorts, slow loads, traps) apply; variants that change app data through the
arena's control API (flags, clock) do not exist for an external app.

The reset guarantee is checked, not assumed: the first reset to a seed records the state's
hash, and every later reset to that seed must reproduce it (else the episode fails with an
error that says the reset command does not restore the app). Every task's ``start_url`` is a
path on ``base_url``. The adapter speaks the env's control protocol (:class:`ExternalControl`),
so nothing in the env, agents or records knows the app is external.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from ..apps.control import ControlError
from ..apps.db import state_hash
from ..core.gate import ApprovalGate, GatedRoute, gated_route, refusal, request_params
from ..core.irreversible import IrreversibleControls

__all__ = ["ExternalApp", "ExternalControl", "ResetError", "normalize_state"]

State = dict[str, list[dict[str, Any]]]


class ResetError(RuntimeError):
    """The reset command failed, or did not restore the seed's state."""


@dataclass(frozen=True)
class ExternalApp:
    """An external app: where it is served, how to reset it, how to read its state."""

    name: str
    base_url: str
    reset_command: Sequence[str]
    state_query: Callable[[], Mapping[str, Sequence[Mapping[str, Any]]]]
    irreversible: tuple[str, ...] = ()  # accessible names of controls that cannot be undone
    gated: tuple[GatedRoute, ...] = ()  # the requests that carry them out (paths relative to base_url)
    reset_timeout_s: float = 60.0
    cwd: str | None = None  # working directory of the reset command
    reset_env: Mapping[str, str] = field(default_factory=dict)  # extra environment variables of the reset command

    def __post_init__(self) -> None:
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"external app {self.name!r}: base_url {self.base_url!r} must be an http(s) URL "
                             "such as http://127.0.0.1:8080")
        if isinstance(self.reset_command, str) or not self.reset_command:
            raise ValueError(f"external app {self.name!r}: reset_command must be an argv list, e.g. "
                             "['python', 'reset.py', '{seed}'], not a shell string")
        if not callable(self.state_query):
            raise ValueError(f"external app {self.name!r}: state_query must be a callable returning the state dict")

    @property
    def origin(self) -> str:
        p = urlsplit(self.base_url)
        return f"{p.scheme}://{p.netloc}"

    @property
    def controls(self) -> IrreversibleControls:
        """The declared irreversible controls, for every page of the app."""
        return IrreversibleControls.of({"": self.irreversible})

    def control(self) -> ExternalControl:
        return ExternalControl(self)

    def env(self, browser, variant=None, options=None, **kwargs):
        """An environment on this app (a :class:`VariantEnv` when ``variant`` is given); ``options``
        is an :class:`~webgauge.arena.env.EnvOptions` (``gate_destructive``...), keyword arguments
        go to :class:`~webgauge.arena.env.ArenaEnv` (``approval_policy``, ``hooks``...)."""
        from ..env import ArenaEnv, EnvOptions

        kwargs.setdefault("irreversible", self.controls)
        options = EnvOptions() if options is None else options
        if variant is None:
            return ArenaEnv(browser, self.origin, self.control(), options, **kwargs)
        from ..variants import VariantEnv, get_variant

        v = get_variant(variant) if isinstance(variant, str) else variant
        return VariantEnv(browser, self.origin, self.control(), v, options, **kwargs)

    def oracle(self, task, env=None, **kwargs):
        """The scripted oracle for ``task`` on this app (it asks approval before the app's declared controls)."""
        from ..agents.oracle import OracleAgent

        kwargs.setdefault("irreversible", self.controls)
        return OracleAgent(task, getattr(env, "variant", None), getattr(env, "events", None), **kwargs)


def _normalize(state: Mapping) -> State:
    """The queried state as the arena stores states: tables of plain row dicts, bytes hex-encoded."""
    if not isinstance(state, Mapping):
        raise ControlError(f"state_query returned {type(state).__name__}; it must return a dict of "
                           "table name -> list of row dicts")
    out: State = {}
    for table, rows in state.items():
        norm = []
        for row in rows:
            d = dict(row)
            for k, v in d.items():
                if isinstance(v, (bytes, bytearray, memoryview)):
                    d[k] = {"__bytes__": bytes(v).hex()}
            norm.append(d)
        out[str(table)] = norm
    return out


normalize_state = _normalize


def _loopback(host: str) -> bool:
    """A host name the browser reaches this machine's loopback by (``localhost``, ``127.x.y.z``, ``::1``)."""
    host = host.strip("[]").lower().rstrip(".")
    return host == "localhost" or host.endswith(".localhost") or host == "::1" or host.startswith("127.")


class ExternalControl:
    """The env's control protocol for an external app: one episode (the app is one world),
    resets through the reset command, state through the state query."""

    in_process = False  # the env calls it off the event loop (reset runs a process)

    def __init__(self, app: ExternalApp) -> None:
        self.app = app
        self._seed_hash: dict[int, str] = {}
        self._lock = threading.Lock()
        self.resets = 0
        self.gate = ApprovalGate()
        self._base_path = urlsplit(app.base_url).path.rstrip("/")

    def episode_base(self, eid: str) -> str:
        """The URL every task path is relative to (the app's base URL, no episode prefix)."""
        return self.app.base_url.rstrip("/")

    def create(self, seed: int, episode_id: str | None = None) -> dict:
        return {"id": episode_id or f"ext-{self.app.name}", "base_url": self.app.base_url}

    def _run_reset(self, seed: int) -> None:
        argv = [str(a).replace("{seed}", str(seed)) for a in self.app.reset_command]
        env = {**os.environ, **self.app.reset_env, "WEBGAUGE_SEED": str(seed)}
        try:
            proc = subprocess.run(argv, cwd=self.app.cwd, env=env, capture_output=True, text=True,
                                  timeout=self.app.reset_timeout_s)
        except FileNotFoundError as exc:
            raise ResetError(f"reset command of {self.app.name!r} not found: {argv[0]!r} ({exc}); "
                             "give the full argv, e.g. [sys.executable, 'reset.py', '{seed}']") from None
        except subprocess.TimeoutExpired:
            raise ResetError(f"reset command of {self.app.name!r} ran longer than {self.app.reset_timeout_s} s: "
                             f"{argv}") from None
        if proc.returncode != 0:
            raise ResetError(f"reset command of {self.app.name!r} exited {proc.returncode}: {argv}\n"
                             f"{(proc.stderr or proc.stdout).strip()[-2000:]}")

    def reset(self, eid: str, seed: int | None = None) -> dict:
        seed = 0 if seed is None else int(seed)
        with self._lock:
            self._run_reset(seed)
            self.gate.reset()
            self.resets += 1
            _, h = self.state(eid)
            expected = self._seed_hash.setdefault(seed, h)
        if h != expected:
            raise ResetError(f"the reset command of {self.app.name!r} did not restore seed {seed}: the state after "
                             f"this reset differs from the first one (hash {h[:12]} != {expected[:12]}); make the "
                             "reset recreate every table the state query reads, sessions and files included")
        return {"id": eid, "seed": seed, "hash": h, "seed_hash": expected}

    def state(self, eid: str) -> tuple[State, str]:
        try:
            raw = self.app.state_query()
        except Exception as exc:
            raise ControlError(f"state_query of {self.app.name!r} failed: {type(exc).__name__}: {exc}") from exc
        state = _normalize(raw)
        return state, state_hash(state)

    def hash(self, eid: str) -> str:
        return self.state(eid)[1]

    def inflight(self, eid: str) -> int:
        return 0  # the app's server is not ours to count: settling relies on load events and DOM quiet

    def writes(self, eid: str) -> list[dict]:
        return []  # no write log outside the arena's own server

    def set_flags(self, eid: str, **flags: Any) -> dict:
        raise ControlError(f"external app {self.app.name!r} has no arena control API for feature flags; "
                           "set them in its reset command")

    def set_clock(self, eid: str, now: str) -> str:
        raise ControlError(f"external app {self.app.name!r} has no arena control API for the clock")

    def delete(self, eid: str) -> None:
        pass

    # ---- the approval gate, at the page's requests ---------------------------
    def request_gate(self, method: str, url: str, headers: dict[str, str],
                     body: bytes | None = None) -> tuple[int, bytes, str] | None:
        """Asked by the episode's page before each request leaves the browser: None lets it go; a gated
        request without a waiting approval for its control gets ``(403, body, content type)`` instead.
        ``body`` is the request's body as sent (None: none, or the browser did not give it).

        The request is read the way the app's server could read it: any loopback host on the app's
        port, the path as sent and percent-decoded (inside the base path or not), a method tunnelled
        through an ``X-HTTP-Method-Override`` header, and the parameters of its query and body."""
        parts = urlsplit(url)
        app = urlsplit(self.app.base_url)
        same_host = parts.hostname == app.hostname or _loopback(parts.hostname or "") and _loopback(app.hostname or "")
        if parts.scheme != app.scheme or parts.port != app.port or not same_host:
            return None
        lower = {k.lower(): v for k, v in headers.items()}
        has_body = method.upper() not in ("GET", "HEAD", "OPTIONS")
        unknown = has_body and body is None and int(lower.get("content-length", "0") or 0) > 0
        params = None if unknown else request_params(parts.query, body, lower.get("content-type", ""))
        methods = [method]
        for h in ("x-http-method-override", "x-http-method", "x-method-override"):
            if method.upper() == "POST" and lower.get(h):
                methods.append(lower[h].strip())
        paths = []
        for p in dict.fromkeys((parts.path, unquote(parts.path))):
            paths.append(p[len(self._base_path):] or "/" if p.startswith(self._base_path) else p)
        route = next((r for m in methods for p in paths if (r := gated_route(self.app.gated, m, p, params))), None)
        if route is None:
            return None
        shown = paths[0] + (f"?{parts.query}" if parts.query else "")
        if self.gate.check(route, method, shown)["outcome"] != "blocked":
            return None
        return refusal(route.control, headers)

    def set_gate(self, eid: str, enforce: bool) -> bool:
        self.gate.enforce = bool(enforce)
        return self.gate.enforce

    def approve(self, eid: str, control: str | None, reason: str = "") -> dict:
        return dict(self.gate.grant(control, reason))

    def close_step(self, eid: str, since: int = 0, lapse_through: int | None = None) -> dict:
        events, lapsed = self.gate.close_step(since, lapse_through)
        return {"events": events, "lapsed": lapsed}

    def health(self) -> dict:
        return {"ok": True, "external": self.app.name}
