"""Scores from a run directory: success, forbidden effects, effort, grounding and cost.

Exact task success only (no partial credit). Intervals are cluster bootstraps over tasks
and seeds (every repeat of one task instance is one cluster); agents are compared on the
same episodes with paired bootstraps. Episodes that failed to run (an item error) are
counted apart, never as a score.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Episodes", "load_episodes", "agent_summary", "by_group", "paired", "grounding_by_pattern"]


@dataclass
class Episodes:
    records: list[dict]
    failures: list[dict] = field(default_factory=list)  # {"item_id", "agent", "error"}
    run_dir: Path | None = None

    @property
    def agents(self) -> list[str]:
        order = {"oracle": 0, "heuristic": 1}
        return sorted({r["agent"] for r in self.records} | {f["agent"] for f in self.failures},
                      key=lambda a: (order.get(a, 2), a))

    def of(self, agent: str) -> list[dict]:
        return [r for r in self.records if r["agent"] == agent]


def load_episodes(run_dir: str | Path) -> Episodes:
    """Every stored episode of a run (the record plus its item id and blob refs)."""
    from webgauge.run import RunStore

    store = RunStore(run_dir)
    recs, fails = [], []
    for row in store.records():
        if row.ok and row.record:
            recs.append({**row.record, "item_id": row.item_id})
        else:
            fails.append({"item_id": row.item_id, "agent": row.item_id.split("::")[0],
                          "error": (row.error or {}).get("message", str(row.error))[:300] if row.error else "unknown"})
    return Episodes(recs, fails, Path(run_dir))


def _ci(values: list[float], groups: list) -> tuple[float, float, float] | None:
    from webgauge.report import bootstrap_ci_grouped

    if not values:
        return None
    if len(set(groups)) < 2:
        m = sum(values) / len(values)
        return (m, m, m)
    c = bootstrap_ci_grouped(values, groups, n=2000, seed=0)
    return (c.mean, c.lo, c.hi)


def _cluster(r: dict) -> str:
    return f"{r['family']}|{r['seed']}|{r['variant']}"


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def agent_summary(eps: Episodes) -> list[dict]:
    """One row per agent with every headline metric."""
    rows = []
    for a in eps.agents:
        rs = eps.of(a)
        groups = [_cluster(r) for r in rs]
        ok = [r for r in rs if r["success"]]
        rows.append({
            "agent": a,
            "obs_mode": rs[0]["obs_mode"] if rs else "",
            "episodes": len(rs),
            "failed_to_run": sum(1 for f in eps.failures if f["agent"] == a),
            "success": _ci([float(r["success"]) for r in rs], groups),
            "forbidden_rate": _ci([float(r["forbidden"]) for r in rs], groups),
            "steps": _mean([r["n_steps"] for r in rs]),
            "retries": _mean([r["retries"] for r in rs]),
            "time_to_success_s": statistics.median([r["duration_s"] for r in ok]) if ok else None,
            "timeouts": sum(1 for r in rs if r["timed_out"] or r["truncated"]),
            "unnecessary_writes": _mean([r["unnecessary_writes"] for r in rs]),
            "duplicate_submissions": sum(r["duplicate_submissions"] for r in rs),
            "grounding_errors": sum(r["grounding_errors"] for r in rs),
            "approvals": sum(r["approvals"] for r in rs),
            "screenshots": _mean([r["screenshots"] for r in rs]),
            "screenshot_kb": _mean([r["screenshot_bytes"] / 1024 for r in rs]),
            "image_tokens": _mean([r["image_tokens"] for r in rs]),
            "model_tokens": _mean([(r["usage"].get("input_tokens") or 0) + (r["usage"].get("output_tokens") or 0)
                                   for r in rs]),
        })
    return rows


def by_group(eps: Episodes, key: str) -> list[dict]:
    """Success per agent for each value of ``key`` (``pattern``, ``variant`` or ``family``)."""
    values = sorted({r[key] for r in eps.records})
    rows = []
    for v in values:
        row: dict = {key: v}
        for a in eps.agents:
            rs = [r for r in eps.of(a) if r[key] == v]
            row[a] = _ci([float(r["success"]) for r in rs], [_cluster(r) for r in rs]) if rs else None
        row["episodes"] = sum(1 for r in eps.records if r[key] == v)
        rows.append(row)
    return rows


def grounding_by_pattern(eps: Episodes) -> list[dict]:
    """Grounding errors (rejected or missed targets) per UI pattern and agent."""
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for r in eps.records:
        counts[(r["pattern"], r["agent"])] += r["grounding_errors"]
    rows = []
    for p in sorted({r["pattern"] for r in eps.records}):
        rows.append({"pattern": p, **{a: counts[(p, a)] for a in eps.agents}})
    return rows


def paired(eps: Episodes) -> list[dict]:
    """Paired bootstrap of success between every pair of agents on their shared episodes."""
    from webgauge.report import paired_bootstrap

    out = []
    agents = eps.agents
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            ka = {(r["task_id"], r["repeat"]): r for r in eps.of(a)}
            kb = {(r["task_id"], r["repeat"]): r for r in eps.of(b)}
            keys = sorted(set(ka) & set(kb))
            if not keys:
                continue
            xa = [float(ka[k]["success"]) for k in keys]
            xb = [float(kb[k]["success"]) for k in keys]
            groups = [_cluster(ka[k]) for k in keys]
            if len(set(groups)) < 2:
                continue
            pc = paired_bootstrap(xa, xb, n=2000, seed=0, groups=groups)
            out.append({"a": a, "b": b, "episodes": len(keys), "diff": (pc.mean_diff, pc.lo, pc.hi), "p": pc.p})
    return out
