"""Yield per task, and how much each kept perturbation changes the screenshot, on built benchmarks.

Yield: per task, the pages that kept questions over the pages the task applies to (kept plus
lost: a page is lost when every try on it was rejected by a check or as a no-op; a page with
nothing the task asks about, e.g. no button, does not count), from the manifest's ``task_pages``.

For every perturbed question of the color, text and layout tasks, compares its screenshot with
its pair's clean screenshot (page-wide for color and layout, inside the target's box for text,
the box read from the stored snapshots) and prints per kind and level: pairs kept, pairs
pixel-identical to the clean page, pairs under the no-op threshold
(``webgauge.perturb.MIN_CHANGED_PAGE`` / ``MIN_CHANGED_BOX``), and the median and mean
changed-pixel share. With two folders it prints them side by side (e.g. a build by an older
webgauge and one by this one), plus the build's own ``noop_rejected`` counts. Usage:

    python -m webgauge understand build --pages $WEBGAUGE_SHARED/data/design2code/pages \\
        --synthetic 0 --task color --task text --task layout --all-layout-levels --out B
    python bench/understand_noop.py B [B_OLD]
"""

from __future__ import annotations

import io
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from PIL import Image

from webgauge.perturb import MIN_CHANGED_BOX, MIN_CHANGED_PAGE, changed_fraction
from webgauge.understand.export import read_questions


def _box(bench: Path, snap: str, path: str):
    d = json.loads((bench / "snapshots" / f"{snap}.json").read_text())
    for e in d["elements"]:
        if e["path"] == path:
            return e["box"]
    raise KeyError(f"{path} is not in snapshot {snap}")


def measure(bench: Path) -> dict:
    qs = [q for q in read_questions(bench) if q.task in ("color", "text", "layout")]
    clean = {q.pair: q for q in qs if q.variant == "clean"}
    rows = defaultdict(list)
    for q in qs:
        if q.variant == "clean" or q.pair not in clean:
            continue
        c = clean[q.pair]
        a, b = (bench / c.images[0]).read_bytes(), (bench / q.images[0]).read_bytes()
        box = None
        if q.task == "text":  # boxed images: compare inside the union of the target's boxes
            b1, b2 = _box(bench, c.snapshot, q.elements[0]), _box(bench, q.snapshot, q.elements[0])
            x0, y0 = min(b1[0], b2[0]), min(b1[1], b2[1])
            box = (x0, y0, max(b1[0] + b1[2], b2[0] + b2[2]) - x0, max(b1[1] + b1[3], b2[1] + b2[3]) - y0)
        identical = Image.open(io.BytesIO(a)).tobytes() == Image.open(io.BytesIO(b)).tobytes()
        frac = changed_fraction(a, b, box)
        floor = MIN_CHANGED_BOX if box else MIN_CHANGED_PAGE
        rows[q.variant].append((frac, identical, frac < floor))
    manifest = json.loads((bench / "manifest.json").read_text())
    out = {}
    for kind, r in sorted(rows.items()):
        fr = [f for f, _, _ in r]
        out[kind] = {"kept": len(r), "identical": sum(i for _, i, _ in r), "under_threshold": sum(u for _, _, u in r),
                     "median_changed": statistics.median(fr), "mean_changed": statistics.fmean(fr)}
    return {"kinds": out, "noop_rejected": manifest.get("noop_rejected"),
            "perturbation_size": manifest.get("perturbation_size")}


def yield_rows(bench: Path) -> dict:
    """``{task: (questions, pages kept, pages applied, yield)}`` from a manifest (``None`` when the
    manifest predates ``task_pages``)."""
    m = json.loads((bench / "manifest.json").read_text())
    pages = m.get("task_pages")
    if pages is None:
        return {}
    return {t: (m["questions"].get(t, 0), v["kept"], v["kept"] + v["lost"], v["yield"]) for t, v in pages.items()}


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit(__doc__)
    for p in argv:
        rows = yield_rows(Path(p))
        print(f"{p}: yield per task (pages kept / pages where the task applies)")
        if not rows:
            print("  (this manifest has no task_pages: built by an older webgauge)")
        for t, (nq, kept, applied, y) in rows.items():
            print(f"  {t:10s} questions={nq:5d} pages kept={kept:4d} / applies={applied:4d} "
                  f"yield={'n/a' if y is None else f'{100 * y:.1f}%'}")
        m = json.loads((Path(p) / "manifest.json").read_text())
        if m.get("text_fallbacks") is not None:
            print(f"  text fallbacks: {m['text_fallbacks']}; extra kinds rejected: {m.get('extra_rejected')}")
        print(f"  dropped: {m.get('dropped')}\n")
    results = [(p, measure(Path(p))) for p in argv]
    kinds = sorted({k for _, r in results for k in r["kinds"]})
    head = "kind".ljust(18) + "".join(f"| {Path(p).name[:30]:30s} " for p, _ in results)
    print(head)
    print("".ljust(18) + "| kept identical <thr  median%  mean% " * len(results))
    for k in kinds:
        line = k.ljust(18)
        for _, r in results:
            s = r["kinds"].get(k)
            line += ("| " + (f"{s['kept']:4d} {s['identical']:9d} {s['under_threshold']:4d} "
                             f"{100 * s['median_changed']:8.3f} {100 * s['mean_changed']:6.3f} "
                             if s else "  -".ljust(37)))
        print(line)
    for p, r in results:
        print(f"\n{p}: noop_rejected at build = {r['noop_rejected']}")
        for k, s in (r["perturbation_size"] or {}).items():
            print(f"  {k:16s} pairs={s['pairs']:3d} kept={s['kept']:3d} rejected={s['noop_rejected']:3d} "
                  f"noop_rate={100 * s['noop_rate']:.1f}% median={100 * s['median_changed']:.3f}% "
                  f"mean={100 * s['mean_changed']:.3f}%")


if __name__ == "__main__":
    main(sys.argv[1:])
