"""``make demo`` / ``webgauge demo``: the main job, offline, on the embedded default.

It writes the bundled synthetic pages (plus the real pages beside the checkout when
present), captures them, then runs each suite's own demo with its no-network baselines.
``OUT/index.html`` (also rendered to ``index.png``) shows each suite's headline results (a
small table and one chart, baselines side by side, read from the runs' typed records; see
:mod:`webgauge.headlines`) and links every full report. The default is sized to finish in
a few minutes on a 2-core machine; ``full=True`` (``webgauge demo --full``) runs every suite
at its full demo size.
"""

from __future__ import annotations

import asyncio
import importlib
import time
import traceback
from pathlib import Path
from typing import Any

__all__ = ["run_demo", "write_synthetic_pages", "eta_line", "ESTIMATE_S"]

#: part name -> (module, function); each function is ``fn(out, quick=...)`` and returns the
#: path of its report (or a list of report paths).
PARTS = {
    "understand": ("webgauge.understand.demo", "run_demo"),
    "design2code": ("webgauge.design2code.demo", "run_demo"),
    "arena": ("webgauge.arena.demo", "run_demo"),
    "arena-variants": ("webgauge.arena.variants_demo", "run_variants_demo"),
}
SUITES = tuple(PARTS)


def write_synthetic_pages(folder: Path, seeds: range) -> list[Path]:
    """Write one folder per synthetic page (``index.html`` plus its images)."""
    from webgauge.pages.synthetic import generate_page

    paths = []
    for seed in seeds:
        page = generate_page(seed)
        root = folder / f"synthetic-{seed:03d}"
        for rel, data in page.files().items():
            target = root / rel.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        paths.append(root / "index.html")
    return paths


def _capture_demo(out: Path, quick: bool) -> Path:
    from webgauge.browser import RenderProfile
    from webgauge.pages import load_pages, real_pages_dir
    from webgauge.pages.jobs import capture_work_items
    from webgauge.report.capture_report import write_capture_report
    from webgauge.run import RunSpec, run_items

    pages = write_synthetic_pages(out / "pages", range(3 if quick else 8))
    specs: list = list(pages)
    real = real_pages_dir()
    refs = load_pages(specs)
    if real is not None:
        refs += load_pages(real, limit=4 if quick else None)
    profile = RenderProfile()
    spec = RunSpec(suite="capture", options={"profile": profile.to_dict(), "full_page": True, "timeout": 45.0})
    run_items(out / "run", spec, capture_work_items(refs, profile, True, 45.0),
              handler="webgauge.pages.jobs:capture_item")
    return write_capture_report(out / "run")


#: Rough seconds per part of the default demo on an idle 2-core machine; the ETA printed before
#: each part scales them by how much slower than this the finished parts ran (a busy machine).
ESTIMATE_S = {"capture": 12, "understand": 40, "design2code": 35, "arena": 35, "arena-variants": 60}
#: ``--full`` parts take about this many times longer.
FULL_FACTOR = 4

#: What each part does, printed when it starts (default size; ``--full`` runs more of each).
DOING = {
    "capture": "capture the bundled synthetic pages and the real pages (screenshot, elements, aria)",
    "understand": "build a benchmark from synthetic and real pages, answer it with random-guess, label-oracle and "
                  "dom-heuristic, "
                  "score and report",
    "design2code": "build a multi-page site, generate it back with the no-network baseline (two strategies), "
                   "score it and report",
    "arena": "oracle and heuristic agents on three task families in the live apps",
    "arena-variants": "a variant sweep (cohort, stale screenshot) and a safety run (trap, held-out slice) of the "
                      "baselines, then an auditable package of the safety run",
}


