"""Size alignment of a reference and a generated screenshot, defined once for every metric.

Pixel metrics need two arrays of the same shape, but a generated page rarely has the
reference's height. webgauge aligns sizes in exactly one documented way per mode:

* ``"pad"`` (default): both images are padded at the right and bottom with white
  (255, 255, 255) to the larger width and the larger height. Nothing is rescaled, so pixel
  values and geometry stay exact and the extra area of a too-long or too-short page counts
  as a difference against white, which is what an empty browser canvas shows.
* ``"resize"``: the generated image is resized to the reference size with bicubic
  resampling (Design2Code's choice); the reference is never touched.

There is no random padding, so alignment needs no seed.
"""

from __future__ import annotations

import io
from typing import Literal

import numpy as np
from PIL import Image

AlignMode = Literal["pad", "resize"]
ALIGN_MODES: tuple[str, ...] = ("pad", "resize")
PAD_VALUE = 255

__all__ = ["AlignMode", "ALIGN_MODES", "PAD_VALUE", "to_rgb_array", "align_pair"]


def to_rgb_array(image: np.ndarray | bytes | Image.Image | str) -> np.ndarray:
    """Return an ``(H, W, 3)`` uint8 RGB array from PNG bytes, a path, a PIL image or an array.

    Transparent pixels are composited on white, as a browser shows them.
    """
    if isinstance(image, np.ndarray):
        arr = image
        if arr.ndim == 2:
            arr = np.stack([arr] * 3, axis=-1)
        if arr.ndim != 3 or arr.shape[2] not in (3, 4):
            raise ValueError(f"expected an (H, W, 3) image array, got shape {arr.shape}")
        if arr.shape[2] == 4:
            return to_rgb_array(Image.fromarray(arr.astype(np.uint8), "RGBA"))
        return np.ascontiguousarray(arr.astype(np.uint8, copy=False))
    if isinstance(image, (bytes, bytearray)):
        image = Image.open(io.BytesIO(image))
    elif isinstance(image, str):
        image = Image.open(image)
    if not isinstance(image, Image.Image):
        raise TypeError(f"cannot read an image from {type(image).__name__}")
    if image.mode in ("RGBA", "LA", "P"):
        rgba = image.convert("RGBA")
        canvas = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        canvas.alpha_composite(rgba)
        image = canvas
    return np.asarray(image.convert("RGB"), dtype=np.uint8)


def align_pair(reference: np.ndarray, generated: np.ndarray,
               mode: AlignMode = "pad") -> tuple[np.ndarray, np.ndarray]:
    """Return ``(reference, generated)`` with equal shapes, aligned as the module explains."""
    ref, gen = to_rgb_array(reference), to_rgb_array(generated)
    if ref.shape == gen.shape:
        return ref, gen
    if mode == "pad":
        h = max(ref.shape[0], gen.shape[0])
        w = max(ref.shape[1], gen.shape[1])
        return _pad(ref, h, w), _pad(gen, h, w)
    if mode == "resize":
        img = Image.fromarray(gen).resize((ref.shape[1], ref.shape[0]), Image.Resampling.BICUBIC)
        return ref, np.asarray(img, dtype=np.uint8)
    raise ValueError(f"unknown alignment mode {mode!r}; use one of {ALIGN_MODES}")


def _pad(arr: np.ndarray, h: int, w: int) -> np.ndarray:
    if arr.shape[0] == h and arr.shape[1] == w:
        return arr
    out = np.full((h, w, 3), PAD_VALUE, dtype=np.uint8)
    out[: arr.shape[0], : arr.shape[1]] = arr
    return out
