"""Image preparation for questions: red boxes around elements and element crops.

All drawing is deterministic Pillow code on the captured screenshot, and the PNG writer
(:func:`encode_png`: unfiltered rows, zlib level 1, in bands) is a pure function of the
pixels, so the same capture gives byte-identical question images. Their bytes differ from
those of webgauge before this writer (Pillow's encoder); their pixels do not.
"""

from __future__ import annotations

import hashlib
import math
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
    those are copied, drawn and deflated again, the others are the screenshot's (and the stream's
    Adler-32 is combined from the bands'). The output is a pure function of the pixels (and
    zlib's version): the same pixels give the same bytes, whatever was encoded before."""

    def __init__(self, arr: np.ndarray) -> None:
        self.arr = arr
        self.rows = _rows(arr)
        self._bands: list[bytes] | None = None
        self._adlers: list[int] = []  # each band's Adler-32 on its own, for the boxed images' checksums
        self._lock = threading.Lock()

    def _own_bands(self) -> list[bytes]:
        with self._lock:
            if self._bands is None:
                starts = range(0, len(self.rows), BAND_ROWS)
                self._adlers = [zlib.adler32(self.rows[i:i + BAND_ROWS].data) for i in starts]
                self._bands = [_deflate(self.rows[i:i + BAND_ROWS]) for i in starts]
        return self._bands

    def boxed(self, rect: list[float], width: int) -> bytes:
        """PNG bytes of this screenshot with Pillow's ``rectangle(rect, outline=BOX_COLOR, width=width)``
        drawn on it: the same bytes as :meth:`encode` of the whole drawn image, but only the bands
        the rectangle can touch are copied, drawn and deflated again."""
        own, h = self._own_bands(), len(self.rows)
        # the rows the outline can touch (it is drawn inside ``rect``), widened to whole bands: the
        # slice's edges clip the drawing only where they are the image's, and a slice that starts
        # below the top only ever sees positive coordinates, which Pillow rounds as in the whole image
        top = max(0, math.floor(min(rect[1], rect[3])) - 2)
        bottom = min(h, math.ceil(max(rect[1], rect[3])) + 3)
        lo, hi = top // BAND_ROWS * BAND_ROWS, min(h, -(-bottom // BAND_ROWS) * BAND_ROWS)
        if lo >= hi:  # wholly above or below the image: nothing drawn
            return self.encode()
        part = Image.fromarray(np.array(self.arr[lo:hi]))
        ImageDraw.Draw(part).rectangle([rect[0], rect[1] - lo, rect[2], rect[3] - lo], outline=BOX_COLOR, width=width)
        rows = _rows(np.asarray(part))
        bands, adlers = list(own), list(self._adlers)
        for k in range(lo // BAND_ROWS, -(-hi // BAND_ROWS)):
            band = rows[k * BAND_ROWS - lo:(k + 1) * BAND_ROWS - lo]
            if not np.array_equal(band, self.rows[k * BAND_ROWS:(k + 1) * BAND_ROWS]):
                bands[k], adlers[k] = _deflate(band), zlib.adler32(band.data)
        adler = 1
        for k, a in enumerate(adlers):
            adler = _adler32_combine(adler, a, min(BAND_ROWS, h - k * BAND_ROWS) * rows.shape[1])
        return _assemble(rows.shape[1], h, bands, adler)

    def encode(self) -> bytes:
        """PNG bytes of this screenshot (a box wholly outside it draws nothing)."""
        return _assemble(self.rows.shape[1], len(self.rows), self._own_bands(), zlib.adler32(self.rows.data))


def _adler32_combine(adler1: int, adler2: int, len2: int) -> int:
    """The Adler-32 of two byte strings one after the other, from the checksum of each and the
    second's length (zlib's ``adler32_combine``, which Python's zlib does not expose): both sums are
    taken modulo 65521, and every byte of the first string adds its running sum once more for each
    byte of the second."""
    base = 65521
    a1, b1 = adler1 & 0xFFFF, adler1 >> 16
    a2, b2 = adler2 & 0xFFFF, adler2 >> 16
    a = (a1 + a2 - 1) % base
    b = (b1 + b2 + len2 * a1 - len2) % base
    return (b << 16) | a


def _assemble(row_bytes: int, h: int, bands: list[bytes], adler: int) -> bytes:
    """The PNG of ``h`` scanlines of ``row_bytes`` bytes each, deflated in ``bands``; ``adler``: the
    scanlines' Adler-32."""
    # zlib header (deflate, 32K window, fastest), the bands, a final empty block, the checksum
    data = b"".join([b"\x78\x01", *bands, b"\x03\x00", struct.pack(">I", adler)])
    ihdr = struct.pack(">IIBBBBB", (row_bytes - 1) // 3, h, 8, 2, 0, 0, 0)
    return _PNG_SIG + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


def encode_png(arr: np.ndarray) -> bytes:
    """PNG bytes of an RGB ``uint8`` image (``h x w x 3``): the question images' writer.
    Deterministic (the same pixels give the same bytes), lossless, not Pillow's bytes."""
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    rows = _rows(arr)
    bands = [_deflate(rows[i:i + BAND_ROWS]) for i in range(0, len(rows), BAND_ROWS)]
    return _assemble(rows.shape[1], len(rows), bands, zlib.adler32(rows.data))


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
    x, y, w, h = (v * scale for v in box)
    p = pad * scale
    return _encoder(png).boxed([x - p, y - p, x + w + p, y + h + p], max(1, round(width * scale)))


def crop(png: bytes, box, scale: float = 1.0, margin: float = 6.0) -> bytes:
    """The region ``box`` (CSS px) of the screenshot with ``margin`` px around it."""
    arr = screenshot_rgb(png)
    x, y, w, h = box
    left, t = max(0, round((x - margin) * scale)), max(0, round((y - margin) * scale))
    r = max(left + 1, min(arr.shape[1], round((x + w + margin) * scale)))
    b = max(t + 1, min(arr.shape[0], round((y + h + margin) * scale)))
    if r <= arr.shape[1] and b <= arr.shape[0]:
        return encode_png(arr[t:b, left:r])  # a slice: no copy of the whole screenshot
    # a box beyond the image's right or bottom edge: Pillow's crop pads the pixel with black
    return encode_png(np.asarray(Image.fromarray(arr).crop((left, t, r, b))))


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
