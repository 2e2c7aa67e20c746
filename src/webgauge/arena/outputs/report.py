"""The arena HTML report: headline metrics with bootstrap intervals, paired comparisons,
success by UI pattern, variant and family, grounding errors, and every episode linked to
its trace viewer page. Reads only the run directory."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import TYPE_CHECKING

from .scoring import Episodes, agent_summary, by_group, grounding_by_pattern, load_episodes, paired
from .viewer import trace_page_name, write_trace_page
from .visual_split import visual_split_section

if TYPE_CHECKING:
    from ..tasks.public_worlds import PublicWorlds

__all__ = ["write_arena_report", "ACTION_SPACE_NOTE", "family_success", "family_success_text", "split_slices",
           "write_variety", "VARIETY_FILE", "LEAKAGE_FILE", "write_leakage", "leakage_text"]

VARIETY_FILE = "variety.jsonl"
"""Per-family variety rows in a run directory (``webgauge arena report --variety`` writes it)."""
LEAKAGE_FILE = "heldout_leakage.jsonl"
"""Per-family held-out leakage rows (``webgauge arena report --variety`` writes it)."""


def split_slices(eps: Episodes) -> tuple[Episodes, Episodes]:
    """``(public, heldout)``: the two slices of a run, each scored on its own, never pooled."""
    public = Episodes([r for r in eps.records if r.slice != "heldout"], eps.failures, eps.run_dir)
    held = Episodes([r for r in eps.records if r.slice == "heldout"], [], eps.run_dir)
    return public, held


def family_success(eps: Episodes) -> list[dict]:
    """Success per family and agent on base tasks (``{"family", <agent>: (mean, lo, hi), "episodes"}``)."""
    base = Episodes([r for r in eps.records if r.variant == "base"], [], eps.run_dir)
    return by_group(base, "family") if base.records else []


def family_success_text(eps: Episodes) -> str:
    """Success per family for every agent (the heuristic's included), public and held-out slices apart."""
    lines = []
    for name, part in zip(("public", "held-out"), split_slices(eps), strict=True):
        rows = family_success(part)
        if not rows:
            continue
        agents = part.agents
        lines.append(f"{name} slice: success per family (base tasks)")
        lines.append(f"  {'family':26s}" + "".join(f"{a[:18]:>20s}" for a in agents) + "  episodes")
        for r in rows:
            cells = "".join(f"{'–' if r[a] is None else f'{100 * r[a][0]:.0f}%':>20s}" for a in agents)
            lines.append(f"  {r['family']:26s}{cells}  {r['episodes']:8d}")
    return "\n".join(lines)


def reset_kinds_text(eps: Episodes) -> str:
    """How the run's resets ran (``reset_kind``), with each kind's count and median env reset: with
    look-ahead most are ``preloaded`` (the episode made ready while the one before it ran). Held-out
    records are sealed and do not say; empty when no record does."""
    by_kind: dict[str, list[float]] = {}
    for r in eps.records:
        ms = getattr(r, "env_reset_ms", None)
        if getattr(r, "reset_kind", "") and ms is not None:
            by_kind.setdefault(r.reset_kind, []).append(float(ms))
    parts = [f"{len(xs)} {kind} (median {statistics.median(xs):.0f} ms)"
             for kind, xs in sorted(by_kind.items(), key=lambda kv: -len(kv[1]))]
    return "resets: " + ", ".join(parts) if parts else ""


def write_variety(run_dir: str | Path, families: list[str] | None = None, n_heldout: int = 50,
                  public: PublicWorlds | None = None) -> Path:
    """Measure variety (:func:`~webgauge.arena.tasks.variety.measure_variety`) and store it in the
    run directory (``public``: the public worlds' pass, shared with :func:`write_leakage`)."""
    from ..tasks.variety import measure_variety

    rows = measure_variety(families, n_heldout=n_heldout, public=public)
    path = Path(run_dir) / VARIETY_FILE
    path.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in rows))
    return path

def write_leakage(run_dir: str | Path, families: list[str] | None = None, n_worlds: int = 1000, n_heldout: int = 50,
                  secret: bytes | None = None, public: PublicWorlds | None = None,
                  progress: bool = False) -> tuple[Path, list]:
    """Measure held-out leakage (:func:`~webgauge.arena.tasks.leakage.measure_leakage`) into the run
    directory (``public``: the public worlds' pass, with its vocabulary, shared with :func:`write_variety`)."""
    from ..tasks.leakage import measure_leakage

    rows = measure_leakage(families, n_worlds=n_worlds, n_heldout=n_heldout, secret=secret, public=public,
                           progress=progress)
    path = Path(run_dir) / LEAKAGE_FILE
    path.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in rows))
    return path, rows


def leakage_text(rows: list) -> str:
    """The leakage rows as text: per family and overall (reproduced targets, public wording)."""
    lines = [f"held-out leakage: targets reproduced by {rows[0].worlds if rows else 0} secret-less worlds, "
             "wording shared with the public slice",
             f"  {'family':28s} {'targets':>8s} {'reproduced':>11s} {'same wording':>13s} {'same templates':>15s}"]
    for r in rows:
        lines.append(f"  {r.family:28s} {r.with_target:8d} {100 * r.reproduced_share:10.1f}% "
                     f"{100 * r.template_share:12.1f}% {100 * r.core_share:14.1f}%")
    targets, held = sum(r.with_target for r in rows), sum(r.heldout_tasks for r in rows)
    if held:
        worst = max(rows, key=lambda r: r.reproduced_share)
        lines.append(f"  all: {sum(r.reproduced for r in rows)} of {targets} held-out targets reproduced "
                     f"({100 * sum(r.reproduced for r in rows) / max(targets, 1):.1f}%; worst {worst.family} "
                     f"{100 * worst.reproduced_share:.1f}%); held-out instructions worded like a public one "
                     f"{100 * sum(r.template_public for r in rows) / held:.1f}%, using only public templates "
                     f"{100 * sum(r.core_public for r in rows) / held:.1f}%")
    return "\n".join(lines)