def eta_line(parts: list[str] | tuple[str, ...], i: int, quick: bool, elapsed: float) -> str:
    """The lines printed before part ``i`` (from 1) of ``parts``: what it does and when it and
    the demo should end.

    The idle estimates are scaled by how the parts already finished compare with theirs, so a
    busy machine gets a later, truer ETA."""
    factor = 1 if quick else FULL_FACTOR
    est = {k: v * factor for k, v in ESTIMATE_S.items()}
    name, done, todo = parts[i - 1], parts[:i - 1], parts[i - 1:]
    base = sum(est.get(k, 60) for k in done)
    slow = max(1.0, elapsed / base) if base and elapsed > 0 else 1.0
    this = est.get(name, 60) * slow
    left = sum(est.get(k, 60) for k in todo) * slow
    pace = f", the parts so far ran {slow:.1f}x slower than on an idle machine" if slow > 1.05 else ""
    return (f"== webgauge demo [{i}/{len(parts)}] {name}: {DOING.get(name, name)}\n"
            f"   ETA about {this:.0f} s for this part, about {left:.0f} s for the rest of the demo "
            f"({elapsed:.0f} s so far{pace})")


def _headline_section(name: str, folder: Path, index: Path) -> tuple[str, Any] | None:
    """The landing-page section of one part (table + chart), or a note when it cannot be read."""
    from markupsafe import Markup

    from webgauge.headlines import headline
    from webgauge.report.html import image, relpath, table

    try:
        head = headline(name, folder)
    except Exception as exc:  # the landing page says so rather than hiding the part
        return name, Markup(f"<p>headline unavailable: {type(exc).__name__}: {exc}</p>")
    parts = []
    for h in [head, *head.extra]:
        parts.append(Markup(f"<h3>{h.title}</h3>"))
        parts.append(table(h.rows, h.columns))
        if h.chart is not None:
            parts.append(image(relpath(h.chart, index), h.title, width=440))
        if h.note:
            parts.append(Markup(f"<p>{h.note}</p>"))
    return name, Markup("").join(parts)


def run_demo(out: str | Path, quick: bool = True, suites: tuple[str, ...] | None = None,
             full: bool = False) -> tuple[Path, dict]:
    """Run the demo into ``out``; returns (index.html, {part: error}) — a failing part is
    recorded and the other parts still run. ``full`` runs every suite at its full demo size."""
    from markupsafe import Markup

    from webgauge.report.html import link, relpath, table, write_html
    from webgauge.report.render import render_html_to_png

    quick = quick and not full
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    parts = suites or ("capture",) + SUITES
    rows, failures, sections = [], {}, []
    started = time.monotonic()
    for i, name in enumerate(parts, 1):
        t0 = time.monotonic()
        print(eta_line(parts, i, quick, t0 - started), flush=True)
        try:
            if name == "capture":
                report = _capture_demo(out / "capture", quick)
            else:
                module, fn = PARTS[name]
                report = getattr(importlib.import_module(module), fn)(out / name, quick=quick)
            reports = [Path(p) for p in (report if isinstance(report, (list, tuple)) else [report])]
            rows.append({"part": name, "report": Markup(" · ").join(
                link(relpath(p, out / "index.html"), relpath(p, out / "index.html")) for p in reports),
                "seconds": round(time.monotonic() - t0, 1), "status": "ok"})
            section = _headline_section(name, out / name, out / "index.html")
            if section is not None:
                sections.append(section)
        except Exception as exc:  # one failing part must not hide the others
            failures[name] = f"{type(exc).__name__}: {exc}"
            (out / f"{name}.error.txt").write_text(traceback.format_exc())
            rows.append({"part": name, "report": f"failed: {exc}", "seconds": round(time.monotonic() - t0, 1),
                         "status": "failed"})
        print(f"   {name}: {rows[-1]['status']} in {rows[-1]['seconds']} s", flush=True)
    total = round(time.monotonic() - started, 1)
    print(f"== webgauge demo: writing {out / 'index.html'} and rendering it to index.png", flush=True)
    index = write_html(out / "index.html", "webgauge demo",
                       [("Reports", table(rows, ["part", "status", "report", "seconds"])), *sections],
                       subtitle=f"Offline run of every suite on the embedded default, with no-network baselines "
                                f"({'full' if not quick else 'default'} size, {total} s). Intervals are 95% "
                                f"cluster-bootstrap intervals.")
    try:
        asyncio.run(render_html_to_png(index, out / "index.png"))
    except Exception as exc:
        failures["render"] = f"{type(exc).__name__}: {exc}"
    return index, failures
