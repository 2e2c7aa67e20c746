"""Pixel-level visual metrics between a reference and a generated screenshot.

All metrics run at full resolution on images aligned by :func:`webgauge.design2code.align.align_pair`.

* ``mae``  – mean absolute difference over every pixel and RGB channel, in 0..255 (lower is better).
* ``psnr`` – ``10 log10(255^2 / MSE)`` in dB; ``inf`` for identical images (higher is better).
* ``ssim`` – structural similarity (scikit-image's definition: 7x7 uniform window, data
  range 255, averaged over the RGB channels), computed in float32 (higher is better).
* ``nemd`` – normalised earth mover's distance similarity, see :func:`nemd` (higher is better).
"""

from __future__ import annotations

import math

import numpy as np

from webgauge.design2code.align import AlignMode, align_pair, to_rgb_array

__all__ = ["mae", "psnr", "ssim", "ssim_skimage", "nemd", "channel_histograms", "emd_1d", "visual_metrics",
           "PIXEL_METRICS"]

PIXEL_METRICS: tuple[str, ...] = ("mae", "psnr", "ssim", "nemd")


def _abs_diff(ref: np.ndarray, gen: np.ndarray) -> np.ndarray:
    return np.abs(ref.astype(np.int16) - gen.astype(np.int16))


def mae(reference, generated, align: AlignMode = "pad") -> float:
    """Mean absolute error in pixel units (0..255) over all pixels and channels."""
    ref, gen = align_pair(reference, generated, align)
    return float(_abs_diff(ref, gen).mean())


def psnr(reference, generated, align: AlignMode = "pad") -> float:
    """Peak signal-to-noise ratio with peak 255; ``math.inf`` when the images are equal."""
    ref, gen = align_pair(reference, generated, align)
    d = _abs_diff(ref, gen).astype(np.float32)
    mse = float(np.einsum("ijk,ijk->", d, d, dtype=np.float64)) / d.size
    if mse == 0.0:
        return math.inf
    return 10.0 * math.log10(255.0 ** 2 / mse)


def ssim(reference, generated, align: AlignMode = "pad") -> float:
    """Structural similarity with scikit-image's definition (7x7 uniform window, K1=0.01,
    K2=0.03, sample covariances, data range 255, border of 3 px cropped, mean over RGB),
    computed in float32 with separable box filters: the same value as
    ``skimage.metrics.structural_similarity(channel_axis=2, data_range=255)`` to ~1e-5,
    several times faster on full-page screenshots (see ``bench/design2code_bench.py``)."""
    from scipy.ndimage import uniform_filter

    ref, gen = align_pair(reference, generated, align)
    if min(ref.shape[0], ref.shape[1]) < 7:
        raise ValueError("SSIM needs images of at least 7x7 pixels")
    win, n = 7, 49
    cov_norm = n / (n - 1)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    pad = (win - 1) // 2
    scores = []
    for c in range(3):
        x = ref[..., c].astype(np.float32)
        y = gen[..., c].astype(np.float32)
        ux, uy = uniform_filter(x, win), uniform_filter(y, win)
        uxx, uyy, uxy = uniform_filter(x * x, win), uniform_filter(y * y, win), uniform_filter(x * y, win)
        vx = cov_norm * (uxx - ux * ux)
        vy = cov_norm * (uyy - uy * uy)
        vxy = cov_norm * (uxy - ux * uy)
        s = ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2))
        scores.append(float(s[pad:-pad, pad:-pad].astype(np.float64).mean()))
    return float(np.mean(scores))


def ssim_skimage(reference, generated, align: AlignMode = "pad") -> float:
    """The reference implementation (scikit-image, float64), kept for tests and the bench."""
    from skimage.metrics import structural_similarity

    ref, gen = align_pair(reference, generated, align)
    return float(structural_similarity(ref, gen, channel_axis=2, data_range=255))


def channel_histograms(image) -> np.ndarray:
    """Return a ``(3, 256)`` array of per-channel probability mass over pixel values 0..255."""
    arr = to_rgb_array(image)
    flat = arr.reshape(-1, 3)
    n = flat.shape[0]
    hist = np.stack([np.bincount(flat[:, c], minlength=256) for c in range(3)]).astype(np.float64)
    return hist / n


def emd_1d(p: np.ndarray, q: np.ndarray) -> float:
    """Exact 1-D earth mover's distance between two distributions on bins 0..255 (unit spacing).

    In one dimension the optimal transport cost is the L1 distance between the cumulative
    distributions, so this is exact, not an approximation.
    """
    return float(np.abs(np.cumsum(p) - np.cumsum(q)).sum())


def nemd(reference, generated, align: AlignMode = "pad") -> float:
    """Normalised EMD similarity: mean over RGB channels of ``1 - EMD / EMD_max``.

    ``EMD`` is the exact 1-D earth mover's distance between the reference's and the generated
    image's pixel-value distributions in that channel (256 bins, full resolution). ``EMD_max``
    is taken relative to the reference: the largest EMD any distribution can have from the
    reference distribution. EMD to the reference is convex in the other distribution, so the
    maximum is at a point mass, at value 0 or 255: ``EMD_max = max(mean_ref, 255 - mean_ref)``,
    which is never below 127.5. The score is 1 for equal distributions and 0 at the worst case.
    """
    ref, gen = align_pair(reference, generated, align)
    hr, hg = channel_histograms(ref), channel_histograms(gen)
    values = np.arange(256, dtype=np.float64)
    scores = []
    for c in range(3):
        mean_ref = float((hr[c] * values).sum())
        emd_max = max(mean_ref, 255.0 - mean_ref)
        scores.append(1.0 - emd_1d(hr[c], hg[c]) / emd_max)
    return float(np.mean(scores))


def visual_metrics(reference, generated, align: AlignMode = "pad") -> dict[str, float]:
    """Compute MAE, PSNR, SSIM and NEMD once, aligning the pair a single time."""
    ref, gen = align_pair(reference, generated, align)
    return {"mae": mae(ref, gen), "psnr": psnr(ref, gen), "ssim": ssim(ref, gen),
            "nemd": nemd(ref, gen)}
