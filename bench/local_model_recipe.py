"""Run the README's tiny-model recipe verbatim (build, fine-tune, run base and adapter, report) and time it.

The commands are read from README.md between ``<!-- recipe:tiny -->`` and
``<!-- /recipe:tiny -->`` and run one by one with bash in a fresh temporary folder, with this
interpreter's ``bin/`` first on PATH (so ``python`` and ``webgauge`` are this environment's).
Prints each step's wall and CPU time (CPU time tells the work apart from waiting on a busy
machine), the total, the fine-tune's first and last loss and the report's
§5.2 table (base vs adapter). Usage:

    .venv/bin/python bench/local_model_recipe.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def recipe_lines(readme: Path = ROOT / "README.md") -> list[str]:
    """The shell lines of the README's tiny recipe block."""
    text = readme.read_text()
    m = re.search(r"<!-- recipe:tiny -->\s*```bash\n(.*?)```\s*<!-- /recipe:tiny -->", text, re.S)
    if m is None:
        raise SystemExit("README.md has no <!-- recipe:tiny --> block")
    return [ln for ln in m.group(1).splitlines() if ln.strip() and not ln.startswith("#")]


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", type=Path, default=None, help="run in this folder (kept) instead of a temp one")
    args = ap.parse_args()
    lines = recipe_lines()
    work = args.keep or Path(tempfile.mkdtemp(prefix="webgauge-recipe-"))
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    exports = [ln for ln in lines if ln.startswith("export ")]
    timings = []
    total0 = time.perf_counter()
    for ln in lines:
        if ln.startswith("export "):
            continue
        t0, c0 = time.perf_counter(), _child_cpu()
        res = subprocess.run(["bash", "-c", "\n".join(exports + [ln])], cwd=work, env=env, capture_output=True,
                             text=True)
        dt, cpu = time.perf_counter() - t0, _child_cpu() - c0
        timings.append((ln, dt, cpu))
        print(f"{dt:7.1f} s wall {cpu:6.1f} s cpu  {ln[:100]}", flush=True)
        if res.returncode != 0:
            print(res.stdout[-2000:], res.stderr[-3000:], sep="\n")
            raise SystemExit(f"step failed (exit {res.returncode}): {ln}")
    total = time.perf_counter() - total0
    cpu = sum(t[2] for t in timings)
    print(f"{total:7.1f} s wall {cpu:6.1f} s cpu  total ({'under' if total < 300 else 'OVER'} the 5-minute budget; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    spec = json.loads(next(work.glob("adapters/*/*/finetune.json")).read_text())
    print(f"fine-tune: {spec['steps_done']} steps on {spec['examples']} samples, loss {spec['first_loss']:.3f} -> "
          f"{spec['final_loss']:.3f}")
    md = next(work.glob("runs/*/report/understand.md")).read_text()
    print(md[md.index("## Fine-tuning"):].split("\nPer-item")[0])
    print(f"work folder: {work}")


if __name__ == "__main__":
    main()
