"""webgauge's Design2Code visual score against Design2Code's own code, on the same page pairs.

    .venv/bin/python bench/d2c_reference_bench.py D2C_REPO [--pairs 30] [--seed 0] [--as-published]
                                                   [--write tests/design2code/data/d2c_reference.json]

D2C_REPO is a copy of https://github.com/NoviScl/Design2Code: a checkout, or a bare git
directory (its ``HEAD`` is read with ``git archive``). Nothing of it enters webgauge: its
``Design2Code/`` package is unpacked into a temporary folder and patched there, at run time:

* the ``IndentationError`` in ``metrics/visual_score.py`` (the two "No detected blocks" branches
  indented differently) is re-indented;
* ``clip`` is a stub whose embeddings are all equal (CLIP similarity 1; no weights offline), so
  the CLIP term is a constant and the four block scores are compared;
* ``metrics/screenshot_single.py`` launches the system Chromium (no Playwright download);
* its repetition truncation of the candidate (``pre_process``) is skipped unless ``--as-published``
  (a documented defect: it cuts identical copies of pages that repeat themselves).

The pairs are made from the shared Design2Code pages (``WEBGAUGE_SHARED``) by the seeded recipe
:func:`webgauge.design2code.d2c.edits.reference_pairs`; each pair is scored by the reference
(one process per pair, its own Playwright renders) and by webgauge (one browser, loopback
server). Prints, per metric, Pearson's r, the largest absolute difference and the number of
pairs, and the median time per pair of each implementation (the reference's processes run
``--jobs`` at a time while webgauge scores the pairs one after another in one browser, so its
times are measured under that load). ``--write`` keeps the recipe and
the reference's values for ``tests/design2code/test_d2c_reference.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from webgauge.browser import Browser
from webgauge.browser.chromium import find_chromium
from webgauge.design2code.backend import SiteBackend
from webgauge.design2code.d2c import D2C_PROFILE, d2c_capture, d2c_scores
from webgauge.design2code.d2c.edits import edit_page, reference_pairs
from webgauge.pages import require_real_pages

METRICS = ("d2c_block", "d2c_text", "d2c_position", "d2c_color")
CLIP_STUB = '''import torch
class _Model:
    def encode_image(self, x):
        return torch.ones(1, 8)
def load(name, device="cpu"):
    return _Model(), lambda image: torch.zeros(3, 4, 4)
'''
DRIVER = '''import json, sys
sys.path.insert(0, sys.argv[1])
from Design2Code.metrics.visual_score import visual_eval_v3_multi
out = visual_eval_v3_multi([[sys.argv[3]], sys.argv[2]])
print("D2C_RESULT " + json.dumps(out, default=float))
'''


def unpack_reference(repo: Path, into: Path) -> Path:
    """Design2Code's package from ``repo`` (checkout or bare git dir), patched, under ``into``."""
    if (repo / "Design2Code").is_dir():
        shutil.copytree(repo / "Design2Code", into / "Design2Code")
    else:
        git = ["git", f"--git-dir={repo}"]
        listing = subprocess.run([*git, "ls-tree", "-r", "--name-only", "HEAD", "Design2Code/"], check=True,
                                 capture_output=True, text=True).stdout.split()
        for name in listing:
            if name.endswith(".py"):  # the code only (a mirror may lack large blobs)
                dest = into / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(subprocess.run([*git, "show", f"HEAD:{name}"], check=True,
                                                capture_output=True).stdout)
    vs = into / "Design2Code/metrics/visual_score.py"
    src = vs.read_text()
    src = src.replace("\n         if len(predict_blocks) == 0:", "\n        if len(predict_blocks) == 0:")
    src = src.replace("\n            elif len(original_blocks) == 0:", "\n        elif len(original_blocks) == 0:")
    vs.write_text(src)
    shot = into / "Design2Code/metrics/screenshot_single.py"
    shot.write_text(shot.read_text().replace("p.chromium.launch()",
                                             "p.chromium.launch(executable_path=os.environ['D2C_CHROMIUM'])"))
    (into / "clip.py").write_text(CLIP_STUB)
    (into / "driver.py").write_text(DRIVER)
    compile(vs.read_text(), str(vs), "exec")  # the import error is gone
    return into


def skip_truncation(root: Path) -> None:
    vs = root / "Design2Code/metrics/visual_score.py"
    vs.write_text(vs.read_text().replace("        pre_process(predict_html)\n",
                                         "        pass  # the bench skips the repetition truncation\n"))


def run_reference(root: Path, pair_dir: Path, limit: float = 3600) -> tuple[dict[str, float] | None, float]:
    """The published code's scores of one pair and its time; ``None`` (reported, the run goes on)
    when it fails or takes longer than ``limit`` seconds."""
    env = {**os.environ, "D2C_CHROMIUM": find_chromium(None), "MPLBACKEND": "Agg",
           "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"}
    t = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, str(root / "driver.py"), str(root), str(pair_dir / "ref.html"),
                              str(pair_dir / "cand.html")], cwd=root / "Design2Code", env=env,
                             capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        print(f"{pair_dir.name}: the reference took more than {limit:.0f} s; left out", flush=True)
        return None, time.perf_counter() - t
    took = time.perf_counter() - t
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("D2C_RESULT ")), None)
    if line is None:
        print(f"{pair_dir.name}: the reference failed; left out: {out.stderr[-500:]}", flush=True)
        return None, took
    _, final, (block, text, position, color, clip) = json.loads(line[len("D2C_RESULT "):])[0]
    return {"d2c_block": block, "d2c_text": text, "d2c_position": position, "d2c_color": color,
            "clip_stub": clip, "final": final}, took


