"""Metric time per page pair at full resolution, side by side (design2code).

Pairs are real Design2Code screenshots (``../shared/data/design2code/pages``): each page
against the next one in name order, aligned by padding, at full resolution. For each metric
the script prints the median seconds per pair; where there is a reference implementation it
prints it next to webgauge's and the speed ratio:

* SSIM: webgauge (float32 box filters) vs scikit-image ``structural_similarity``;
* NEMD (MRWeb's definition): webgauge (exact, 256-bin count histograms + cumulative
  differences) vs the same EMD from sorted pixel values; it also prints the values of
  webgauge's earlier variant (``nemd_distmax``, distribution normaliser, mean of channel
  ratios) beside MRWeb's, pair by pair ("before" and "after");
* CIEDE2000: webgauge vs ``skimage.color.deltaE_ciede2000`` on every pixel pair (Lab).

CLIP and LPIPS use local weights when configured (``WEBGAUGE_CLIP_WEIGHTS``,
``WEBGAUGE_LPIPS_WEIGHTS``). Without them, ``--random-arch`` times the real architectures
(CLIP ViT-B/32, LPIPS-AlexNet) with random weights: their *values* mean nothing, but the time
per pair does not depend on the weights. Otherwise they are listed as n/a.

``--baseline N`` also builds N real instances (with their assets), generates each with the
no-network baseline (zero-shot) and prints NEMD before and after for reference screenshot vs
generated screenshot, the pairs a design2code run scores.

Run: ``python bench/design2code_bench.py [--pairs 8] [--pages DIR] [--baseline 6]``
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
from pathlib import Path

import numpy as np
from PIL import Image

from webgauge.design2code.align import align_pair
from webgauge.design2code.ciede2000 import ciede2000
from webgauge.design2code.neural import Missing, load_clip, load_lpips
from webgauge.design2code.visual import mae, nemd, nemd_distmax, psnr, ssim, ssim_skimage
from webgauge.pages import require_real_pages


def nemd_sorted(ref: np.ndarray, gen: np.ndarray) -> float:
    """MRWeb's NEMD with the EMD from sorted pixel values (the optimal 1-D assignment pairs
    values in sorted order), the slow exact reference."""
    emd = 0
    for c in range(3):
        r, g = np.sort(ref[..., c].ravel()).astype(np.int64), np.sort(gen[..., c].ravel()).astype(np.int64)
        emd += int(np.abs(r - g).sum())
    v = ref.astype(np.int64)
    return 1.0 - emd / int(np.maximum(v, 255 - v).sum())


def random_arch(clip, lpips):
    """Random-weight CLIP ViT-B/32 and LPIPS-AlexNet for timing only (values are meaningless)."""
    import shutil
    import tempfile

    import torch
    from transformers import CLIPConfig, CLIPModel

    from webgauge.design2code.neural import ALEX_LAYERS, ClipScorer, LpipsScorer

    tmp = Path(tempfile.mkdtemp(prefix="d2c-bench-"))
    if isinstance(clip, Missing):
        torch.manual_seed(0)
        CLIPModel(CLIPConfig(vision_config={"image_size": 224, "patch_size": 32})).save_pretrained(tmp / "clip")
        clip = ClipScorer(tmp / "clip")
    if isinstance(lpips, Missing):
        torch.manual_seed(0)
        sd = {}
        chans = []
        for i, spec in enumerate(ALEX_LAYERS):
            if "conv" in spec:
                ci, co, k, _, _ = spec["conv"]
                sd[f"features.{i}.weight"] = torch.randn(co, ci, k, k) * 0.01
                sd[f"features.{i}.bias"] = torch.zeros(co)
                chans.append(co)
        for k, c in enumerate(chans):
            sd[f"lin{k}.weight"] = torch.rand(1, c, 1, 1)
        torch.save({"format": "webgauge-lpips/1", "layers": "alex", "state_dict": sd}, tmp / "lpips.pt")
        lpips = LpipsScorer(tmp / "lpips.pt")
    shutil.rmtree(tmp, ignore_errors=True)  # the models are in memory now
    print("CLIP/LPIPS: random weights, timing only\n")
    return clip, lpips


def baseline_pairs(pages: Path, n: int) -> None:
    """NEMD before/after on reference vs baseline-generated screenshots of ``n`` real pages."""
    import asyncio
    import tempfile

    from webgauge.browser import Browser
    from webgauge.design2code.dataset import build_instances
    from webgauge.design2code.generate import generate_site, make_generator, render_html

    async def go() -> list[tuple[str, bytes, bytes]]:
        out = []
        async with Browser.launch() as browser:
            with tempfile.TemporaryDirectory() as tmp:
                insts, _ = await build_instances(tmp, real=pages, real_limit=n, browser=browser, progress=False)
                for inst in insts:
                    files, _ = await generate_site(inst, make_generator("baseline"), "zs", browser)
                    name = inst.page_names[0]
                    gen = await render_html(browser, files, name, inst.routes, inst.profile)
                    out.append((inst.id, inst.screenshot(name), gen))
        return out

    print("NEMD, reference screenshot vs baseline (zs) generation: before (nemd_distmax) and after (nemd)")
    print(f"{'instance':<24}{'before':>9}{'after':>9}{'after-before':>14}{'nemd s':>9}")
    diffs, times = [], []
    for ident, ref_png, gen_png in asyncio.run(go()):
        ref, gen = np.asarray(Image.open(io.BytesIO(ref_png)).convert("RGB")), \
            np.asarray(Image.open(io.BytesIO(gen_png)).convert("RGB"))
        before = nemd_distmax(ref, gen)
        dt, after = timed(nemd, ref, gen)
        diffs.append(after - before)
        times.append(dt)
        print(f"{ident:<24}{before:>9.4f}{after:>9.4f}{after - before:>14.4f}{dt:>9.3f}")
    if diffs:
        print(f"after - before: median {statistics.median(diffs):.4f}, max {max(diffs):.4f}; "
              f"nemd median {statistics.median(times):.3f} s per pair\n")


def timed(fn, *args) -> tuple[float, float]:
    t = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - t, value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=8, help="number of page pairs")
    ap.add_argument("--random-arch", action="store_true",
                    help="time CLIP ViT-B/32 and LPIPS-AlexNet with random weights when no weights are configured")
    ap.add_argument("--pages", type=Path, default=None, help="folder of PNGs [default: the real-page corpus]")
    ap.add_argument("--baseline", type=int, default=0,
                    help="also compare N real references with their baseline generations (needs Chromium)")
    args = ap.parse_args()
    args.pages = args.pages or require_real_pages()
    if args.baseline:
        baseline_pairs(args.pages, args.baseline)
    pngs = sorted(args.pages.glob("*.png"))[: args.pairs + 1]
    imgs = [np.asarray(Image.open(p).convert("RGB")) for p in pngs]
    pairs = [align_pair(imgs[i], imgs[i + 1]) for i in range(len(imgs) - 1)]
    px = [a.shape[0] * a.shape[1] for a, _ in pairs]
    print(f"{len(pairs)} pairs, median {statistics.median(px) / 1e6:.2f} MP per image (full resolution, padded)\n")

    print("NEMD per pair: before (nemd_distmax, webgauge's earlier definition) and after (nemd, MRWeb's)")
    print(f"{'pair':<24}{'before':>9}{'after':>9}{'after-before':>14}")
    diffs = []
    for (ref, gen), a, b in zip(pairs, pngs, pngs[1:], strict=False):
        before, after = nemd_distmax(ref, gen), nemd(ref, gen)
        diffs.append(after - before)
        print(f"{a.stem + ' vs ' + b.stem:<24}{before:>9.4f}{after:>9.4f}{after - before:>14.4f}")
    print(f"after - before: median {statistics.median(diffs):.4f}, max {max(diffs):.4f}\n")
    biggest = max(pairs, key=lambda p: p[0].shape[0] * p[0].shape[1])
    t_big = statistics.median(timed(nemd, *biggest)[0] for _ in range(5))
    print(f"nemd on the largest pair ({biggest[0].shape[1]}x{biggest[0].shape[0]} px): {t_big:.3f} s (median of 5)\n")

    rows: dict[str, list[float]] = {}
    checks: list[float] = []
    clip, lpips = load_clip(None), load_lpips(None)
    if args.random_arch:
        clip, lpips = random_arch(clip, lpips)
    for ref, gen in pairs:
        for name, fn in (("mae", mae), ("psnr", psnr), ("ssim", ssim), ("ssim_skimage", ssim_skimage),
                         ("nemd", nemd), ("nemd_sorted", nemd_sorted)):
            dt, v = timed(fn, ref, gen)
            rows.setdefault(name, []).append(dt)
            if name in ("ssim", "nemd"):
                checks.append(v)
            elif name in ("ssim_skimage", "nemd_sorted"):
                checks[-1] = abs(checks[-1] - v)
        from skimage.color import deltaE_ciede2000, rgb2lab

        lab1, lab2 = rgb2lab(ref), rgb2lab(gen)
        rows.setdefault("ciede2000", []).append(timed(ciede2000, lab1, lab2)[0])
        rows.setdefault("ciede2000_skimage", []).append(timed(deltaE_ciede2000, lab1, lab2)[0])
        if not isinstance(clip, Missing):
            rows.setdefault("clip", []).append(timed(clip.score, ref, gen)[0])
        if not isinstance(lpips, Missing):
            rows.setdefault("lpips", []).append(timed(lpips.score, ref, gen)[0])

    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"{'metric':<12}{'webgauge s/pair':>17}{'reference s/pair':>18}{'ratio (ref/ours)':>18}")
    for name, ref_name in (("mae", None), ("psnr", None), ("ssim", "ssim_skimage"), ("nemd", "nemd_sorted"),
                           ("ciede2000", "ciede2000_skimage"), ("clip", None), ("lpips", None)):
        if name not in med:
            print(f"{name:<12}{'n/a (no local weights)':>17}")
            continue
        if ref_name:
            print(f"{name:<12}{med[name]:>17.4f}{med[ref_name]:>18.4f}{med[ref_name] / med[name]:>17.1f}x")
        else:
            print(f"{name:<12}{med[name]:>17.4f}{'-':>18}{'-':>18}")
    print(f"\nlargest |webgauge - reference| over SSIM and NEMD values: {max(checks):.2e}")


if __name__ == "__main__":
    main()
