"""What a run directory keeps of a held-out episode: scores and shapes, no content.

A held-out episode's full record would reveal its world: the URLs and titles of the pages
visited, the tab list, what was typed, the answer, the screenshots, the rows that changed.
:func:`seal_heldout_content` keeps a record by *allow-list*: the episode's labels and
metrics, each step's action kind, result code, change counts and timings, and for every
observation only its shape (step, viewport, scale, scroll, number of tabs). Every other
field is dropped or replaced by :data:`SEALED`, so a field added to the records later is
sealed until someone decides it is safe. The instruction is kept only as its salted HMAC.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["SEALED", "SEALED_SEED", "seal_heldout_content", "seal_error"]

SEALED = "(held-out: sealed)"
SEALED_SEED = -1
"""The seed a sealed held-out record shows (the real one would regenerate the task)."""

_TASK_KEEP = ("id", "start_url", "viewport", "max_steps", "family", "variant", "pattern", "visual",
              "forbidden_effects_public", "validator_sha256", "fingerprint")
_RECORD_DROP_TO_SEALED = ("validator_errors", "forbidden_violations")
_OBS_KEEP = ("mode", "step", "viewport", "device_scale_factor", "scroll", "active_tab", "navigation_id")
_RESULT_KEEP = ("ok", "kind", "rejected")
_GATE_KEEP = ("step", "event", "control", "grant")
_APPROVAL = (None, "granted", "denied")


def _observation(ref: dict) -> dict:
    """An observation's shape: no URL, title, tabs, result text, token, screenshot or DOM."""
    out = {k: ref[k] for k in _OBS_KEEP if k in ref}
    if "tabs" in ref:
        out["n_tabs"] = len(ref["tabs"] or [])
    if ref.get("approval") in _APPROVAL:
        out["approval"] = ref.get("approval")
    return out


def _numbers(d: dict[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (d or {}).items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def _step(s: dict) -> dict:
    result = {k: v for k, v in (s.get("result") or {}).items() if k in _RESULT_KEEP and not isinstance(v, dict)}
    diff = {t: {"n_changes": sum(len(d.get(k, [])) for k in ("inserted", "deleted", "updated"))}
            for t, d in (s.get("diff") or {}).items()}
    return {"schema": s.get("schema"), "step": s.get("step"), "action": {"kind": (s.get("action") or {}).get("kind")},
            "result": result, "diff": diff,
            "latency_ms": s.get("latency_ms", 0.0), "agent_ms": s.get("agent_ms", 0.0), "thought": "", "raw": "",
            "usage": _numbers(s.get("usage")), "timings_ms": _numbers(s.get("timings_ms")),
            "observed": _observation(s.get("observed") or {}), "after": _observation(s.get("after") or {})}


def seal_heldout_content(record: dict) -> dict:
    """A held-out record as the run directory keeps it by default (see the module doc). (Pass
    ``keep_heldout_content=True`` to a sweep, ``--keep-heldout-content`` on the CLI, to keep
    everything; packages seal held-out records either way.)"""
    rec = json.loads(json.dumps(record))
    task = rec.get("task") or {}
    params = task.get("params") or {}
    sealed_task = {k: task[k] for k in _TASK_KEEP if k in task}
    sealed_task.update(instruction=SEALED, seed=SEALED_SEED, forbidden_effects=task.get("forbidden_effects_public", []),
                       params={k: params[k] for k in ("slice", "instruction_hmac") if k in params})
    if "files" in task:  # the names of the task's upload files are content too
        sealed_task["files"] = [SEALED] * len(task["files"])
    rec["task"] = sealed_task
    rec["seed"] = SEALED_SEED  # the seed regenerates the task through the public procedure
    rec["steps"] = [_step(s) for s in rec.get("steps") or []]
    rec["final_diff"] = {}
    for k in _RECORD_DROP_TO_SEALED:
        rec[k] = [SEALED] * len(rec.get(k) or [])
    rec["done_answer"] = None if rec.get("done_answer") is None else SEALED
    rec["error"] = None if rec.get("error") is None else seal_error(rec["error"])
    rec["approval_decisions"] = [{"granted": d.get("granted")} for d in rec.get("approval_decisions") or []]
    # the gate's log: what happened at which step to which declared control (an app's own control names),
    # not the reason given (it may quote the instruction) nor the request's path (it names rows)
    rec["gate_log"] = [{k: g[k] for k in _GATE_KEEP if k in g} for g in rec.get("gate_log") or []]
    events = rec.get("variant_events") or {}
    rec["variant_events"] = {"events": dict(events.get("events") or {})} if events else {}
    if rec.get("attack") is not None:  # a trap's outcome: whether it worked, not what it showed
        rec["attack"] = {"attacked": bool(rec["attack"].get("attacked"))}
    rec["usage"] = _numbers(rec.get("usage"))
    return rec


def seal_error(message: object) -> str:
    """An error of a held-out episode: its kind (the text before the first colon), not its message."""
    head = str(message).split(":", 1)[0][:80]
    return f"{head}: {SEALED}"
