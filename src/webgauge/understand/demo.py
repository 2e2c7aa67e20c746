"""The understand part of ``make demo``: build a small benchmark from synthetic and real pages,
run the offline baselines (``random-guess``, ``label-oracle`` and ``dom-heuristic``) and write the report (HTML,
Markdown,
PNG). Fully offline; about a minute with ``quick=True``.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

__all__ = ["run_demo"]


def _load_embedder() -> None:
    from .embed import get_embedder

    try:
        get_embedder()
    except Exception:  # noqa: BLE001 - the report loads it again and raises with the fix
        get_embedder.cache_clear()


def run_demo(out: Path, quick: bool = False) -> Path:
    """Build, run and report into ``out``; returns the HTML report's path."""
    from ..pages import load_pages, real_pages_dir
    from ..report import render_html_to_png
    from .build import build_benchmark
    from .report import write_report
    from .runner import run_benchmark

    out = Path(out)
    real = real_pages_dir()
    pages = [r.path for r in load_pages(real, limit=2 if quick else 6)] if real is not None else []
    bench, run = out / "bench", out / "run"
    synthetic = 4 if quick else 8
    # the report's sentence embeddings need torch and the MiniLM model (over a minute to load on a
    # busy 2-core machine): load them while the build waits for the browser
    embedder = threading.Thread(target=_load_embedder, name="load-embedder", daemon=True)
    embedder.start()
    print(f"   understand: building the benchmark from {synthetic} synthetic and {len(pages)} real pages "
          "(six renders a page; the bar shows the ETA)", flush=True)
    build_benchmark(bench, seed=0, synthetic=synthetic, pages=pages, force=True)
    print("   understand: answering it with random-guess, label-oracle and dom-heuristic", flush=True)
    run_benchmark(bench, run, ["random-guess", "label-oracle", "dom-heuristic"], seed=0, force=True, workers=1)
    print("   understand: scoring and writing the report", flush=True)
    embedder.join()
    html = write_report(run)
    asyncio.run(render_html_to_png(html, html.with_suffix(".png"), root=out))
    return html
