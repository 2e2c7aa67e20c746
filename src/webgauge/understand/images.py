"""Image preparation for questions: red boxes around elements and element crops.

All drawing is deterministic Pillow code on the captured screenshot, and the PNG writer
(:func:`encode_png`: unfiltered rows, zlib level 1, in bands) is a pure function of the
pixels, so the same capture gives byte-identical question images. Their bytes differ from
those of webgauge before this writer (Pillow's encoder); their pixels do not.
"""

from __future__ import annotations

import hashlib
import os
import struct
import threading
import zlib
from collections import OrderedDict
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from ..perturb.checks import screenshot_rgb

__all__ = ["draw_box", "crop", "encode_png", "ImageStore", "BOX_COLOR"]

BOX_COLOR = (255, 0, 0)


#: Rows per deflate band of a question image (see :class:`_BandedPNG`).
BAND_ROWS = 32
#: zlib level of the bands: level 1 on unfiltered rows is about 3x faster than Pillow's PNG
#: encoder at level 1 on screenshots, and its files are smaller.
ZLIB_LEVEL = 1
_PNG_SIG = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _rows(arr: np.ndarray) -> np.ndarray:
    """The PNG scanlines of an RGB ``uint8`` image: filter byte 0 (none), then the row."""
    h, w, _ = arr.shape
    rows = np.zeros((h, 1 + 3 * w), dtype=np.uint8)
    rows[:, 1:] = arr.reshape(h, 3 * w)
    return rows


def _deflate(data) -> bytes:
    """One band: raw deflate from an empty window, ended by a sync flush (byte-aligned, not final),
    so that bands compressed apart concatenate into one valid stream."""
    c = zlib.compressobj(ZLIB_LEVEL, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH)


class _BandedPNG:
    """A PNG writer for one screenshot and the question images drawn on it.

    The image's scanlines are deflated in bands of :data:`BAND_ROWS` rows, each from an empty
    window. A boxed image differs from its screenshot in the few bands the box crosses: only
    those are deflated again, the others are the screenshot's. The output is a pure function of
    the pixels (and zlib's version): the same pixels give the same bytes, whatever was encoded
    before."""

    def __init__(self, arr: np.ndarray) -> None:
        self.arr = arr
        self.rows = _rows(arr)
        self._bands: list[bytes] | None = None
        self._lock = threading.Lock()

    def _own_bands(self) -> list[bytes]:
        with self._lock:
            if self._bands is None:
                self._bands = [_deflate(self.rows[i:i + BAND_ROWS]) for i in range(0, len(self.rows), BAND_ROWS)]
        return self._bands

    def encode(self, arr: np.ndarray | None = None) -> bytes:
        """PNG bytes of ``arr`` (default: this screenshot), an image of the same size that differs
        from it in a few rows."""
        if arr is None:
            rows, bands = self.rows, self._own_bands()
        else:
            own = self._own_bands()
            rows = _rows(arr)
            same = (rows == self.rows).all(axis=1)
            bands = [own[k] if same[i:i + BAND_ROWS].all() else _deflate(rows[i:i + BAND_ROWS])
                     for k, i in enumerate(range(0, len(rows), BAND_ROWS))]
        return _assemble(rows, bands)


def _assemble(rows: np.ndarray, bands: list[bytes]) -> bytes:
    h, width = rows.shape
    adler = 1
    for i in range(0, h, BAND_ROWS):
        adler = zlib.adler32(rows[i:i + BAND_ROWS].tobytes(), adler)
    # zlib header (deflate, 32K window, fastest), the bands, a final empty block, the checksum
    data = b"".join([b"\x78\x01", *bands, b"\x03\x00", struct.pack(">I", adler)])
    ihdr = struct.pack(">IIBBBBB", (width - 1) // 3, h, 8, 2, 0, 0, 0)
    return _PNG_SIG + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


def encode_png(arr: np.ndarray) -> bytes:
    """PNG bytes of an RGB ``uint8`` image (``h x w x 3``): the question images' writer.
    Deterministic (the same pixels give the same bytes), lossless, not Pillow's bytes."""
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    rows = _rows(arr)
    return _assemble(rows, [_deflate(rows[i:i + BAND_ROWS]) for i in range(0, len(rows), BAND_ROWS)])


_ENCODERS: OrderedDict[str, _BandedPNG] = OrderedDict()
_LOCK = threading.Lock()  # builds draw question images in worker threads
_KEEP = 6


def _encoder(png: bytes) -> _BandedPNG:
    """The writer of a screenshot (decoded once: the pixels come from the perturbation checks'
    cache, :func:`webgauge.perturb.screenshot_rgb`). The last few are kept because one capture is
    boxed and cropped many times."""
    key = hashlib.sha256(png).hexdigest()
    with _LOCK:
        enc = _ENCODERS.get(key)
        if enc is not None:
            _ENCODERS.move_to_end(key)
    if enc is None:
        enc = _BandedPNG(screenshot_rgb(png))
        with _LOCK:
            _ENCODERS[key] = enc
            while len(_ENCODERS) > _KEEP:
                _ENCODERS.popitem(last=False)
    return enc


def draw_box(png: bytes, box, scale: float = 1.0, width: int = 3, pad: float = 3.0) -> bytes:
    """The screenshot with a red rectangle ``pad`` px outside ``box`` (CSS px, page coords)."""
    enc = _encoder(png)
    img = Image.fromarray(np.array(enc.arr))  # a writable copy
    x, y, w, h = (v * scale for v in box)
    p = pad * scale
    draw = ImageDraw.Draw(img)
    draw.rectangle([x - p, y - p, x + w + p, y + h + p], outline=BOX_COLOR, width=max(1, round(width * scale)))
    return enc.encode(np.asarray(img))


def crop(png: bytes, box, scale: float = 1.0, margin: float = 6.0) -> bytes:
    """The region ``box`` (CSS px) of the screenshot with ``margin`` px around it."""
    arr = screenshot_rgb(png)
    x, y, w, h = box
    left, t = max(0, round((x - margin) * scale)), max(0, round((y - margin) * scale))
    r = min(arr.shape[1], round((x + w + margin) * scale))
    b = min(arr.shape[0], round((y + h + margin) * scale))
    return encode_png(np.asarray(Image.fromarray(arr).crop((left, t, max(r, left + 1), max(b, t + 1)))))


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
            if not path.exists():  # written whole or not at all: a killed build leaves no torn file
                tmp = path.with_name(path.name + ".tmp")
                tmp.write_bytes(png)
                os.replace(tmp, path)
        return rel
