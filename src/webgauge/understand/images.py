"""Image preparation for questions: red boxes around elements and element crops.

All drawing is deterministic Pillow code on the captured screenshot, so the same capture
gives byte-identical question images.
"""

from __future__ import annotations

import hashlib
import io
import threading
from pathlib import Path

from PIL import Image, ImageDraw

from ..perturb.checks import screenshot_rgb

__all__ = ["draw_box", "crop", "ImageStore", "BOX_COLOR"]

BOX_COLOR = (255, 0, 0)


_DECODED: dict[str, Image.Image] = {}
_LOCK = threading.Lock()  # builds draw question images in worker threads


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=1)  # fast; still lossless
    return buf.getvalue()


def _open(png: bytes) -> Image.Image:
    """Decoded screenshot (read-only; callers copy before drawing). The last few are cached
    because one capture is boxed and cropped many times; the pixels come from the perturbation
    checks' cache (:func:`webgauge.perturb.screenshot_rgb`), so a capture that was both checked
    and boxed is decoded once."""
    key = hashlib.sha256(png).hexdigest()
    with _LOCK:
        img = _DECODED.get(key)
    if img is None:
        img = Image.fromarray(screenshot_rgb(png))
        with _LOCK:
            if len(_DECODED) >= 6:
                _DECODED.pop(next(iter(_DECODED)))
            _DECODED[key] = img
    return img


def draw_box(png: bytes, box, scale: float = 1.0, width: int = 3, pad: float = 3.0) -> bytes:
    """The screenshot with a red rectangle ``pad`` px outside ``box`` (CSS px, page coords)."""
    img = _open(png).copy()
    x, y, w, h = (v * scale for v in box)
    p = pad * scale
    draw = ImageDraw.Draw(img)
    draw.rectangle([x - p, y - p, x + w + p, y + h + p], outline=BOX_COLOR, width=max(1, round(width * scale)))
    return _png(img)


def crop(png: bytes, box, scale: float = 1.0, margin: float = 6.0) -> bytes:
    """The region ``box`` (CSS px) of the screenshot with ``margin`` px around it."""
    img = _open(png)
    x, y, w, h = box
    l, t = max(0, round((x - margin) * scale)), max(0, round((y - margin) * scale))
    r = min(img.width, round((x + w + margin) * scale))
    b = min(img.height, round((y + h + margin) * scale))
    return _png(img.crop((l, t, max(r, l + 1), max(b, t + 1))))


class ImageStore:
    """Writes images once under ``images/<sha256>.png`` and returns their relative paths."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        (self.root / "images").mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def put(self, png: bytes) -> str:
        """Store ``png`` (thread-safe) and return its path relative to the benchmark folder."""
        sha = hashlib.sha256(png).hexdigest()
        rel = f"images/{sha}.png"
        path = self.root / rel
        with self._lock:
            if not path.exists():
                path.write_bytes(png)
        return rel
