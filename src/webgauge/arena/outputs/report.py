"""The arena HTML report: headline metrics with bootstrap intervals, paired comparisons,
success by UI pattern, variant and family, grounding errors, and every episode linked to
its trace viewer page. Reads only the run directory."""

from __future__ import annotations

import json
from pathlib import Path

from .scoring import Episodes, agent_summary, by_group, grounding_by_pattern, load_episodes, paired
from .viewer import trace_page_name, write_trace_page
from .visual_split import visual_split_section

__all__ = ["write_arena_report", "ACTION_SPACE_NOTE"]

ACTION_SPACE_NOTE = (
    "Action spaces differ by observation mode and are part of the system measured: the DOM-only agent "
    "sees element ids (semantic actions) but no pixels, so canvas tasks are out of its reach; the "
    "screenshot-only agent sees no element ids, so it can only point (normalized coordinates bound to a "
    "screenshot hash), press keys, scroll and navigate; screenshot plus tree gets both. The model, tasks, "
    "step budget and validators are the same for every mode. The oracle replays each task's scripted "
    "solution; the heuristic matches instruction words to control names, without network."
)


def _pct(v):
    from webgauge.report import fmt_ci

    return "–" if v is None else fmt_ci(v, scale=100, digits=0)


def write_arena_report(run_dir: str | Path, out: str | Path | None = None, title: str = "Arena report") -> Path:
    """Write ``report.html`` (default: ``<run_dir>/report/``) and one trace page per episode."""
    from webgauge.report import Column, Markup, Section, bar_chart, fmt_num, image, link, table, write_html

    run_dir = Path(run_dir)
    out_dir = Path(out) if out is not None else run_dir / "report"
    out_dir.mkdir(parents=True, exist_ok=True)
    eps = load_episodes(run_dir)
    if not eps.records and not eps.failures:
        raise ValueError(f"{run_dir} holds no arena episodes; run `webgauge arena run --out {run_dir}` first")
    blob_prefix = Path("..", *(Path(*(".." for _ in out_dir.resolve().relative_to(run_dir.resolve()).parts))
                               .parts), "blobs").as_posix() + "/" if _inside(out_dir, run_dir) else None
    if blob_prefix is None:
        raise ValueError(f"put the report inside the run directory ({run_dir}) so it can link its screenshots")

    # the held-out slice is reported apart, never pooled with the public one
    everything = eps
    held = Episodes([r for r in eps.records if r.slice == "heldout"], [], run_dir)
    eps = Episodes([r for r in eps.records if r.slice != "heldout"], eps.failures, run_dir)
    summary = agent_summary(eps)
    pct = lambda v: _pct(v)  # noqa: E731
    num = lambda v: fmt_num(v, 1)  # noqa: E731
    cols = [Column("agent"), Column("obs_mode", "observation"), Column("episodes"), Column("success", "success % [95% CI]", pct),
            Column("forbidden_rate", "forbidden effect %", pct), Column("steps", "steps", num), Column("retries", "retries", num),
            Column("time_to_success_s", "median s to success", num), Column("timeouts", "timeouts"),
            Column("unnecessary_writes", "unneeded writes", num), Column("duplicate_submissions", "duplicate submits"),
            Column("grounding_errors", "grounding errors"), Column("approvals", "approval requests"),
            Column("screenshots", "screenshots", num), Column("screenshot_kb", "screenshot KB", num),
            Column("image_tokens", "image tokens", lambda v: fmt_num(v, 0)),
            Column("model_tokens", "model tokens", lambda v: fmt_num(v, 0)), Column("failed_to_run", "failed to run")]
    sections = [Section("Agents", [table(summary, cols, caption="Means per episode unless noted; intervals are "
                                                                  "cluster bootstraps over task instances (tasks × seeds)."),
                                   ACTION_SPACE_NOTE])]
    if held.records:
        sections.append(Section("Held-out slice (apart from the public slice, never pooled)",
                                table(agent_summary(held), cols, caption="Held-out tasks are regenerated from a "
                                      "secret seed; their instructions and screenshots are sealed.")))
    variety = run_dir / "variety.jsonl"
    if variety.is_file():  # written by `webgauge arena tasks --variety --json > RUN_DIR/variety.jsonl`
        rows = [json.loads(line) for line in variety.read_text().splitlines() if line.strip()]
        sections.append(Section("Task variety", table(rows, [
            Column("family"), Column("pattern"), Column("visual"), Column("distinct", "distinct instructions (seeds 0-199)"),
            Column("novelty", "held-out novelty %", lambda v: fmt_num(100 * v, 1)),
            Column("oracle_steps", "mean oracle steps", num)])))
    with_ci = [s for s in summary if s["success"] is not None]
    if with_ci:
        chart = bar_chart(out_dir / "success.png", [s["agent"] for s in with_ci], [s["success"][0] * 100 for s in with_ci],
                          [s["success"][1] * 100 for s in with_ci], [s["success"][2] * 100 for s in with_ci],
                          title="Exact task success (%)", ylabel="%", ylim=(0, 100), height=3.2)
        sections.append(Section("Success", image(chart.name, "success per agent")))
    pairs = paired(eps)
    if pairs:
        sections.append(Section("Paired comparisons", table(
            pairs, [Column("a"), Column("b"), Column("episodes"), Column("diff", "success a − b (pp) [95% CI]", pct),
                    Column("p", "p", lambda v: fmt_num(v, 3))])))
    agents = eps.agents
    if eps.records:  # the visual flag as its own split, with n and cluster-bootstrap intervals
        sections.append(visual_split_section(eps.records))
    for key, title_ in (("pattern", "Success by UI pattern"), ("variant", "Success by variant"),
                        ("family", "Success by family")):
        sections.append(Section(title_, table(by_group(eps, key), [Column(key)] + [Column(a, a, pct) for a in agents]
                                              + [Column("episodes")])))
    sections.append(Section("Grounding errors by UI pattern", table(grounding_by_pattern(eps),
                                                                    [Column("pattern")] + [Column(a) for a in agents])))
    traces = out_dir / "traces"
    rows = []
    for r in sorted(eps.records, key=lambda r: (agents.index(r.agent), r.task_id, r.repeat)):
        page = write_trace_page(r, traces / trace_page_name(r.item_id), "../" + blob_prefix, "../report.html")
        errs = r.validator_errors + r.forbidden_violations + ([r.error] if r.error else [])
        rows.append({"agent": r.agent, "task": r.task_id, "repeat": r.repeat,
                     "result": Markup('<span class="{}">{}</span>').format("ok" if r.success else "error",
                                                                           "success" if r.success else "fail"),
                     "forbidden": "yes" if r.forbidden else "", "steps": r.n_steps, "s": r.duration_s,
                     "errors": "; ".join(errs)[:200], "trace": link(f"traces/{page.name}", "trace")})
    sections.append(Section("Episodes", table(rows, ["agent", "task", "repeat", "result", "forbidden", "steps",
                                                     Column("s", "seconds", num), "errors", "trace"])))
    if eps.failures:
        sections.append(Section("Episodes that failed to run", table(eps.failures, ["item_id", "agent", "error"])))
    return write_html(out_dir / "report.html", title, sections,
                      subtitle=f"{len(everything.records)} episodes ({len(held.records)} held-out), {len(agents)} agents, "
                               f"run {run_dir.name}")


def _inside(child: Path, parent: Path) -> bool:
    try:
        child.resolve().relative_to(parent.resolve())
        return True
    except ValueError:
        return False
