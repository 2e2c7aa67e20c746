"""``webgauge arena serve``: the apps, the episode databases and a versioned control API as one
long-running loopback service with N episode slots, for harnesses in other processes (a
BrowserGym task package, a remote runner).

A client reserves a slot (``POST /v1/slots``: a slot index and a lease token), resets it to a
task (``POST /v1/slots/<i>/reset`` with a family and a public seed, or a held-out index when
the service holds a secret), points its own browser at the returned start URL, and asks for
the verdict (``POST /v1/slots/<i>/validate`` with the agent's answer): the task's validator on
the stored state plus the answer, and its forbidden effects on the change since the seed. It
is judged by :func:`judge`, the same functions the in-process episode loop uses, so the two
paths give the same verdicts. Every slot route needs the lease in the ``X-Webgauge-Lease``
header: a page in the agent's browser cannot send that header cross-origin (no CORS), so it
cannot reset, read or judge a slot. The secret never leaves the service: a held-out reset
returns an opaque task id and no seed, and a held-out verdict names no expected values.

The API is described in ``docs/arena-serve.md``; :data:`API_VERSION` is bumped on any
incompatible change and ``GET /v1/version`` reports it.
"""

from __future__ import annotations

import base64
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..apps.server import ArenaServer, ControlRefusal
from ..core.diff import diff_states
from ..core.effects import check_effects
from ..core.task import Task
from ..core.verdict import Verdict, judge
from ..registry import REAL_FAMILIES, app_of, is_installed, real_tasks
from .serve_api import (
    EffectsReply,
    FamilyRow,
    FileReply,
    LeaseReply,
    Params,
    ResetReply,
    State,
    StateReply,
    TraceEvent,
    TraceReply,
    VerdictReply,
)

__all__ = ["API_VERSION", "ArenaService", "Verdict", "family_table", "judge", "task_for", "verdict_reply"]

API_VERSION = 1
LEASE_HEADER = "x-webgauge-lease"
MAX_TRACE = 500  # trace entries kept per slot (the oldest are dropped)


def verdict_reply(verdict: Verdict, heldout: bool = False, final: bool = False) -> VerdictReply:
    """JSON view of a verdict; held out (``sealed``): counts instead of messages that may name targets.
    ``final``: the slot's episode is over and this verdict will not change."""
    if heldout:
        return {"reward": verdict.reward, "success": verdict.success, "errors": len(verdict.errors),
                "forbidden_violations": len(verdict.forbidden_violations), "sealed": True, "final": final}
    return {"reward": verdict.reward, "success": verdict.success, "errors": list(verdict.errors),
            "forbidden_violations": list(verdict.forbidden_violations), "sealed": False, "final": final}


def _family_keys() -> dict[str, str]:
    """Task family name (``mail.forward``) -> its builder's key in ``FAMILIES`` (``work.forward_mail``)."""
    from ..tasks import FAMILIES, seed_state

    state = seed_state(0)
    return {fam(0, state).family: key for key, fam in FAMILIES.items()}


def family_table() -> list[FamilyRow]:
    """Every family of the registry with what a client needs before a reset (sorted by name): its
    app (None: the arena's own), pattern, viewport, step budget and whether it offers files
    (BrowserGym sets the viewport first). Real-app families are listed whether or not their app
    is installed here (``GET /v1/families`` says which apps are)."""
    from ..tasks import FAMILIES, seed_state

    state = seed_state(0)
    tasks = [fam(0, state) for fam in FAMILIES.values()]
    tasks += [t for app in REAL_FAMILIES for t in real_tasks(app, (0,))]
    rows: list[FamilyRow] = [{"family": t.family, "app": app_of(t.family), "pattern": t.pattern, "visual": t.visual,
                              "viewport": t.viewport.to_dict(), "max_steps": t.max_steps, "files": bool(t.files)}
                             for t in tasks]
    return sorted(rows, key=lambda r: r["family"])


def task_for(family: str, seed: int, keys: dict[str, str] | None = None) -> Task:
    """The base task of ``family`` at ``seed`` (the very task the registry's ``build_tasks`` gives)."""
    from ..tasks import FAMILIES, seed_state

    app = app_of(family)
    if app is not None:
        return real_tasks(app, (seed,), [family])[0]
    keys = _family_keys() if keys is None else keys
    if family not in keys:
        raise KeyError(f"no family {family!r}; GET /v1/families lists them")
    return FAMILIES[keys[family]](seed, seed_state(seed))