ACTION_SPACE_NOTE = (
    "Action spaces differ by observation mode and are part of the system measured: the DOM-only agent "
    "sees element ids (semantic actions) but no pixels, so canvas tasks are out of its reach; the "
    "screenshot-only agent sees no element ids (an action naming one is rejected), so it can only point "
    "(normalized coordinates bound to a screenshot hash), press keys, type, scroll and navigate; an open "
    "select's options and a file chooser are drawn into its screenshot; screenshot plus tree gets both. "
    "The model, tasks and validators are the same for every mode; the step budget is each mode's own "
    "(screenshot mode gets the extra steps pointer-only play needs, measured with the pointer-only oracle). The "
    "oracle replays each task's scripted "
    "solution; the heuristic matches instruction words to control names, without network; the random agent "
    "(the floor) draws each action uniformly from its mode's action space, aimed at the page's visible "
    "elements (dom) or at pixels (screenshot), seeded."
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
    eps, held = split_slices(eps)
    summary = agent_summary(eps)
    pct = lambda v: _pct(v)  # noqa: E731
    num = lambda v: fmt_num(v, 1)  # noqa: E731
    cols = [Column("agent"), Column("obs_mode", "observation"), Column("episodes"),
            Column("success", "success % [95% CI]", pct),
            Column("forbidden_rate", "forbidden effect %", pct), Column("steps", "steps", num),
            Column("budget", "step budget of the mode", num), Column("retries", "retries", num),
            Column("time_to_success_s", "median s to success", num), Column("timeouts", "timeouts"),
            Column("unnecessary_writes", "unneeded writes", num), Column("duplicate_submissions", "duplicate submits"),
            Column("grounding_errors", "grounding errors"), Column("approvals", "approval requests"),
            Column("screenshots", "screenshots", num), Column("screenshot_kb", "screenshot KB", num),
            Column("image_tokens", "image tokens", lambda v: fmt_num(v, 0)),
            Column("model_tokens", "model tokens", lambda v: fmt_num(v, 0)), Column("failed_to_run", "failed to run")]
    sections = [Section("Agents", [table(summary, cols, caption="Means per episode unless noted; intervals are "
                                                                  "cluster bootstraps over task instances (tasks × "
                                                                  "seeds)."),
                                   ACTION_SPACE_NOTE])]
    if held.records:
        held_fam = family_success(held)
        sections.append(Section("Held-out slice (apart from the public slice, never pooled)", [
            table(agent_summary(held), cols, caption="Held-out tasks are regenerated from a secret seed; their "
                  "instructions and screenshots are sealed."),
            table(held_fam, [Column("family")] + [Column(a, a, pct) for a in held.agents] + [Column("episodes")],
                  caption="Held-out success per family (base tasks).")]))
    variety = run_dir / VARIETY_FILE
    if variety.is_file():  # written by `webgauge arena report --variety` (or `arena tasks --variety --json`)
        rows = [json.loads(line) for line in variety.read_text().splitlines() if line.strip()]
        held_n = sum(r.get("heldout_tasks", 0) for r in rows)
        overall = sum(r.get("heldout_new", 0) for r in rows) / held_n if held_n else 0.0
        sections.append(Section("Task variety", table(rows, [
            Column("family"), Column("pattern"), Column("visual"),
            Column("distinct", "distinct instructions (seeds 0-199)"),
            Column("novelty", "held-out novelty %", lambda v: fmt_num(100 * v, 1)),
            Column("oracle_steps", "mean oracle steps", num)], caption=(
                f"{len(rows)} families; {sum(r['distinct'] >= 20 for r in rows)} with at least 20 distinct "
                f"instructions; held-out novelty {100 * overall:.1f}% of {held_n} held-out-range tasks "
                f"(new instruction, not seen among seeds 0-199); {sum(r['oracle_steps'] >= 10 for r in rows)} "
                "long families (oracle of 10 or more actions)."))))
    leak = run_dir / LEAKAGE_FILE
    if leak.is_file():  # written by `webgauge arena report --variety`
        rows = [json.loads(line) for line in leak.read_text().splitlines() if line.strip()]
        targets = sum(r["with_target"] for r in rows)
        sections.append(Section("Held-out secrecy", table(rows, [
            Column("family"), Column("with_target", "held-out tasks naming content"),
            Column("reproduced_share", "reproduced by secret-less worlds %", lambda v: fmt_num(100 * v, 1)),
            Column("template_share", "worded like a public instruction %", lambda v: fmt_num(100 * v, 1)),
            Column("core_share", "public templates inside the frame %", lambda v: fmt_num(100 * v, 1))], caption=(
                f"{sum(r['reproduced'] for r in rows)} of {targets} held-out targets (content values named by a "
                f"held-out instruction or answer) occur in {rows[0]['worlds'] if rows else 0} worlds built from "
                "held-out-range seeds chosen without the secret."))))
    with_ci = [s for s in summary if s["success"] is not None]
    if with_ci:
        chart = bar_chart(out_dir / "success.png", [s["agent"] for s in with_ci],
                          [s["success"][0] * 100 for s in with_ci],
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
                        ("family", "Success by family (public slice; every agent, the heuristic included)")):
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
                      subtitle=f"{len(everything.records)} episodes ({len(held.records)} held-out), {len(agents)} "
                               f"agents, "
                               f"run {run_dir.name}")


def _inside(child: Path, parent: Path) -> bool:
    try:
        child.resolve().relative_to(parent.resolve())
        return True
    except ValueError:
        return False
