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


def _pillow_rect(png, rect, width) -> np.ndarray:
    img = Image.open(io.BytesIO(png)).convert("RGB")
    ImageDraw.Draw(img).rectangle(rect, outline=BOX_COLOR, width=width)
    return np.asarray(img)


def test_boxes_at_band_edges_and_beyond_the_image_draw_as_on_the_whole_image():
    """A boxed image redraws only the bands its box can touch: the pixels and bytes must not show it,
    wherever the box falls (across band edges, over the image's top or bottom, outside it, at a
    scale whose line width rounds, or from an image whose height is not a whole number of bands)."""
    png = _screenshot(h=700)  # 21 bands of 32 rows and one of 28
    edges = [(10, 29.5, 50, 5), (10, 31, 50, 1), (10, 32, 50, 0), (0, -20, 40, 30), (0, -200, 40, 30),
             (5, 690, 40, 40), (5, 760, 40, 40), (-50, 100, 30, 30), (1, 1, 318, 698), (2, 663.5, 20, 4)]
    rng = np.random.default_rng(7)
    rand = [(float(rng.uniform(-30, 330)), float(rng.uniform(-40, 740)), float(rng.uniform(0, 200)),
             float(rng.uniform(0, 300))) for _ in range(30)]
    for k, box in enumerate(edges + rand):
        scale, width, pad = (1.0, 3, 3.0) if k % 3 else (1.5, 3, 3.0)
        x, y, w, h = (v * scale for v in box)
        rect = [x - pad * scale, y - pad * scale, x + w + pad * scale, y + h + pad * scale]
        out = draw_box(png, box, scale=scale, width=width, pad=pad)
        assert np.array_equal(_pixels(out), _pillow_rect(png, rect, max(1, round(width * scale)))), box
        assert out == encode_png(_pixels(out)), box


def test_crops_and_plain_encodes_are_lossless_and_deterministic():
    png = _screenshot(seed=1)
    c = crop(png, (20, 190, 100, 50))
    assert np.array_equal(_pixels(c), _pixels(png)[184:246, 14:126])
    # at the edges: clipped to the image, and a box beyond it gives Pillow's black pixel
    assert np.array_equal(_pixels(crop(png, (-30, -30, 40, 40))), _pixels(png)[0:16, 0:16])
    assert np.array_equal(_pixels(crop(png, (300, 680, 100, 100))), _pixels(png)[674:700, 294:320])
    beyond = _pixels(crop(png, (400, 100, 20, 20)))
    assert beyond.shape == (32, 1, 3) and not beyond.any()
    for shape in [(1, 1, 3), (33, 7, 3), (64, 5, 3), (65, 300, 3)]:
        arr = np.random.default_rng(2).integers(0, 256, shape, dtype=np.uint8)
        a, b = encode_png(arr), encode_png(arr.copy())
        assert a == b and np.array_equal(_pixels(a), arr)


def test_decoded_screenshots_are_rgb_whatever_the_png_holds():
    from webgauge.perturb.checks import screenshot_rgb

    rgb = _pixels(_screenshot(h=300, seed=3))
    for mode in ("RGB", "RGBA", "P", "L"):
        img = Image.fromarray(rgb).convert(mode)
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        arr = screenshot_rgb(buf.getvalue())
        assert arr.dtype == np.uint8 and arr.shape == rgb.shape and not arr.flags.writeable, mode
        assert np.array_equal(arr, np.asarray(img.convert("RGB"))), mode


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
