"""Pixel metrics on images whose true values are known by construction."""

import io
import math

import numpy as np
import pytest
from PIL import Image

from webgauge.design2code.align import align_pair
from webgauge.design2code.visual import emd_1d, mae, nemd, nemd_distmax, psnr, ssim, visual_metrics


def solid(h, w, rgb):
    return np.full((h, w, 3), rgb, dtype=np.uint8)


def test_mae_psnr_known_values():
    a, b = solid(40, 30, 100), solid(40, 30, 110)
    assert mae(a, b) == 10.0
    assert psnr(a, b) == pytest.approx(10 * math.log10(255 ** 2 / 100))
    assert psnr(a, a) == math.inf
    # half the pixels differ by 255 in one channel: MAE = 255 / 2 / 3
    c = a.copy()
    c[:20, :, 0] = np.where(a[:20, :, 0] > 127, 0, 255)
    assert mae(a, c) == pytest.approx(abs(255 - 100) / 6)


def test_pad_alignment_is_white_at_bottom_right():
    ref, gen = solid(10, 10, 255), solid(5, 10, 255)
    r, g = align_pair(ref, gen, "pad")
    assert r.shape == g.shape == (10, 10, 3)
    assert mae(ref, gen) == 0.0  # the missing part is white like the reference
    black = solid(5, 10, 0)
    assert mae(ref, black) == pytest.approx(255 / 2)
    r, g = align_pair(ref, black, "resize")
    assert g.shape == ref.shape and mae(ref, black, align="resize") == pytest.approx(255)


def test_nemd_known_distributions():
    black, white = solid(8, 8, 0), solid(8, 8, 255)
    half = np.concatenate([solid(4, 8, 0), solid(4, 8, 255)])
    assert nemd(black, black) == 1.0
    assert nemd(black, white) == 0.0                     # EMD 255, EMD_max 255
    assert nemd(black, half) == pytest.approx(0.5)        # EMD 127.5
    # reference mean 100 -> EMD_max = 155; generated shifted by 31 -> NEMD = 1 - 31/155
    assert nemd(solid(8, 8, 100), solid(8, 8, 131)) == pytest.approx(1 - 31 / 155)
    # NEMD compares distributions, not positions: a permutation scores 1
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (16, 16, 3), dtype=np.uint8)
    perm = img.reshape(-1, 3)[rng.permutation(256)].reshape(16, 16, 3)
    assert nemd(img, perm) == pytest.approx(1.0)
    assert mae(img, perm) > 50


def assignment_nemd(ref, gen):
    """MRWeb's NEMD from its definition: an optimal pixel-to-pixel assignment per channel
    (Hungarian algorithm), normalised by moving every reference value to 0 or 255."""
    from scipy.optimize import linear_sum_assignment

    emd = 0.0
    for c in range(3):
        a = ref[..., c].ravel().astype(float)
        b = gen[..., c].ravel().astype(float)
        cost = np.abs(a[:, None] - b[None, :])
        rows, cols = linear_sum_assignment(cost)
        emd += cost[rows, cols].sum()
    worst = sum(max(float(v), 255.0 - float(v)) for v in ref.ravel())
    return 1.0 - emd / worst


def test_nemd_equals_optimal_assignment_on_small_images():
    rng = np.random.default_rng(7)
    for shape in ((5, 7), (9, 4), (6, 6)):
        ref = rng.integers(0, 256, (*shape, 3), dtype=np.uint8)
        gen = np.clip(ref.astype(int) + rng.integers(-90, 90, ref.shape), 0, 255).astype(np.uint8)
        assert abs(nemd(ref, gen) - assignment_nemd(ref, gen)) < 1e-9
        other = rng.integers(0, 256, ref.shape, dtype=np.uint8)
        assert abs(nemd(ref, other) - assignment_nemd(ref, other)) < 1e-9
    # a skewed reference: here the per-pixel normaliser differs from the distribution one
    ref = np.concatenate([solid(3, 4, 120), solid(3, 4, 250)])
    gen = rng.integers(0, 256, ref.shape, dtype=np.uint8)
    assert abs(nemd(ref, gen) - assignment_nemd(ref, gen)) < 1e-9
    assert nemd_distmax(ref, gen) < nemd(ref, gen) - 0.01


def test_nemd_white_padding_is_counted_like_padded_pixels():
    rng = np.random.default_rng(8)
    ref = rng.integers(0, 256, (8, 6, 3), dtype=np.uint8)
    short = rng.integers(0, 256, (5, 6, 3), dtype=np.uint8)
    padded = np.full((8, 6, 3), 255, np.uint8)
    padded[:5] = short
    assert abs(nemd(ref, short) - assignment_nemd(ref, padded)) < 1e-9
    wide = rng.integers(0, 256, (4, 9, 3), dtype=np.uint8)
    ref_p, wide_p = np.full((8, 9, 3), 255, np.uint8), np.full((8, 9, 3), 255, np.uint8)
    ref_p[:, :6], wide_p[:4] = ref, wide
    assert abs(nemd(ref, wide) - assignment_nemd(ref_p, wide_p)) < 1e-9


def test_emd_matches_scipy_wasserstein():
    from scipy.stats import wasserstein_distance

    rng = np.random.default_rng(1)
    p = rng.random(256)
    p /= p.sum()
    q = rng.random(256)
    q /= q.sum()
    v = np.arange(256)
    assert emd_1d(p, q) == pytest.approx(wasserstein_distance(v, v, p, q), rel=1e-9)


def test_ssim_and_png_input():
    rng = np.random.default_rng(2)
    img = rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, "PNG")
    m = visual_metrics(buf.getvalue(), img)
    assert m["ssim"] == pytest.approx(1.0) and m["mae"] == 0.0 and m["nemd"] == 1.0
    assert ssim(img, 255 - img) < 0


def test_fast_ssim_equals_skimage():
    from webgauge.design2code.visual import ssim_skimage

    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, (60, 45, 3), dtype=np.uint8)
    b = np.clip(a.astype(int) + rng.integers(-40, 40, a.shape), 0, 255).astype(np.uint8)
    assert ssim(a, b) == pytest.approx(ssim_skimage(a, b), abs=1e-5)
    assert ssim(a, solid(60, 45, 128)) == pytest.approx(ssim_skimage(a, solid(60, 45, 128)), abs=1e-5)