@dataclass
class Slot:
    index: int
    episode_id: str
    lease: str | None = None
    task: Task | None = None
    heldout: bool = False
    app: str | None = None  # the real app whose live world the slot holds (None: an episode of the arena's own)
    seed_state: State = field(default_factory=dict)
    last_state: State = field(default_factory=dict)
    trace: list[TraceEvent] = field(default_factory=list)
    verdict: VerdictReply | None = None  # sealed by the first final validate; the episode is over
    last_used: float = 0.0  # time.monotonic() of the lease's last call
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


class ArenaService(ArenaServer):
    """The arena server with ``slots`` episode slots and the ``/v1`` API on its control port.

    The older ``/episodes`` routes are not served: every world change goes through a leased slot.
    """

    def __init__(self, slots: int = 4, *, secret: bytes | None = None, host: str = "127.0.0.1",
                 app_port: int = 0, control_port: int = 0, lease_timeout: float = 900.0) -> None:
        if slots < 1:
            raise ValueError(f"slots must be at least 1, got {slots}")
        super().__init__(host, app_port, control_port)
        self._secret = secret
        self.lease_timeout = lease_timeout  # a lease unused this long is reclaimed (its client died)
        self._keys = _family_keys()
        self._families = family_table()
        self._slots_lock = threading.Lock()
        self._real: dict[str, Any] = {}  # real app -> its control (one live world each; see _reset_real)
        self.slots = [Slot(i, self.create_episode(0, f"slot{i}-{secrets.token_hex(4)}").id) for i in range(slots)]

    # ---- dispatch ----------------------------------------------------------
    def control(self, m: str, segs: list[str], p: Params, headers: dict[str, str] | None = None) -> Any:
        if not segs or segs[0] != "v1":
            raise KeyError(f"no route /{'/'.join(segs)}: this service speaks /v1 (GET /v1/version)")
        route = segs[1:]
        if route == ["version"] and m == "GET":
            from ... import __version__

            return {"api": "webgauge-arena", "version": API_VERSION, "webgauge": __version__,
                    "app_url": self.app_url, "slots": len(self.slots), "families": len(self._families),
                    "heldout": self._secret is not None}
        if route == ["families"] and m == "GET":
            apps = {a: {"installed": is_installed(a), "install": f"webgauge arena apps install {a}"}
                    for a in REAL_FAMILIES}
            return {"families": self._families, "apps": apps}
        if route == ["slots"] and m == "POST":
            return self._reserve()
        if route == ["slots"] and m == "GET":
            return {"slots": [{"slot": s.index, "reserved": s.lease is not None} for s in self.slots]}
        if len(route) < 2 or route[0] != "slots":
            raise KeyError(f"no route {m} /{'/'.join(segs)}")
        slot = self._leased(route[1], (headers or {}).get(LEASE_HEADER))
        op = "/".join(route[2:])
        handler = _SLOT_ROUTES.get((m, op))
        if handler is None:
            raise KeyError(f"no route {m} /{'/'.join(segs)}")
        with slot.lock:
            return handler(self, slot, p)

    def _reserve(self) -> LeaseReply:
        with self._slots_lock:
            slot = next((s for s in self.slots if s.lease is None), None)
            if slot is None:  # reclaim the longest-idle lease of a client that stopped calling
                now = time.monotonic()
                idle = [s for s in self.slots if now - s.last_used > self.lease_timeout]
                slot = min(idle, key=lambda s: s.last_used) if idle else None
                if slot is not None:
                    with slot.lock:
                        self._release(slot, {})
            if slot is None:
                raise ControlRefusal(409, f"all {len(self.slots)} slots are reserved; release one "
                                          "(DELETE /v1/slots/<i>), start the service with more --slots, or "
                                          f"wait: a lease unused for {self.lease_timeout:g} s is reclaimed")
            slot.lease, slot.last_used = secrets.token_urlsafe(18), time.monotonic()
        return {"slot": slot.index, "lease": slot.lease}

    def _leased(self, index: str, lease: str | None) -> Slot:
        try:
            slot = self.slots[int(index)]
        except (ValueError, IndexError):
            raise KeyError(f"no slot {index!r}; slots are 0..{len(self.slots) - 1}") from None
        if slot.lease is None or lease is None or not secrets.compare_digest(slot.lease, lease):
            raise ControlRefusal(403, f"slot {slot.index}: send the lease POST /v1/slots returned in the "
                                      "X-Webgauge-Lease header")
        slot.last_used = time.monotonic()
        return slot

    # ---- slot routes ---------------------------------------------------------
    def _release(self, slot: Slot, p: Params) -> dict[str, int]:
        self.episode(slot.episode_id).reset(0)
        slot.app = None  # the real app's world is free for another slot (reset on its next reset); the
        # reclaim in _reserve holds _slots_lock here already, and one assignment needs no lock
        slot.lease, slot.task, slot.heldout, slot.verdict = None, None, False, None
        slot.seed_state, slot.last_state, slot.trace = {}, {}, []
        return {"released": slot.index}

    def _task(self, p: Params) -> tuple[Task, bool]:
        family = str(p.get("family") or "")
        if "heldout" in p and p["heldout"] is not None:
            if self._secret is None:
                raise ValueError("this service has no held-out secret; start it with --secret FILE "
                                 "(or WEBGAUGE_ARENA_SECRET) to serve held-out tasks")
            from ..tasks.heldout import _opaque, heldout_seeds

            k = int(p["heldout"])
            if not 0 <= k < 10_000:
                raise ValueError(f"heldout index {k} out of range 0..9999")
            seed = heldout_seeds(self._secret, k + 1)[k]
            return _opaque(task_for(family, seed, self._keys), self._secret), True
        from ..content.pools import HELDOUT_BASE

        seed = int(p.get("seed", 0))
        if not 0 <= seed < HELDOUT_BASE:
            raise ValueError(f"seed {seed}: public seeds are 0..2**64-1 (held-out tasks: send heldout=<index>)")
        return task_for(family, seed, self._keys), False

    def _reset(self, slot: Slot, p: Params) -> ResetReply:
        task, heldout = self._task(p)
        app = app_of(task.family)
        if app is not None:
            return self._reset_real(slot, task, heldout, app)
        with self._slots_lock:
            slot.app = None
        t0 = time.perf_counter()
        ep = self.episode(slot.episode_id)
        ep.reset(task.seed)
        st, h = ep.db.snapshot()
        seed_hash = self.templates.seed_hash(task.seed)
        if h != seed_hash:
            raise RuntimeError(f"reset of slot {slot.index} did not restore the seed (hash mismatch)")
        slot.task, slot.heldout, slot.seed_state, slot.last_state = task, heldout, dict(st), dict(st)
        slot.verdict = None
        slot.trace = [{"t": time.time(), "event": "reset", "task_id": task.id}]
        pub = task.public()
        return {"task_id": task.id, "family": task.family, "goal": task.instruction,
                "start_url": self.episode_url(slot.episode_id, task.start_url),
                "base_url": self.episode_url(slot.episode_id, ""), "viewport": pub["viewport"],
                "max_steps": task.max_steps, "files": pub.get("files", []),
                "slice": "heldout" if heldout else "public", "seed": None if heldout else task.seed,
                "hash": h, "seed_hash": seed_hash, "ms": round((time.perf_counter() - t0) * 1000, 2)}

    def _reset_real(self, slot: Slot, task: Task, heldout: bool, app: str) -> ResetReply:
        """Reset ``slot`` to a real app's task: the app's server (started on first use) restored to the
        task's seed. An installed app is one live world, so one slot at a time holds it."""
        from ..realapps.base import AppNotInstalled
        from ..realapps.live import live_app
        from .external import ResetError

        with self._slots_lock:
            holder = next((s for s in self.slots if s is not slot and s.app == app), None)
            if holder is not None:
                raise ControlRefusal(409, f"real app {app!r} is one live world and slot {holder.index} holds it; "
                                          f"release that slot first (DELETE /v1/slots/{holder.index})")
            slot.app = app
        t0 = time.perf_counter()
        try:
            rapp = live_app(app)
            control = self._real.setdefault(app, rapp.control())  # keeps each seed's first hash
            r = control.reset(slot.episode_id, task.seed)
            st, h = control.state(slot.episode_id)
        except AppNotInstalled as exc:
            with self._slots_lock:
                slot.app = None
            raise ControlRefusal(409, str(exc)) from None
        except (ResetError, RuntimeError) as exc:
            with self._slots_lock:
                slot.app = None
            raise ControlRefusal(500, f"reset of real app {app!r} failed: {exc}") from None
        slot.task, slot.heldout, slot.seed_state, slot.last_state = task, heldout, dict(st), dict(st)
        slot.trace = [{"t": time.time(), "event": "reset", "task_id": task.id}]
        pub = task.public()
        base = rapp.base_url.rstrip("/")
        return {"task_id": task.id, "family": task.family, "goal": task.instruction,
                "start_url": base + task.start_url, "base_url": base, "viewport": pub["viewport"],
                "max_steps": task.max_steps, "files": pub.get("files", []),
                "slice": "heldout" if heldout else "public", "seed": None if heldout else task.seed,
                "hash": h, "seed_hash": r["seed_hash"], "ms": round((time.perf_counter() - t0) * 1000, 2)}

    def _read(self, slot: Slot) -> tuple[State, str]:
        """The slot's stored state and its hash: the real app's when the slot holds one."""
        if slot.app is not None:
            return self._real[slot.app].state(slot.episode_id)
        st, h = self.episode(slot.episode_id).db.snapshot()
        return dict(st), h

    def _need_task(self, slot: Slot) -> Task:
        if slot.task is None:
            raise ValueError(f"slot {slot.index} has no task; POST /v1/slots/{slot.index}/reset first")
        return slot.task

    def _state_now(self, slot: Slot, event: str, answer: str | None = None) -> State:
        """The stored state now; the change since the last read goes into the slot's trace."""
        st, _ = self._read(slot)
        diff = diff_states(slot.last_state, st)
        if not diff.empty or answer is not None:
            slot.trace.append({"t": time.time(), "event": event, "diff": diff.to_dict(), "answer": answer})
            del slot.trace[:-MAX_TRACE]
        slot.last_state = st
        return st

    def _state(self, slot: Slot, p: Params) -> StateReply:
        self._need_task(slot)
        st = self._state_now(slot, "state")
        return {"state": st, "hash": self._read(slot)[1] if slot.app else self.episode(slot.episode_id).db.hash()}

    def _validate(self, slot: Slot, p: Params) -> VerdictReply:
        """The verdict on the slot's state now with the agent's answer. ``final: true`` ends the episode:
        that verdict is sealed, and every later validate of the lease returns it unchanged (the state
        and any other answer are not judged again) until the next reset."""
        task = self._need_task(slot)
        if slot.verdict is not None:
            slot.trace.append({"t": time.time(), "event": "validate refused: the episode is over", "diff": {},
                               "answer": None})
            del slot.trace[:-MAX_TRACE]
            return slot.verdict
        answer = p.get("answer")
        if answer is not None and not isinstance(answer, str):
            raise ValueError("answer must be a string (the agent's message) or null")
        final = bool(p.get("final", False))
        st = self._state_now(slot, "validate", answer)
        reply = verdict_reply(judge(task, slot.seed_state, st, answer), slot.heldout, final)
        if final:
            slot.verdict = reply
        return reply

    def _gate(self, slot: Slot, p: Params) -> dict[str, Any]:
        self._need_task(slot)
        return ArenaServer.control(self, "POST", ["episodes", slot.episode_id, "gate"], dict(p))

    def _approve(self, slot: Slot, p: Params) -> dict[str, Any]:
        self._need_task(slot)
        return ArenaServer.control(self, "POST", ["episodes", slot.episode_id, "approvals"], dict(p))

    def _close_step(self, slot: Slot, p: Params) -> dict[str, Any]:
        self._need_task(slot)
        return ArenaServer.control(self, "POST", ["episodes", slot.episode_id, "step"], dict(p))

    def _effects(self, slot: Slot, p: Params) -> EffectsReply:
        task = self._need_task(slot)
        st = self._state_now(slot, "effects")
        violations = check_effects(task.forbidden_effects, diff_states(slot.seed_state, st))
        if slot.heldout:
            return {"forbidden_violations": len(violations), "sealed": True}
        return {"forbidden_violations": violations, "rules": [e.describe() for e in task.forbidden_effects],
                "sealed": False}

    def _trace(self, slot: Slot, p: Params) -> TraceReply:
        self._need_task(slot)
        self._state_now(slot, "trace")
        if slot.app is not None:  # a real app's own server keeps no write log of ours
            return {"trace": list(slot.trace), "writes": []}
        ep = self.episode(slot.episode_id)
        with ep.db.lock:
            writes = list(ep.writes)
        return {"trace": list(slot.trace), "writes": writes}

    def _inflight(self, slot: Slot, p: Params) -> dict[str, int]:
        if slot.app is not None:
            return {"inflight": 0}  # the app's server is not ours to count (settling waits for load and DOM quiet)
        return {"inflight": self.episode(slot.episode_id).inflight}

    def _file(self, slot: Slot, p: Params) -> FileReply:
        task = self._need_task(slot)
        files = dict(task.files)
        name = str(p.get("name", ""))
        if name not in files:
            raise KeyError(f"task {task.id} offers no file {name!r} (it offers: {', '.join(files) or 'none'})")
        return {"name": name, "base64": base64.b64encode(files[name]).decode()}


_SLOT_ROUTES: dict[tuple[str, str], Callable[[ArenaService, Slot, Params], Any]] = {
    ("DELETE", ""): ArenaService._release,
    ("POST", "reset"): ArenaService._reset,
    ("GET", "state"): ArenaService._state,
    ("POST", "validate"): ArenaService._validate,
    ("GET", "effects"): ArenaService._effects,
    ("GET", "trace"): ArenaService._trace,
    ("GET", "inflight"): ArenaService._inflight,
    ("POST", "file"): ArenaService._file,
    ("POST", "gate"): ArenaService._gate,
    ("POST", "approvals"): ArenaService._approve,
    ("POST", "step"): ArenaService._close_step,
}
