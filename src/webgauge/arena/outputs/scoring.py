"""Scores from a run directory: success, forbidden effects, effort, grounding and cost.

Exact task success only (no partial credit). Records are typed
(:class:`~webgauge.arena.core.records.EpisodeRecord`); every interval comes from the one
scoring kit (:mod:`webgauge.report.summary`) with the arena's cluster, the task instance
(every repeat of one task at one seed and variant is one cluster); agents are compared on
the same episodes with its paired comparison. Episodes that failed to run (an item error) are
counted apart, never as a score.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..core.records import EpisodeRecord

__all__ = ["Episodes", "load_episodes", "agent_summary", "by_group", "paired", "grounding_by_pattern", "rate",
           "CLUSTER"]

CLUSTER = "instance"
"""The arena's bootstrap cluster: the task instance (every repeat of one task at one seed and variant)."""


@dataclass
class Episodes:
    """A run's typed episode records, and the items that failed to run (counted apart, never scored)."""

    records: list[EpisodeRecord]
    failures: list[dict] = field(default_factory=list)  # {"item_id", "agent", "error"}
    run_dir: Path | None = None

    @property
    def agents(self) -> list[str]:
        order = {"oracle": 0, "random": 1, "random|screenshot": 1, "heuristic": 2}  # the ceiling, then the floor
        return sorted({r.agent for r in self.records} | {f["agent"] for f in self.failures},
                      key=lambda a: (order.get(a, 3), a))

    def of(self, agent: str) -> list[EpisodeRecord]:
        return [r for r in self.records if r.agent == agent]


def load_episodes(run_dir: str | Path) -> Episodes:
    """Every stored episode of a run as :class:`EpisodeRecord` (``RunStore.typed``), plus the failed items.

    A run written before typed records fails with a message naming the schema version.
    A failed item's agent is read from its planned payload, never parsed out of its id.
    """
    from webgauge.run import RunStore

    store = RunStore(run_dir)
    recs = store.typed(EpisodeRecord, kind="episode")
    from ..runner import planned

    plan = planned(run_dir)
    fails = [{"item_id": row.item_id, "agent": plan.get(row.item_id, {}).get("agent", "unknown agent"),
              "error": (row.error or {}).get("message", str(row.error))[:300] if row.error else "unknown"}
             for row in store.records(kind="episode", status="error")]
    return Episodes(recs, fails, Path(run_dir))


def rate(records: list, metric) -> tuple[float, float, float] | None:
    """Mean of ``metric`` with its cluster-bootstrap interval over task instances (:mod:`webgauge.report.summary`)."""
    from webgauge.report.summary import summarize

    if not records:
        return None
    s = summarize(records, metric, cluster=CLUSTER)[0]
    return None if s.n == 0 else (s.mean, s.lo, s.hi)


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _budget(r) -> int:
    """The step budget the episode's agent had: its observation mode's (older records: the one budget)."""
    return int((r.task.get("max_steps_by_mode") or {}).get(r.obs_mode) or r.task.get("max_steps") or 0)


def agent_summary(eps: Episodes) -> list[dict]:
    """One row per agent with every headline metric."""
    rows = []
    for a in eps.agents:
        rs = eps.of(a)
        ok = [r for r in rs if r.success]
        rows.append({
            "agent": a,
            "obs_mode": rs[0].obs_mode if rs else "",
            "episodes": len(rs),
            "failed_to_run": sum(1 for f in eps.failures if f["agent"] == a),
            "success": rate(rs, "success"),
            "forbidden_rate": rate(rs, "forbidden"),
            "steps": _mean([r.n_steps for r in rs]),
            "budget": _mean([_budget(r) for r in rs]),
            "retries": _mean([r.retries for r in rs]),
            "time_to_success_s": statistics.median([r.duration_s for r in ok]) if ok else None,
            "timeouts": sum(1 for r in rs if r.timed_out or r.truncated),
            "unnecessary_writes": _mean([r.unnecessary_writes for r in rs]),
            "duplicate_submissions": sum(r.duplicate_submissions for r in rs),
            "grounding_errors": sum(r.grounding_errors for r in rs),
            "approvals": sum(r.approvals for r in rs),
            "screenshots": _mean([r.screenshots for r in rs]),
            "screenshot_kb": _mean([r.screenshot_bytes / 1024 for r in rs]),
            "image_tokens": _mean([r.image_tokens for r in rs]),
            "model_tokens": _mean([(r.usage.get("input_tokens") or 0) + (r.usage.get("output_tokens") or 0)
                                   for r in rs]),
        })
    return rows


def by_group(eps: Episodes, key: str) -> list[dict]:
    """Success per agent for each value of ``key`` (``pattern``, ``variant`` or ``family``)."""
    rows = []
    for v in sorted({getattr(r, key) for r in eps.records}):
        row: dict = {key: v}
        for a in eps.agents:
            row[a] = rate([r for r in eps.of(a) if getattr(r, key) == v], "success")
        row["episodes"] = sum(1 for r in eps.records if getattr(r, key) == v)
        rows.append(row)
    return rows


def grounding_by_pattern(eps: Episodes) -> list[dict]:
    """Grounding errors (rejected or missed targets) per UI pattern and agent."""
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for r in eps.records:
        counts[(r.pattern, r.agent)] += r.grounding_errors
    return [{"pattern": p, **{a: counts[(p, a)] for a in eps.agents}} for p in sorted({r.pattern for r in eps.records})]


def paired(eps: Episodes) -> list[dict]:
    """Paired cluster bootstrap of success between every pair of agents on their shared episodes."""
    from webgauge.report.summary import compare

    out = []
    agents = eps.agents
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            for c in compare(eps.records, "success", system="agent", a=a, b=b, item="episode_key", cluster=CLUSTER):
                if c.clusters < 2:
                    continue
                out.append({"a": a, "b": b, "episodes": c.n, "diff": (c.mean_diff, c.lo, c.hi), "p": c.p})
    return out