async def run_ours(browser: Browser, pair_dir: Path) -> tuple[dict[str, float], float]:
    files = {p.name: p.read_bytes() for p in pair_dir.iterdir() if p.is_file()}
    t = time.perf_counter()
    with SiteBackend(files) as site:
        async with browser.open(site.url("ref.html"), D2C_PROFILE) as page:
            ref = await d2c_capture(page)
        async with browser.open(site.url("cand.html"), D2C_PROFILE) as page:
            cand = await d2c_capture(page)
    s = d2c_scores(cand.png, cand.blocks, ref.png, ref.blocks)
    return {m: float(s[m]) for m in METRICS}, time.perf_counter() - t


def write_pair(pages: Path, page_id: str, kind: str, seed: int, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    html = (pages / f"{page_id}.html").read_text(encoding="utf-8")
    (into / "ref.html").write_text(html, encoding="utf-8")
    (into / "cand.html").write_text(edit_page(html, kind, seed), encoding="utf-8")
    for asset in pages.iterdir():  # the pages' shared image (rick.jpg), not the screenshots
        if asset.suffix.lower() in (".jpg", ".jpeg", ".gif", ".svg"):
            shutil.copy(asset, into / asset.name)
    return into


def write_fixture(path: Path, rows: list[dict], as_published: bool, seed: int = 0) -> None:
    """The recipe of the pairs scored so far and the reference's values on them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "recipe": f"webgauge.design2code.d2c.edits.reference_pairs(ids of the shared pages, N, {seed}); "
                  "pairs the reference could not score are left out",
        "reference": "Design2Code visual_score.py (import error re-indented, CLIP stubbed"
                     + (")" if as_published else ", repetition truncation skipped)"),
        "pairs": [{"page": r["page"], "kind": r["kind"], "seed": r["seed"],
                   "reference": {m: r["reference"][m] for m in METRICS},
                   "seconds": r["seconds"]} for r in rows]}, indent=1) + "\n")


def pearson(a: list[float], b: list[float]) -> float:
    if np.std(a) == 0 or np.std(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", type=Path, help="Design2Code checkout or bare git dir")
    ap.add_argument("--pairs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--as-published", action="store_true", help="keep the reference's repetition truncation")
    ap.add_argument("--jobs", type=int, default=2, help="reference processes at once")
    ap.add_argument("--write", type=Path, default=None, help="write the recipe and the reference's values here")
    args = ap.parse_args()
    pages = require_real_pages()
    ids = [p.stem for p in pages.glob("*.html")]
    recipe = reference_pairs(ids, args.pairs, args.seed)
    rows = []
    with tempfile.TemporaryDirectory(prefix="d2c-ref-") as tmp:
        root = unpack_reference(args.repo, Path(tmp) / "ref")
        if not args.as_published:
            skip_truncation(root)
        dirs = [write_pair(pages, p, k, s, Path(tmp) / f"pair{i:02d}") for i, (p, k, s) in enumerate(recipe)]
        with ThreadPoolExecutor(args.jobs) as pool:  # the reference's processes, beside ours
            refs = [pool.submit(run_reference, root, d) for d in dirs]
            async with Browser.launch() as browser:
                ours_all = [await run_ours(browser, d) for d in dirs]
            for k, ((page_id, kind, seed), fut, (ours, t_ours)) in enumerate(zip(recipe, refs, ours_all,
                                                                                  strict=True)):
                ref, t_ref = fut.result()
                if ref is None:
                    continue
                rows.append({"page": page_id, "kind": kind, "seed": seed, "reference": ref, "ours": ours,
                             "seconds": {"reference": t_ref, "ours": t_ours}})
                print(f"{k + 1:2d}/{len(recipe)} {page_id:>6} {kind:9} "
                      + " ".join(f"{m[4:]}={ref[m]:.3f}/{ours[m]:.3f}" for m in METRICS)
                      + f"  {t_ref:.1f}s/{t_ours:.1f}s", flush=True)
                if args.write:  # kept pair by pair: a long run cut short keeps what it measured
                    write_fixture(args.write, rows, args.as_published, args.seed)
    print(f"\n{'metric':14} {'pearson':>8} {'max|diff|':>10} {'n':>3}")
    for m in METRICS:
        a = [r["reference"][m] for r in rows]
        b = [r["ours"][m] for r in rows]
        print(f"{m:14} {pearson(a, b):8.4f} {max(abs(x - y) for x, y in zip(a, b, strict=True)):10.4f} {len(a):3d}")
    a = [sum(r["reference"][m] for m in METRICS) / 4 for r in rows]
    b = [sum(r["ours"][m] for m in METRICS) / 4 for r in rows]
    print(f"{'final_noclip':14} {pearson(a, b):8.4f} {max(abs(x - y) for x, y in zip(a, b, strict=True)):10.4f} "
          f"{len(a):3d}")
    ident = [r for r in rows if r["kind"] == "identical"]
    print(f"identical copies: reference all 1.0: {all(r['reference'][m] == 1.0 for r in ident for m in METRICS)}, "
          f"ours all 1.0: {all(r['ours'][m] == 1.0 for r in ident for m in METRICS)} ({len(ident)} pairs)")
    t_ref = statistics.median(r["seconds"]["reference"] for r in rows)
    t_ours = statistics.median(r["seconds"]["ours"] for r in rows)
    print(f"median time per pair: reference {t_ref:.2f} s, webgauge {t_ours:.2f} s "
          f"(reference / webgauge = {t_ref / t_ours:.1f}x)")
    if args.write:
        write_fixture(args.write, rows, args.as_published, args.seed)
        print(f"wrote {args.write}")

if __name__ == "__main__":
    asyncio.run(main())
