"""CIEDE2000 colour difference (Sharma, Wu & Dalal 2005), vectorised with numpy.

Implemented from the formulae in G. Sharma, W. Wu, E. N. Dalal, "The CIEDE2000
color-difference formula: implementation notes, supplementary test data, and mathematical
observations", Color Research & Application 30(1), 2005, and tested against that paper's
34 reference pairs. Colours are converted from sRGB (D65) to CIELAB with scikit-image.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["ciede2000", "rgb_to_lab", "parse_css_color", "color_difference"]


def ciede2000(lab1, lab2, kL: float = 1.0, kC: float = 1.0, kH: float = 1.0) -> np.ndarray:
    """ΔE00 between CIELAB colours; inputs broadcast over leading axes, last axis is (L, a, b)."""
    lab1 = np.asarray(lab1, dtype=np.float64)
    lab2 = np.asarray(lab2, dtype=np.float64)
    L1, a1, b1 = lab1[..., 0], lab1[..., 1], lab1[..., 2]
    L2, a2, b2 = lab2[..., 0], lab2[..., 1], lab2[..., 2]

    c_bar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2.0
    c_bar7 = c_bar ** 7
    g = 0.5 * (1.0 - np.sqrt(c_bar7 / (c_bar7 + 25.0 ** 7)))
    a1p, a2p = (1.0 + g) * a1, (1.0 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360.0
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360.0
    h1p = np.where((a1p == 0) & (b1 == 0), 0.0, h1p)
    h2p = np.where((a2p == 0) & (b2 == 0), 0.0, h2p)

    d_lp = L2 - L1
    d_cp = c2p - c1p
    prod = c1p * c2p
    dh = h2p - h1p
    dh = np.where(dh > 180.0, dh - 360.0, dh)
    dh = np.where(dh < -180.0, dh + 360.0, dh)
    dh = np.where(prod == 0, 0.0, dh)
    d_hp = 2.0 * np.sqrt(prod) * np.sin(np.radians(dh / 2.0))

    l_bar = (L1 + L2) / 2.0
    c_barp = (c1p + c2p) / 2.0
    h_sum = h1p + h2p
    h_barp = np.where(np.abs(h1p - h2p) <= 180.0, h_sum / 2.0,
                      np.where(h_sum < 360.0, (h_sum + 360.0) / 2.0, (h_sum - 360.0) / 2.0))
    h_barp = np.where(prod == 0, h_sum, h_barp)

    t = (1.0 - 0.17 * np.cos(np.radians(h_barp - 30.0)) + 0.24 * np.cos(np.radians(2.0 * h_barp))
         + 0.32 * np.cos(np.radians(3.0 * h_barp + 6.0))
         - 0.20 * np.cos(np.radians(4.0 * h_barp - 63.0)))
    d_theta = 30.0 * np.exp(-(((h_barp - 275.0) / 25.0) ** 2))
    c_barp7 = c_barp ** 7
    r_c = 2.0 * np.sqrt(c_barp7 / (c_barp7 + 25.0 ** 7))
    l50 = (l_bar - 50.0) ** 2
    s_l = 1.0 + 0.015 * l50 / np.sqrt(20.0 + l50)
    s_c = 1.0 + 0.045 * c_barp
    s_h = 1.0 + 0.015 * c_barp * t
    r_t = -np.sin(np.radians(2.0 * d_theta)) * r_c

    tl, tc, th = d_lp / (kL * s_l), d_cp / (kC * s_c), d_hp / (kH * s_h)
    return np.sqrt(tl ** 2 + tc ** 2 + th ** 2 + r_t * tc * th)


def rgb_to_lab(rgb) -> np.ndarray:
    """Convert sRGB colours (0..255, last axis RGB) to CIELAB (D65, 2° observer)."""
    from skimage.color import rgb2lab

    arr = np.asarray(rgb, dtype=np.float64) / 255.0
    return rgb2lab(arr.reshape(-1, 1, 3)).reshape(arr.shape)


_RGB_RE = re.compile(r"rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:[,\s/]+([\d.]+%?))?\s*\)")


def parse_css_color(value: str | None) -> tuple[int, int, int] | None:
    """Parse ``rgb()``/``rgba()``/``#rrggbb``/``#rgb`` into an RGB tuple; ``None`` if absent.

    A fully transparent ``rgba(..., 0)`` is ``None``: it has no colour of its own.
    """
    if not value:
        return None
    v = value.strip().lower()
    m = _RGB_RE.fullmatch(v)
    if m:
        alpha = m.group(4)
        if alpha is not None:
            a = float(alpha[:-1]) / 100 if alpha.endswith("%") else float(alpha)
            if a == 0:
                return None
        return tuple(int(round(float(m.group(i)))) for i in (1, 2, 3))  # type: ignore[return-value]
    if v.startswith("#") and len(v) in (4, 7):
        h = v[1:]
        if len(h) == 3:
            h = "".join(ch * 2 for ch in h)
        try:
            return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
        except ValueError:
            return None
    return None


def color_difference(c1, c2) -> float | None:
    """CIEDE2000 between two CSS colours or RGB tuples; ``None`` if either has no colour."""
    r1 = parse_css_color(c1) if isinstance(c1, str) or c1 is None else tuple(c1)
    r2 = parse_css_color(c2) if isinstance(c2, str) or c2 is None else tuple(c2)
    if r1 is None or r2 is None:
        return None
    lab = rgb_to_lab(np.array([r1, r2], dtype=np.float64))
    return float(ciede2000(lab[0], lab[1]))
