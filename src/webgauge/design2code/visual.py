"""Pixel-level visual metrics between a reference and a generated screenshot.

All metrics run at full resolution on images aligned by :func:`webgauge.design2code.align.align_pair`.

* ``mae``  – mean absolute difference over every pixel and RGB channel, in 0..255 (lower is better).
* ``psnr`` – ``10 log10(255^2 / MSE)`` in dB; ``inf`` for identical images (higher is better).
* ``ssim`` – structural similarity (scikit-image's definition: 7x7 uniform window, data
  range 255, averaged over the RGB channels), computed in float32 (higher is better).
* ``nemd`` – MRWeb's normalised earth mover's distance similarity, see :func:`nemd` (higher is better);
  :func:`nemd_distmax` is webgauge's earlier variant, kept under its own name.
"""

from __future__ import annotations

import math

import numpy as np

from webgauge.design2code.align import PAD_VALUE, AlignMode, align_pair, to_rgb_array

__all__ = ["mae", "psnr", "ssim", "ssim_skimage", "nemd", "nemd_distmax", "emd_pixels", "emd_max",
           "channel_counts", "channel_histograms", "emd_1d", "visual_metrics", "PIXEL_METRICS"]

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


def channel_counts(image) -> np.ndarray:
    """Return a ``(3, 256)`` int64 array: how many pixels take each value 0..255, per channel."""
    from PIL import Image

    arr = to_rgb_array(image)
    # Pillow's C histogram is about twice as fast as three strided np.bincount calls
    return np.asarray(Image.fromarray(arr, "RGB").histogram(), dtype=np.int64).reshape(3, 256)


def channel_histograms(image) -> np.ndarray:
    """Return a ``(3, 256)`` array of per-channel probability mass over pixel values 0..255."""
    counts = channel_counts(image).astype(np.float64)
    return counts / counts[0].sum()


def emd_1d(p: np.ndarray, q: np.ndarray) -> float:
    """Exact 1-D earth mover's distance between two distributions on bins 0..255 (unit spacing).

    In one dimension the optimal transport cost is the L1 distance between the cumulative
    distributions, so this is exact, not an approximation.
    """
    return float(np.abs(np.cumsum(p) - np.cumsum(q)).sum())


_FARTHEST = np.maximum(np.arange(256), 255 - np.arange(256)).astype(np.int64)


def emd_pixels(reference, generated) -> int:
    """MRWeb's EMD between two equal-size images: the least total cost of moving every pixel
    value of the reference onto the generated image's values, channel by channel (cost
    ``|a - b|`` per pixel and channel, each pixel used once), summed over R, G and B.

    An optimal one-to-one assignment of equally many values on a line pairs them in sorted
    order, so the cost is the L1 distance between the two cumulative *count* histograms:
    exact (integer arithmetic) at full resolution, with no sorting.
    """
    cr, cg = channel_counts(reference), channel_counts(generated)
    if cr[0].sum() != cg[0].sum():
        raise ValueError("EMD between images needs equal pixel counts; align the pair first (align_pair)")
    return int(np.abs(np.cumsum(cr, axis=1) - np.cumsum(cg, axis=1)).sum())


def emd_max(reference) -> int:
    """MRWeb's ``EMD_max``: every reference pixel value moved to its farthest value (0 or 255),
    i.e. the sum over all pixels and channels of ``max(v, 255 - v)``; an upper bound on
    :func:`emd_pixels` from the reference to any image of its size."""
    return int((channel_counts(reference) * _FARTHEST).sum())


def nemd(reference, generated, align: AlignMode = "pad") -> float:
    """Normalised EMD similarity as MRWeb defines it: ``1 - EMD / EMD_max``.

    ``EMD`` is :func:`emd_pixels` (pixel-to-pixel transport of values, per channel, summed
    over the three channels) and ``EMD_max`` is :func:`emd_max` of the reference: one ratio
    over the three channels. The score is 1 for equal value distributions and 0 only when
    every reference value went to its farthest value. It is not symmetric (the reference
    sets ``EMD_max``).

    Deliberate deviation from the paper: the pair is aligned by
    :func:`~webgauge.design2code.align.align_pair` (deterministic white padding, or resize),
    not by MRWeb's random-noise canvas, so the value needs no seed and is computed at full
    resolution. MRWeb's own pipeline (noise canvas, downscaled) can differ from the
    full-resolution value on the same pair by up to about 0.3.
    """
    if align == "pad":  # white padding only adds pixels at 255: count them instead of padding
        ref, gen = to_rgb_array(reference), to_rgb_array(generated)
        h, w = max(ref.shape[0], gen.shape[0]), max(ref.shape[1], gen.shape[1])
        cr, cg = channel_counts(ref), channel_counts(gen)
        cr[:, PAD_VALUE] += h * w - ref.shape[0] * ref.shape[1]
        cg[:, PAD_VALUE] += h * w - gen.shape[0] * gen.shape[1]
    else:
        ref, gen = align_pair(reference, generated, align)
        cr, cg = channel_counts(ref), channel_counts(gen)
    emd = int(np.abs(np.cumsum(cr, axis=1) - np.cumsum(cg, axis=1)).sum())
    return 1.0 - emd / int((cr * _FARTHEST).sum())


def nemd_distmax(reference, generated, align: AlignMode = "pad") -> float:
    """webgauge's earlier variant, kept under its own name for comparison (not MRWeb's).

    Mean over RGB of ``1 - EMD_c / max(mean_c, 255 - mean_c)``, with ``EMD_c`` between the
    per-channel value *distributions* and the normaliser the largest EMD any distribution can
    have from the reference distribution (a point mass at 0 or 255). This normaliser is never
    larger than MRWeb's per-pixel one, so the value is never higher than :func:`nemd`.
    """
    ref, gen = align_pair(reference, generated, align)
    hr, hg = channel_histograms(ref), channel_histograms(gen)
    values = np.arange(256, dtype=np.float64)
    scores = []
    for c in range(3):
        mean_ref = float((hr[c] * values).sum())
        scores.append(1.0 - emd_1d(hr[c], hg[c]) / max(mean_ref, 255.0 - mean_ref))
    return float(np.mean(scores))


def visual_metrics(reference, generated, align: AlignMode = "pad") -> dict[str, float]:
    """Compute MAE, PSNR, SSIM and NEMD once, aligning the pair a single time."""
    ref, gen = align_pair(reference, generated, align)
    return {"mae": mae(ref, gen), "psnr": psnr(ref, gen), "ssim": ssim(ref, gen),
            "nemd": nemd(ref, gen)}
