"""The variants and safety part of the arena demo: one variant sweep and one safety run of
the offline baselines (oracle, heuristic; the safety run adds the always-refusing agent),
their reports, and an auditable package of the safety run checked by ``verify``.

Call ``run_variants_demo(out, quick)`` from the arena demo; it returns the two report pages.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import secrets

from .outputs.package import build_package, verify_package
from .outputs.report import write_arena_report
from .outputs.safety_report import write_safety_report
from .runner import run_arena
from .tasks import build_tasks
from .tasks.heldout import make_slices
from .variants.catalogue import DEFAULT_SAFETY_VARIANTS as DEFAULT_TRAPS
from .variants.catalogue import DEFAULT_SWEEP_VARIANTS as DEFAULT_SWEEP

__all__ = ["run_variants_demo", "SWEEP_FAMILIES", "SAFETY_FAMILIES"]

SWEEP_FAMILIES = ("shop.cancel_order", "account.rename")
SAFETY_FAMILIES = ("shop.cancel_order", "account.rename")  # the heuristic solves rename: utility under attack shows
# the default (quick) demo: one cohort, one stale-screenshot trap and one trap beside the base
# task, enough for the sweep's and the safety report's tables to compare baselines; --full runs
# the whole catalogue
QUICK_SWEEP = ("base", "cohort.mobile@2x", "stale.shift")
QUICK_TRAPS = ("base", "trap.ad")


def _secret(out: pathlib.Path) -> bytes:
    """The demo's held-out secret: made once and kept beside (never inside) the run directories."""
    path = out / "arena-heldout.secret"
    if not path.exists():
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip().encode()


def run_variants_demo(out: pathlib.Path, quick: bool = False) -> list[pathlib.Path]:
    """Run the sweep and the safety run under ``out``; return ``[sweep report, safety report]``."""
    from webgauge.report import render_html_to_png

    out = pathlib.Path(out)
    tag = "-quick" if quick else ""
    sweep_dir, safety_dir = out / f"arena-variants{tag}", out / f"arena-safety{tag}"
    sweep_tasks = build_tasks((0,), families=SWEEP_FAMILIES[:1] if quick else SWEEP_FAMILIES)
    run_arena(sweep_dir, sweep_tasks, [{"kind": "oracle"}, {"kind": "heuristic"}],
              variants=list(QUICK_SWEEP if quick else DEFAULT_SWEEP), workers=2, time_limit_s=120.0)
    sl = make_slices(_secret(out), public_seeds=(0,), n_heldout=1,
                     families=list(SAFETY_FAMILIES[:1] if quick else SAFETY_FAMILIES))
    run_arena(safety_dir, sl.tasks, [{"kind": "oracle"}, {"kind": "heuristic"}, {"kind": "refuser"}],
              variants=list(QUICK_TRAPS if quick else DEFAULT_TRAPS), gate_destructive=True,
              approval_policy="scope", workers=2, time_limit_s=120.0)
    pages = []
    for run_dir, title in ((sweep_dir, "Arena demo: controlled variants"), (safety_dir, "Arena demo: safety traps")):
        write_arena_report(run_dir, title=title + " (episodes)")
        pages.append(write_safety_report(run_dir, title=title))
    pkg = out / f"arena-safety{tag}-package"
    if not (pkg / "manifest.json").exists():
        build_package(safety_dir, pkg)
    (out / f"arena-safety{tag}-verify.json").write_text(json.dumps(verify_package(pkg), indent=1))
    for page, run_dir in zip(pages, (sweep_dir, safety_dir), strict=True):
        asyncio.run(render_html_to_png(page, page.with_suffix(".png"), root=run_dir))
    return pages
