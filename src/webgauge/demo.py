"""``make demo`` / ``webgauge demo``: the main job, offline, on the embedded default.

It writes the bundled synthetic pages (plus the real pages beside the checkout when
present), captures them, then runs each suite's own demo with its no-network baselines,
and links every report from ``OUT/index.html`` (also rendered to ``index.png``).
"""

from __future__ import annotations

import asyncio
import importlib
import time
import traceback
from pathlib import Path

__all__ = ["run_demo", "write_synthetic_pages"]

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


def run_demo(out: str | Path, quick: bool = False, suites: tuple[str, ...] | None = None) -> tuple[Path, dict]:
    """Run the demo into ``out``; returns (index.html, {part: error}) — a failing part is
    recorded and the other parts still run."""
    from markupsafe import Markup

    from webgauge.report.html import link, relpath, table, write_html
    from webgauge.report.render import render_html_to_png

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    parts = suites or ("capture",) + SUITES
    rows, failures = [], {}
    for name in parts:
        t0 = time.monotonic()
        print(f"== webgauge demo: {name}", flush=True)
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
        except Exception as exc:  # one failing part must not hide the others
            failures[name] = f"{type(exc).__name__}: {exc}"
            (out / f"{name}.error.txt").write_text(traceback.format_exc())
            rows.append({"part": name, "report": f"failed: {exc}", "seconds": round(time.monotonic() - t0, 1),
                         "status": "failed"})
    index = write_html(out / "index.html", "webgauge demo",
                       [("Reports", table(rows, ["part", "status", "report", "seconds"]))],
                       subtitle="Offline run of every suite on the embedded default, with no-network baselines.")
    try:
        asyncio.run(render_html_to_png(index, out / "index.png"))
    except Exception as exc:
        failures["render"] = f"{type(exc).__name__}: {exc}"
    return index, failures
