"""The question images' PNG writer: the pixels Pillow draws, bytes that depend on the pixels only."""

import io

import numpy as np
from PIL import Image, ImageDraw

from webgauge.understand import images
from webgauge.understand.images import BOX_COLOR, crop, draw_box, encode_png


def _screenshot(h=700, w=320, seed=0) -> bytes:
    rng = np.random.default_rng(seed)
    arr = np.full((h, w, 3), 250, dtype=np.uint8)
    arr[40:90] = (20, 60, 200)  # flat bands, like a page
    arr[200:260, 30:300] = rng.integers(0, 256, (60, 270, 3), dtype=np.uint8)  # a photo
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return buf.getvalue()


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _pillow_box(png, box, width=3, pad=3.0) -> np.ndarray:
    img = Image.open(io.BytesIO(png)).convert("RGB")
    x, y, w, h = box
    ImageDraw.Draw(img).rectangle([x - pad, y - pad, x + w + pad, y + h + pad], outline=BOX_COLOR, width=width)
    return np.asarray(img)


def test_boxed_images_have_pillows_pixels_and_bytes_that_depend_on_the_pixels_only():
    png = _screenshot()
    for box in [(10.5, 20.2, 100, 30), (0, 0, 50, 50), (30, 230.7, 120, 31), (300, 690, 40, 40), (5, 60, 300, 500)]:
        out = draw_box(png, box)
        assert np.array_equal(_pixels(out), _pillow_box(png, box)), box
        # the bands reused from the screenshot give the bytes a fresh encode gives
        assert out == encode_png(_pixels(out))
        images._ENCODERS.clear()
        assert draw_box(png, box) == out  # nothing cached changes the bytes


def test_crops_and_plain_encodes_are_lossless_and_deterministic():
    png = _screenshot(seed=1)
    c = crop(png, (20, 190, 100, 50))
    assert np.array_equal(_pixels(c), _pixels(png)[184:246, 14:126])
    for shape in [(1, 1, 3), (33, 7, 3), (64, 5, 3), (65, 300, 3)]:
        arr = np.random.default_rng(2).integers(0, 256, shape, dtype=np.uint8)
        a, b = encode_png(arr), encode_png(arr.copy())
        assert a == b and np.array_equal(_pixels(a), arr)


def test_snapshot_files_are_written_from_the_snapshots_own_dict():
    from webgauge.browser import Element, Snapshot
    from webgauge.understand.questions import snapshot_dict

    el = Element(id="e1", path="/html/body/button", tag="button", role="button", name="Go", text="Go",
                 box=(1.0, 2.5, 30.0, 12.0), visible=True, clickable=True, color="rgb(0, 0, 0)",
                 background_color="rgb(255, 255, 255)", font_size=14.0, attrs={"id": "go", "class": "a b"},
                 parent="e0", depth=3, in_viewport=True)
    snap = Snapshot(url="http://127.0.0.1:1/x", viewport=(640, 400), device_scale_factor=1.0, scroll=(0.0, 3.0),
                    png=b"png", png_sha256="ab", full_page=True, elements=[el, el], aria="- button",
                    page_size=(640, 900), blocked_requests=[{"url": "http://x/", "resource_type": "image"}],
                    warnings=["w"], navigation_id=2)
    assert snapshot_dict(snap) == snap.to_dict()
