"""Headline results for the demo's landing page: one small table and one chart per suite.

Each headline reads the typed records of the runs a demo part wrote (found under the
part's folder by their ``results.sqlite``) through the suite's own scoring functions, so
the landing page shows the same numbers as the suite's full report, baselines side by
side, with the cluster-bootstrap intervals of :mod:`webgauge.report.summary`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Headline", "HEADLINES", "headline", "fmt_interval"]


@dataclass
class Headline:
    """A titled table (``rows`` with ``columns``) and an optional chart PNG."""

    title: str
    rows: list[dict]
    columns: list[str]
    chart: Path | None = None
    note: str = ""
    extra: list[Headline] = field(default_factory=list)


def fmt_interval(value: Any, digits: int = 2, percent: bool = False) -> str:
    """``mean [lo, hi]`` for an interval triple, a plain number otherwise, ``n/a`` for missing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    scale, unit = (100.0, "%") if percent else (1.0, "")
    d = 0 if percent else digits
    if isinstance(value, (tuple, list)) and len(value) == 3:
        m, lo, hi = (float(v) * scale for v in value)
        return f"{m:.{d}f}{unit} [{lo:.{d}f}, {hi:.{d}f}]"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{float(value) * scale:.{d}f}{unit}"
    return str(value)


def _runs(folder: Path) -> list[Path]:
    return sorted(p.parent for p in Path(folder).rglob("results.sqlite"))


def _suite_runs(folder: Path, suite: str) -> list[Path]:
    import json

    out = []
    for run in _runs(folder):
        try:
            spec = json.loads((run / "spec.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if spec.get("spec", {}).get("suite") == suite:
            out.append(run)
    return out


def _bar(path: Path, labels: list[str], triples: list, title: str, ylabel: str,
         ylim: tuple[float, float] | None = None) -> Path | None:
    from webgauge.report import bar_chart

    keep = [(lab, t) for lab, t in zip(labels, triples, strict=True) if isinstance(t, (tuple, list)) and len(t) == 3]
    if not keep:
        return None
    return bar_chart(path, [k[0] for k in keep], [k[1][0] for k in keep], [k[1][1] for k in keep],
                     [k[1][2] for k in keep], title=title, ylabel=ylabel, ylim=ylim)


def capture_headline(folder: Path) -> Headline:
    """Pages captured and failed, with the median capture time."""
    import statistics

    from webgauge.run import RunStore

    rows = []
    for run in _suite_runs(folder, "capture"):
        store = RunStore(run)
        ok = store.records(status="ok")
        durations = [r.duration for r in ok if r.duration is not None]
        rows.append({"run": run.name, "pages": len(store), "captured": len(ok), "failed": len(store.failures()),
                     "median s/page": f"{statistics.median(durations):.2f}" if durations else "n/a"})
    return Headline("Capture", rows, ["run", "pages", "captured", "failed", "median s/page"])


def understand_headline(folder: Path) -> Headline:
    """Accuracy per task for each model (baselines side by side), clustered by page."""
    from webgauge.understand.headline import headline_rows

    runs = _suite_runs(folder, "understand")
    if not runs:
        raise FileNotFoundError(f"no understand run under {folder}")
    models, rows, triples = headline_rows(runs[0])
    table = [{"task": r["task"], **{m: fmt_interval(r.get(m), percent=True) for m in models}} for r in rows]
    labels = [f"{r['task']} · {m}" for r in rows for m in models]
    chart = _bar(Path(folder) / "headline.png", labels, [r.get(m) for r in rows for m in models],
                 "understand: score per task and model (95% CI by page)", "score", (0, 1))
    from webgauge.understand.baselines import baseline_note
    from webgauge.understand.scoring import bench_of

    return Headline("understand: score per task (95% cluster-bootstrap CI by page; n/a: the baseline does not "
                    "apply)", table, ["task", *models], chart, note=baseline_note(bench_of(runs[0])))


def design2code_headline(folder: Path) -> Headline:
    """Visual and functional metrics per model and strategy, clustered by instance."""
    from webgauge.design2code.report import summary_rows
    from webgauge.design2code.runs import collect_scores

    runs = [r for r in _suite_runs(folder, "design2code") if (r / "results.sqlite").exists()]
    for run in runs:
        try:
            records, _ = collect_scores(run)
        except Exception:  # the generation run holds no score records
            continue
        if records:
            break
    else:
        raise FileNotFoundError(f"no scored design2code run under {folder}")
    rows = summary_rows(records)
    metrics = [m for m in ("mae", "nemd", "ssim", "rer", "navigation") if any(m in r for r in rows)]
    table = [{"model": r["model"], "strategy": r["strategy"], "pages": r["pages"],
              **{m: fmt_interval(r.get(m), 3) for m in metrics}} for r in rows]
    chart = _bar(Path(folder) / "headline.png", [f"{r['model']} · {r['strategy']}" for r in rows],
                 [r.get("rer") for r in rows], "design2code: resource existence ratio (95% CI by instance)",
                 "RER", (0, 1))
    return Headline("design2code: metrics per model and strategy (95% cluster-bootstrap CI by instance)", table,
                    ["model", "strategy", "pages", *metrics], chart)


def _arena_rows(run: Path) -> tuple[list[dict], list]:
    from webgauge.arena.outputs.scoring import agent_summary, load_episodes

    rows = agent_summary(load_episodes(run))
    table = [{"agent": r["agent"], "obs": r["obs_mode"], "episodes": r["episodes"],
              "success": fmt_interval(r["success"], percent=True),
              "forbidden effects": fmt_interval(r["forbidden_rate"], percent=True),
              "mean steps": fmt_interval(r["steps"], 1)} for r in rows]
    return table, [(r["agent"], r["success"]) for r in rows]


def arena_headline(folder: Path) -> Headline:
    """Success and forbidden effects per agent, clustered by task instance."""
    runs = [r for r in _suite_runs(folder, "arena") if r.name != "run"]  # a package's copy is not a second run
    if not runs:
        raise FileNotFoundError(f"no arena run under {folder}")
    heads = []
    for run in runs:
        table, succ = _arena_rows(run)
        chart = _bar(run / "headline.png", [a for a, _ in succ], [s for _, s in succ],
                     f"arena ({run.name}): success per agent (95% CI by task instance)", "success", (0, 1))
        heads.append(Headline(f"arena · {run.name}: success per agent (95% cluster-bootstrap CI by task instance)",
                              table, ["agent", "obs", "episodes", "success", "forbidden effects", "mean steps"],
                              chart))
    first = heads[0]
    first.extra = heads[1:]
    return first


HEADLINES: dict[str, Callable[[Path], Headline]] = {
    "capture": capture_headline,
    "understand": understand_headline,
    "design2code": design2code_headline,
    "arena": arena_headline,
    "arena-variants": arena_headline,
}


def headline(part: str, folder: Path) -> Headline:
    """The headline of one demo part, read from the runs under ``folder``."""
    return HEADLINES[part](Path(folder))
