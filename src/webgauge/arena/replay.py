"""Recorded episodes, read back: the task rebuilt, the final state replayed, the verdict re-scored.

An :class:`~webgauge.arena.core.records.EpisodeRecord` holds what is needed to judge an
episode again without a browser: the family, seed and fingerprint of its task (tasks are
deterministic, so :func:`find_base` rebuilds the same task from the installed families) and
the episode's state change (``final_diff``). :func:`final_state` replays that change onto the
seed state, in the form the control API serves it, and :func:`rescore` runs the task's
current validator and forbidden-effect rules on it. The runner rebuilds tasks here before an
episode; ``webgauge arena verify`` re-scores packaged episodes here.
"""

from __future__ import annotations

import dataclasses
import functools
import sqlite3
from dataclasses import dataclass
from typing import Any

from .apps import build_seed
from .apps.server import encode_state
from .core.answers import with_answer
from .core.diff import diff_states
from .core.effects import check_effects
from .core.records import EpisodeRecord, SealedEpisodeRecord
from .core.task import Task
from .tasks import seed_state
from .variants.catalogue import get_variant

__all__ = ["Rescore", "find_base", "final_state", "load_record", "rescore", "task_of"]


@dataclass(frozen=True)
class Rescore:
    """An episode judged again by the installed validator and rules."""

    success: bool
    forbidden: bool
    validator_sha256: str


def find_base(family: str, seed: int, base_id: str, base_fingerprint: str | None, source_id: str | None = None,
              instruction_hmac: str | None = None) -> Task:
    """Rebuild a base task from its family and seed (held-out tasks carry an opaque id and their source id)."""
    from .registry import build_tasks as build_any

    src = source_id or base_id
    for t in build_any((seed,), families=[family]):
        if t.id == src:
            if src != base_id:
                extra = {"instruction_hmac": instruction_hmac} if instruction_hmac else {}
                params = {**t.params, "slice": "heldout", "source_id": src, **extra}
                t = dataclasses.replace(t, id=base_id, params=params)
            if base_fingerprint is not None and t.fingerprint != base_fingerprint:
                raise RuntimeError(f"task {base_id} changed since the run was planned (fingerprint differs)")
            return t
    raise KeyError(f"no task {src} in family {family} at seed {seed}")


def task_of(rec: EpisodeRecord) -> Task:
    """The task of a record, rebuilt from the installed families and variants."""
    t = rec.task
    base = find_base(rec.family, rec.seed, rec.base_task_id, t["params"].get("base_fingerprint") or t["fingerprint"],
                     t.get("params", {}).get("source_id"))
    return base if rec.variant == "base" else get_variant(rec.variant).apply(base)


@functools.lru_cache(maxsize=1)
def _columns() -> dict[str, list[str]]:
    """Every table's columns in schema order (JSON records may have reordered row keys)."""
    conn = sqlite3.connect(":memory:")
    try:
        build_seed(conn, 0)
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: [c[1] for c in conn.execute(f'PRAGMA table_info("{t}")')] for t in tables}
    finally:
        conn.close()


def _seed_state(seed: int, family: str | None) -> dict[str, list[dict[str, Any]]]:
    """The seed's state as validators read it: the arena's own seed, or a real app's snapshot (the
    installed app is reset to the seed and read, so re-scoring a real-app episode needs its app)."""
    from .registry import app_of

    app = app_of(family) if family else None
    if app is None:
        return encode_state(seed_state(seed))  # as the control API serves it (what validators read)
    from .realapps.live import snapshot_state

    return snapshot_state(app, seed)


def final_state(seed: int, final_diff: dict[str, Any], family: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """The seed state (of ``family``'s app: the arena's own by default) with an episode's recorded change applied."""
    state = _seed_state(seed, family)
    cols = _columns()
    for table, d in final_diff.items():
        rows = state.setdefault(table, [])
        order = cols.get(table) or list((rows or d["inserted"] or [{}])[0])
        norm = lambda r, order=order: {c: r[c] for c in order if c in r}  # noqa: E731
        key = lambda r: next(iter(r.values()))  # noqa: E731
        gone = {key(norm(r)) for r in d["deleted"]}
        upd = {u["key"]: norm(u["after"]) for u in d["updated"]}
        state[table] = [upd.get(key(r), r) for r in rows if key(r) not in gone] + [norm(r) for r in d["inserted"]]
    return state


def rescore(rec: EpisodeRecord) -> Rescore:
    """The record's verdict from the seed state plus its recorded change, by today's validator and rules."""
    task = task_of(rec)
    final = final_state(rec.seed, rec.final_diff, rec.family)
    res = task.validate(with_answer(final, rec.done_answer))
    violations = check_effects(task.forbidden_effects, diff_states(_seed_state(rec.seed, rec.family), final))
    return Rescore(success=bool(res.success), forbidden=bool(violations),
                   validator_sha256=task.describe()["validator_sha256"])


def load_record(data: dict[str, Any]) -> EpisodeRecord | SealedEpisodeRecord:
    """A stored record as its type (public or sealed), by its schema tag."""
    if str(data.get("schema", "")).startswith(SealedEpisodeRecord.SCHEMA + "/"):
        return SealedEpisodeRecord.from_json(data)
    return EpisodeRecord.from_json(data)
