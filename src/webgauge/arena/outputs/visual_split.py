"""The ``visual`` flag as its own split: success on tasks that need pixels vs tasks that do not.

A task is *visual* when its success depends on pixels or spatial relations absent from the
DOM and the accessibility tree (a map target, a photo to match, a chart on a canvas). The
guide asks for a DOM/role-only baseline beside the screenshot agents "to reveal whether
vision adds value"; that is only readable when the two kinds of task are scored apart. Each
row is one agent on one side of the split, with ``n`` episodes, the number of task
instances (the bootstrap clusters) and the cluster-bootstrap interval of
:func:`webgauge.report.summary.summarize`. The sides are never pooled into one number here.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["visual_split", "visual_split_section", "SPLIT_NAMES"]

SPLIT_NAMES = {True: "visual", False: "non-visual"}


def visual_split(records: Iterable) -> list[dict]:
    """One row per (agent, side): ``agent``, ``split``, ``n``, ``clusters``, ``families`` and
    ``success``/``forbidden_rate`` as ``(mean, lo, hi)`` (95% cluster bootstrap over task instances)."""
    from webgauge.report.summary import summarize

    from .scoring import CLUSTER

    recs = list(records)
    if not recs:
        raise ValueError("no episode records to split; run some episodes first")
    rows = []
    success = summarize(recs, "success", by=("agent", "visual"), cluster=CLUSTER)
    forbidden = {(s.group["agent"], s.group["visual"]): s
                 for s in summarize(recs, "forbidden", by=("agent", "visual"), cluster=CLUSTER)}
    for s in success:
        agent, vis = s.group["agent"], bool(s.group["visual"])
        f = forbidden[(agent, s.group["visual"])]
        rows.append({"agent": agent, "split": SPLIT_NAMES[vis], "n": s.n, "clusters": s.clusters,
                     "families": len({r.family for r in recs if r.agent == agent and bool(r.visual) == vis}),
                     "success": (s.mean, s.lo, s.hi), "forbidden_rate": (f.mean, f.lo, f.hi)})
    rows.sort(key=lambda r: (r["agent"], r["split"] != "visual"))
    return rows


def visual_split_section(records: Iterable):
    """The report section (a table) for :func:`visual_split`."""
    from webgauge.report import Column, Section, fmt_ci, table

    pct = lambda v: "–" if v is None else fmt_ci(v, scale=100, digits=0)  # noqa: E731
    return Section("Visual split: tasks that need pixels vs tasks that do not (never pooled)", table(
        visual_split(records),
        [Column("agent"), Column("split"), Column("n", "episodes"), Column("clusters", "task instances"),
         Column("families"), Column("success", "success % [95% CI]", pct),
         Column("forbidden_rate", "forbidden effect % [95% CI]", pct)],
        caption="Visual tasks need pixels or spatial relations absent from the DOM and accessibility tree. "
                "Intervals are cluster bootstraps over task instances (webgauge.report.summary)."))
