"""A suite-independent overview of a run directory: spec, outcomes, failures, workers.

Suites write their own score reports; this page answers "what ran, on what, and what
broke" for any run, reading only :class:`webgauge.run.RunStore`.
"""

from __future__ import annotations

import json
import os
import statistics
from collections import Counter, defaultdict
from pathlib import Path

from .html import Column, Section, code_block, details, fmt_num, table, write_html

__all__ = ["run_overview", "write_run_report"]


def run_overview(run_dir: str | os.PathLike) -> dict:
    """Counts and timings of a run: ``{"kinds": [...], "workers": [...], "failures": [...], "totals": {...}}``."""
    from webgauge.run import RunStore

    store = RunStore(run_dir)
    rows = store.records()
    by_kind: dict[str, Counter] = defaultdict(Counter)
    durations: dict[str, list[float]] = defaultdict(list)
    by_worker: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        by_kind[r.kind][r.status] += 1
        if r.duration is not None:
            durations[r.kind].append(r.duration)
            by_worker[r.worker or "?"].append(r.duration)
    kinds = [{"kind": k, "ok": c["ok"], "error": c["error"], "total": c["ok"] + c["error"],
              "median_s": statistics.median(durations[k]) if durations[k] else None}
             for k, c in sorted(by_kind.items())]
    workers = [{"worker": w, "items": len(d), "busy_s": sum(d), "median_s": statistics.median(d)}
               for w, d in sorted(by_worker.items())]
    failures = [{"item_id": r.item_id, "kind": r.kind, "type": (r.error or {}).get("type", "?"),
                 "message": (r.error or {}).get("message", ""), "traceback": (r.error or {}).get("traceback", ""),
                 "attempt": r.attempt, "worker": r.worker} for r in rows if not r.ok]
    started = [r.started for r in rows if r.started is not None]
    finished = [r.finished for r in rows if r.finished is not None]
    totals = {"items": len(rows), "ok": sum(r.ok for r in rows), "error": len(failures),
              "wall_s": (max(finished) - min(started)) if started and finished else None}
    return {"spec": store.spec, "kinds": kinds, "workers": workers, "failures": failures, "totals": totals}


def _spec_section(doc: dict) -> list:
    spec, env = doc.get("spec", {}), doc.get("environment", {})
    fonts = env.get("fonts", {})
    facts = [
        {"field": "suite", "value": spec.get("suite")},
        {"field": "models",
         "value": ", ".join(m if isinstance(m, str) else json.dumps(m) for m in spec.get("models", []))},
        {"field": "seeds", "value": ", ".join(str(s) for s in spec.get("seeds", []))},
        {"field": "webgauge", "value": env.get("webgauge")},
        {"field": "chromium", "value": env.get("chromium")},
        {"field": "fonts", "value": f"{fonts.get('count')} faces, sha256 {str(fonts.get('sha256', ''))[:12]}"
                                    if "sha256" in fonts else fonts.get("error")},
        {"field": "python / platform", "value": f"{env.get('python')} / {env.get('platform')}"},
    ]
    prompts = [details(f"prompt {name} (sha256 {p['sha256'][:12]})", code_block(p["text"]))
               for name, p in spec.get("prompts", {}).items()]
    options = details("options", code_block(json.dumps(spec.get("options", {}), indent=2, sort_keys=True)))
    return [table(facts, ["field", "value"]), *prompts, options]


def write_run_report(run_dir: str | os.PathLike, out: str | os.PathLike | None = None) -> Path:
    """Write ``overview.html`` (or ``out``) for a run directory and return its path."""
    run_dir = Path(run_dir)
    ov = run_overview(run_dir)
    t = ov["totals"]
    failures = [{**f,
                 "error": details(f"{f['type']}: {f['message'][:120]}", code_block(f["traceback"] or f["message"]))}
                for f in ov["failures"]]
    sections = [
        Section("Outcomes", [table(ov["kinds"], ["kind", "total", "ok", Column("error", "failed"),
                                                     Column("median_s", "median s/item")])]),
        Section("Failures", table(failures, ["item_id", "kind", "attempt", "worker", "error"], empty="No failures.")),
        Section("Workers", table(ov["workers"], ["worker", "items", Column("busy_s", "busy s"),
                                                    Column("median_s", "median s/item")])),
        Section("Spec", _spec_section(ov["spec"])),
    ]
    subtitle = (f"{t['items']} items stored: {t['ok']} ok, {t['error']} failed; "
                f"wall time {fmt_num(t['wall_s'])} s")
    suite = ov["spec"].get("spec", {}).get("suite", "?")
    return write_html(Path(out) if out else run_dir / "overview.html", f"Run overview: {suite} — {run_dir.name}",
                      sections, subtitle=subtitle)
