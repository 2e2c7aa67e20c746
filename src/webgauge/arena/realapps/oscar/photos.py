"""Product photos drawn with Pillow: an object's silhouette, shaded like a lit solid, on a studio
backdrop with a soft floor shadow. A pure function of (shape, colour, variation).

Imported by the seed script inside the shop's own environment (Pillow comes with django-oscar),
so it uses only Pillow and the standard library.
"""

from __future__ import annotations

import hashlib
import math
import random

from PIL import Image, ImageChops, ImageDraw, ImageFilter

__all__ = ["PHOTO_VERSION", "POSES", "SHAPES", "SIZE", "draw", "photo_key", "render_to"]

SIZE = 480
SHAPES = ("mug", "bottle", "lamp", "vase", "chair", "tshirt", "sneaker", "backpack", "headphones", "watch", "box",
          "bowl", "plate", "glass", "jar", "pan", "cushion", "candle", "book", "speaker", "sunglasses", "cap",
          "plantpot")
PHOTO_VERSION = 3  # bump when a drawing changes: cached photos are named by (version, shape, colour, pose)
POSES = 2  # distinct photos per (shape, colour): a product's variation picks one


def _backdrop(rng: random.Random) -> Image.Image:
    """A seamless studio sweep: a warm or cool grey, lighter towards the floor's front."""
    tone = rng.choice(((236, 233, 228), (228, 232, 236), (238, 236, 232), (230, 230, 230), (240, 235, 226)))
    horizon = int(SIZE * rng.uniform(0.62, 0.70))
    rows = Image.new("RGB", (1, SIZE))
    rp = rows.load()
    assert rp is not None
    for y in range(SIZE):
        f = 0.86 + 0.10 * y / horizon if y < horizon else 0.96 + 0.06 * (y - horizon) / (SIZE - horizon)
        rp[0, y] = tuple(min(255, int(c * f)) for c in tone)
    cols = Image.new("L", (SIZE, 1))
    cp = cols.load()
    assert cp is not None
    for x in range(SIZE):
        cp[x, 0] = int(255 * (1.0 - 0.10 * ((x - SIZE / 2) / (SIZE / 2)) ** 2))  # vignette towards the sides
    vig = cols.resize((SIZE, SIZE))
    img = ImageChops.multiply(rows.resize((SIZE, SIZE)), Image.merge("RGB", (vig, vig, vig)))
    return img


def _shading(box: tuple[int, int, int, int], light: float) -> Image.Image:
    """A grey map over ``box``: a cylinder lit from the upper left (bright band, dark right edge)."""
    x0, y0, x1, y1 = box
    w, h = max(1, x1 - x0), max(1, y1 - y0)
    col = Image.new("L", (w, 1))
    cp = col.load()
    assert cp is not None
    for x in range(w):
        t = x / max(1, w - 1)
        v = 0.42 + 0.58 * math.cos((t - light) * math.pi * 0.9) ** 2 if abs(t - light) < 0.55 else 0.42
        cp[x, 0] = int(255 * min(1.0, max(0.3, v)))
    shade = col.resize((w, h))
    top = Image.linear_gradient("L").resize((w, h)).point(lambda p: 255 - int(p * 0.18))  # darker at the bottom
    return ImageChops.multiply(shade, top)


def _solid(img: Image.Image, mask: Image.Image, colour: tuple[int, int, int], light: float = 0.3,
           gloss: float = 0.5) -> None:
    """Paint ``colour`` through ``mask`` with cylinder shading and a soft specular highlight."""
    box = mask.getbbox()
    if not box:
        return
    shade = Image.new("L", img.size, 0)
    shade.paste(_shading(box, light), box[:2])
    base = Image.new("RGB", img.size, colour)
    lit = ImageChops.multiply(base, Image.merge("RGB", (shade, shade, shade)))
    # brighten dark colours' lit side a little, so a black product still reads as a solid
    lift = shade.point(lambda p: int(max(0, p - 150) * 0.35))
    lit = ImageChops.add(lit, Image.merge("RGB", (lift, lift, lift)))
    if gloss:
        x0, y0, x1, y1 = box
        hl = Image.new("L", img.size, 0)
        hx = int(x0 + (x1 - x0) * (light - 0.08))
        ImageDraw.Draw(hl).rounded_rectangle((hx, y0 + (y1 - y0) * 0.08, hx + max(4, (x1 - x0) // 14),
                                              y1 - (y1 - y0) * 0.12), radius=8, fill=int(150 * gloss))
        hl = ImageChops.multiply(hl.filter(ImageFilter.GaussianBlur(6)), mask)
        lit = ImageChops.screen(lit, Image.merge("RGB", (hl, hl, hl)))
    img.paste(lit, (0, 0), mask.filter(ImageFilter.GaussianBlur(0.8)))


def _flat(img: Image.Image, mask: Image.Image, colour: tuple[int, int, int]) -> None:
    img.paste(Image.new("RGB", img.size, colour), (0, 0), mask.filter(ImageFilter.GaussianBlur(0.8)))


def _mask() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    m = Image.new("L", (SIZE, SIZE), 0)
    return m, ImageDraw.Draw(m)


def _darker(c, f=0.6):
    return tuple(int(v * f) for v in c)


def _shadow(img: Image.Image, cx: int, y: int, w: int, strength: int = 95) -> None:
    m, d = _mask()
    d.ellipse((cx - w // 2, y - w // 10, cx + w // 2, y + w // 10), fill=strength)
    m = m.filter(ImageFilter.GaussianBlur(14))
    img.paste(Image.new("RGB", img.size, (70, 66, 60)), (0, 0), m)


def _mug(img, c, rng):
    cx, top, bot, w = 220, 150, 360, 170
    _shadow(img, cx + 20, bot, w + 80)
    m, d = _mask()
    d.ellipse((cx + w // 2 - 30, 190, cx + w // 2 + 70, 310), outline=255, width=22)  # handle
    d.rectangle((cx - w // 2, top, cx + w // 2, bot - 12), fill=255)
    d.ellipse((cx - w // 2, bot - 26, cx + w // 2, bot + 4), fill=255)
    _solid(img, m, c, 0.3, 0.6)
    rim, dr = _mask()
    dr.ellipse((cx - w // 2, top - 16, cx + w // 2, top + 16), fill=255)
    _flat(img, rim, _darker(c, 0.75))
    inner, di = _mask()
    di.ellipse((cx - w // 2 + 8, top - 10, cx + w // 2 - 8, top + 12), fill=255)
    _flat(img, inner, _darker(c, 0.35))


def _bottle(img, c, rng):
    cx, w = 240, 112
    _shadow(img, cx, 400, w + 70)
    m, d = _mask()
    d.rounded_rectangle((cx - w // 2, 190, cx + w // 2, 400), radius=26, fill=255)
    d.polygon(((cx - w // 2, 200), (cx - 26, 140), (cx + 26, 140), (cx + w // 2, 200)), fill=255)
    d.rectangle((cx - 26, 120, cx + 26, 150), fill=255)
    _solid(img, m, c, 0.32, 0.8)
    cap, dc = _mask()
    dc.rounded_rectangle((cx - 30, 84, cx + 30, 126), radius=6, fill=255)
    _solid(img, cap, (40, 40, 44), 0.3, 0.3)
    band, db = _mask()
    db.rectangle((cx - w // 2, 270, cx + w // 2, 300), fill=255)
    _solid(img, band, tuple(min(255, int(v * 0.5 + 120)) for v in c), 0.32, 0.0)


def _lamp(img, c, rng):
    cx = 240
    _shadow(img, cx, 400, 200)
    stem, ds = _mask()
    ds.rectangle((cx - 6, 210, cx + 6, 390), fill=255)
    ds.ellipse((cx - 70, 378, cx + 70, 408), fill=255)
    _solid(img, stem, (70, 68, 66), 0.3, 0.4)
    m, d = _mask()
    d.polygon(((cx - 70, 90), (cx + 70, 90), (cx + 125, 230), (cx - 125, 230)), fill=255)
    _solid(img, m, c, 0.35, 0.3)
    glow, dg = _mask()
    dg.ellipse((cx - 120, 218, cx + 120, 244), fill=255)
    _flat(img, glow, (255, 244, 214))


def _vase(img, c, rng):
    cx = 240
    _shadow(img, cx, 398, 180)
    m, d = _mask()
    d.ellipse((cx - 110, 200, cx + 110, 400), fill=255)
    d.polygon(((cx - 50, 250), (cx - 34, 120), (cx + 34, 120), (cx + 50, 250)), fill=255)
    d.ellipse((cx - 50, 104, cx + 50, 132), fill=255)
    _solid(img, m, c, 0.3, 0.7)
    mouth, dm = _mask()
    dm.ellipse((cx - 36, 110, cx + 36, 126), fill=255)
    _flat(img, mouth, _darker(c, 0.3))


def _chair(img, c, rng):
    _shadow(img, 240, 405, 260)
    legs, dl = _mask()
    for x0, x1 in ((150, 120), (330, 360), (175, 185), (305, 295)):
        dl.line((x0, 290, x1, 405), fill=255, width=12)
    _solid(img, legs, (120, 86, 52), 0.3, 0.2)
    m, d = _mask()
    d.rounded_rectangle((140, 70, 340, 250), radius=30, fill=255)
    d.polygon(((130, 262), (350, 262), (372, 300), (108, 300)), fill=255)
    _solid(img, m, c, 0.35, 0.25)


def _tshirt(img, c, rng):
    _shadow(img, 240, 410, 300, 60)
    m, d = _mask()
    d.polygon(((180, 90), (205, 100), (240, 112), (275, 100), (300, 90), (385, 140), (360, 205), (330, 190),
               (330, 395), (150, 395), (150, 190), (120, 205), (95, 140)), fill=255)
    _solid(img, m, c, 0.4, 0.0)
    neck, dn = _mask()
    dn.chord((200, 70, 280, 130), 0, 180, fill=255)
    _flat(img, neck, _darker(c, 0.55))


def _sneaker(img, c, rng):
    _shadow(img, 240, 372, 330)
    m, d = _mask()
    d.polygon(((90, 330), (95, 250), (150, 230), (200, 200), (240, 195), (275, 240), (360, 275), (395, 300),
               (400, 335)), fill=255)
    _solid(img, m, c, 0.35, 0.35)
    sole, ds = _mask()
    ds.rounded_rectangle((84, 328, 406, 362), radius=14, fill=255)
    _solid(img, sole, (244, 242, 236), 0.3, 0.0)
    lace, dl = _mask()
    for i in range(4):
        dl.line((205 + i * 18, 215 + i * 12, 230 + i * 18, 205 + i * 12), fill=255, width=5)
    _flat(img, lace, (250, 250, 250))


def _backpack(img, c, rng):
    _shadow(img, 240, 405, 240)
    strap, ds = _mask()
    ds.arc((195, 50, 285, 140), 180, 360, fill=255, width=14)
    _solid(img, strap, _darker(c, 0.7), 0.3, 0.0)
    m, d = _mask()
    d.rounded_rectangle((140, 92, 340, 400), radius=60, fill=255)
    _solid(img, m, c, 0.35, 0.2)
    pocket, dp = _mask()
    dp.rounded_rectangle((170, 260, 310, 380), radius=26, fill=255)
    _solid(img, pocket, _darker(c, 0.82), 0.35, 0.1)
    zip_, dz = _mask()
    dz.line((180, 275, 300, 275), fill=255, width=4)
    _flat(img, zip_, (40, 40, 40))


def _headphones(img, c, rng):
    _shadow(img, 240, 395, 260)
    band, db = _mask()
    db.arc((120, 70, 360, 330), 180, 360, fill=255, width=26)
    db.rectangle((120, 195, 146, 260), fill=255)
    db.rectangle((334, 195, 360, 260), fill=255)
    _solid(img, band, c, 0.3, 0.4)
    cups, dc = _mask()
    dc.rounded_rectangle((100, 240, 170, 380), radius=30, fill=255)
    dc.rounded_rectangle((310, 240, 380, 380), radius=30, fill=255)
    _solid(img, cups, _darker(c, 0.8), 0.3, 0.5)
    pads, dp = _mask()
    dp.rounded_rectangle((160, 255, 180, 365), radius=8, fill=255)
    dp.rounded_rectangle((300, 255, 320, 365), radius=8, fill=255)
    _flat(img, pads, (45, 45, 48))


def _watch(img, c, rng):
    _shadow(img, 240, 420, 160, 70)
    strap, ds = _mask()
    ds.rounded_rectangle((200, 40, 280, 430), radius=14, fill=255)
    _solid(img, strap, c, 0.35, 0.2)
    case, dc = _mask()
    dc.ellipse((160, 160, 320, 320), fill=255)
    _solid(img, case, (190, 192, 196), 0.3, 0.9)
    face, df = _mask()
    df.ellipse((176, 176, 304, 304), fill=255)
    _flat(img, face, (248, 247, 242))
    hands, dh = _mask()
    dh.line((240, 240, 240, 190), fill=255, width=5)
    dh.line((240, 240, 275, 255), fill=255, width=4)
    for k in range(12):
        a = k * math.pi / 6
        dh.line((240 + 52 * math.cos(a), 240 + 52 * math.sin(a), 240 + 60 * math.cos(a), 240 + 60 * math.sin(a)),
                fill=255, width=3)
    _flat(img, hands, (30, 30, 34))


def _box(img, c, rng):
    """A lidded box seen from slightly above: a lit front, a darker side and a bright top."""
    _shadow(img, 245, 392, 300)
    front, df = _mask()
    df.rectangle((120, 190, 320, 392), fill=255)
    _solid(img, front, c, 0.3, 0.15)
    side, ds = _mask()
    ds.polygon(((320, 190), (380, 150), (380, 350), (320, 392)), fill=255)
    _flat(img, side, _darker(c, 0.55))
    top, dt = _mask()
    dt.polygon(((120, 190), (180, 150), (380, 150), (320, 190)), fill=255)
    _flat(img, top, tuple(min(255, int(v * 0.8 + 50)) for v in c))
    label, dl = _mask()
    dl.rectangle((150, 250, 290, 300), fill=255)
    _solid(img, label, (246, 244, 238), 0.3, 0.0)
    ink, di = _mask()
    for k in range(3):
        di.line((165, 262 + k * 12, 275 - k * 30, 262 + k * 12), fill=255, width=4)
    _flat(img, ink, _darker(c, 0.5))


def _bowl(img, c, rng):
    _shadow(img, 240, 360, 300)
    m, d = _mask()
    d.chord((100, 120, 380, 380), 0, 180, fill=255)
    d.ellipse((100, 225, 380, 275), fill=255)
    _solid(img, m, c, 0.3, 0.6)
    inner, di = _mask()
    di.ellipse((108, 230, 372, 270), fill=255)
    _flat(img, inner, tuple(min(255, int(v * 0.45 + 120)) for v in c))
    foot, dfo = _mask()
    dfo.rectangle((200, 372, 280, 382), fill=255)
    _flat(img, foot, _darker(c, 0.5))


def _plate(img, c, rng):
    _shadow(img, 240, 330, 380, 70)
    m, d = _mask()
    d.ellipse((60, 210, 420, 340), fill=255)
    _solid(img, m, c, 0.35, 0.5)
    well, dw = _mask()
    dw.ellipse((120, 232, 360, 318), fill=255)
    _flat(img, well, tuple(min(255, int(v * 0.8 + 40)) for v in c))
    rim, dr = _mask()
    dr.ellipse((60, 210, 420, 340), outline=255, width=3)
    _flat(img, rim, _darker(c, 0.7))


def _glass(img, c, rng):
    """A tinted tumbler: translucent body (the backdrop shows through), bright rim, darker base."""
    _shadow(img, 240, 392, 170, 55)
    m, d = _mask()
    d.polygon(((170, 150), (310, 150), (296, 390), (184, 390)), fill=170)
    tint = Image.new("RGB", img.size, tuple(min(255, int(v * 0.7 + 70)) for v in c))
    shade = Image.new("L", img.size, 0)
    box = m.getbbox() or (0, 0, 1, 1)
    shade.paste(_shading(box, 0.3), box[:2])
    lit = ImageChops.multiply(tint, Image.merge("RGB", (shade, shade, shade)))
    img.paste(lit, (0, 0), m.filter(ImageFilter.GaussianBlur(0.8)))
    base, db = _mask()
    db.rectangle((184, 360, 296, 390), fill=255)
    _flat(img, base, _darker(c, 0.7))
    rim, dr = _mask()
    dr.ellipse((170, 140, 310, 160), outline=255, width=3)
    _flat(img, rim, (250, 250, 250))
    hl, dh = _mask()
    dh.line((192, 170, 200, 360), fill=200, width=8)
    _flat(img, hl, (255, 255, 255))


def _jar(img, c, rng):
    _shadow(img, 240, 395, 220)
    m, d = _mask()
    d.rounded_rectangle((150, 150, 330, 395), radius=34, fill=255)
    _solid(img, m, c, 0.3, 0.5)
    lid, dl = _mask()
    dl.rounded_rectangle((160, 112, 320, 158), radius=10, fill=255)
    _solid(img, lid, (176, 150, 110), 0.3, 0.3)
    label, dla = _mask()
    dla.rectangle((150, 230, 330, 320), fill=255)
    _solid(img, label, (242, 236, 222), 0.3, 0.0)
    ink, di = _mask()
    di.line((190, 262, 290, 262), fill=255, width=6)
    di.line((205, 288, 275, 288), fill=255, width=4)
    _flat(img, ink, _darker(c, 0.6))


def _pan(img, c, rng):
    _shadow(img, 220, 352, 330)
    handle, dh = _mask()
    dh.polygon(((330, 282), (455, 240), (462, 256), (336, 302)), fill=255)
    _solid(img, handle, (48, 44, 42), 0.3, 0.3)
    m, d = _mask()
    d.ellipse((70, 220, 360, 350), fill=255)
    _solid(img, m, c, 0.3, 0.5)
    inner, di = _mask()
    di.ellipse((88, 226, 342, 330), fill=255)
    _solid(img, inner, (58, 56, 56), 0.35, 0.4)


def _cushion(img, c, rng):
    _shadow(img, 240, 380, 330, 70)
    m, d = _mask()
    d.rounded_rectangle((90, 120, 390, 380), radius=70, fill=255)
    _solid(img, m, c, 0.35, 0.0)
    seam, ds = _mask()
    ds.rounded_rectangle((98, 128, 382, 372), radius=64, outline=255, width=3)
    _flat(img, seam, _darker(c, 0.7))
    fold, dfo = _mask()
    dfo.arc((150, 180, 330, 330), 200, 340, fill=150, width=10)
    _flat(img, fold.filter(ImageFilter.GaussianBlur(5)), _darker(c, 0.75))


def _candle(img, c, rng):
    _shadow(img, 240, 392, 230)
    m, d = _mask()
    d.rounded_rectangle((160, 200, 320, 392), radius=12, fill=255)
    _solid(img, m, (70, 70, 74) if sum(c) > 600 else _darker(c, 0.85), 0.3, 0.7)
    wax, dw = _mask()
    dw.ellipse((164, 190, 316, 220), fill=255)
    _flat(img, wax, (246, 240, 226))
    label, dl = _mask()
    dl.rectangle((160, 270, 320, 330), fill=255)
    _solid(img, label, c, 0.3, 0.0)
    wick, dk = _mask()
    dk.line((240, 205, 240, 180), fill=255, width=3)
    _flat(img, wick, (30, 28, 26))
    flame, dfl = _mask()
    dfl.ellipse((232, 146, 248, 182), fill=255)
    _flat(img, flame.filter(ImageFilter.GaussianBlur(2)), (255, 196, 90))


def _book(img, c, rng):
    _shadow(img, 250, 400, 270)
    pages, dp = _mask()
    dp.polygon(((330, 92), (352, 110), (352, 404), (330, 390)), fill=255)
    _flat(img, pages, (238, 232, 214))
    m, d = _mask()
    d.rounded_rectangle((130, 90, 335, 392), radius=8, fill=255)
    _solid(img, m, c, 0.32, 0.2)
    spine, ds = _mask()
    ds.rectangle((130, 90, 152, 392), fill=255)
    _flat(img, spine, _darker(c, 0.7))
    band, db = _mask()
    db.rectangle((300, 90, 312, 392), fill=255)
    _flat(img, band, (40, 40, 44))
    title, dt = _mask()
    dt.rectangle((185, 160, 285, 168), fill=255)
    _flat(img, title, tuple(min(255, int(v * 0.4 + 150)) for v in c))


def _speaker(img, c, rng):
    _shadow(img, 240, 398, 330)
    m, d = _mask()
    d.rounded_rectangle((110, 150, 370, 398), radius=36, fill=255)
    _solid(img, m, c, 0.32, 0.3)
    grille, dg = _mask()
    dg.rounded_rectangle((132, 176, 348, 374), radius=24, fill=255)
    _solid(img, grille, _darker(c, 0.55), 0.32, 0.0)
    dots, dd = _mask()
    for yy in range(186, 366, 10):
        for xx in range(142, 340, 10):
            dd.point((xx, yy), fill=255)
    _flat(img, dots, _darker(c, 0.3))
    knob, dk = _mask()
    dk.ellipse((316, 124, 344, 150), fill=255)
    _solid(img, knob, (190, 190, 194), 0.3, 0.8)


def _sunglasses(img, c, rng):
    _shadow(img, 240, 340, 360, 55)
    frame, df = _mask()
    df.rounded_rectangle((80, 190, 230, 300), radius=40, fill=255)
    df.rounded_rectangle((250, 190, 400, 300), radius=40, fill=255)
    df.line((225, 212, 255, 212), fill=255, width=12)
    df.line((84, 205, 60, 190), fill=255, width=10)
    df.line((396, 205, 420, 190), fill=255, width=10)
    _solid(img, frame, c, 0.3, 0.5)
    lens, dl = _mask()
    dl.rounded_rectangle((94, 202, 216, 288), radius=32, fill=255)
    dl.rounded_rectangle((264, 202, 386, 288), radius=32, fill=255)
    _solid(img, lens, (36, 40, 48), 0.25, 0.9)


def _cap(img, c, rng):
    _shadow(img, 240, 372, 320)
    brim, db = _mask()
    db.ellipse((200, 262, 440, 318), fill=255)
    _solid(img, brim, _darker(c, 0.85), 0.3, 0.1)
    m, d = _mask()
    d.chord((90, 150, 370, 430), 180, 360, fill=255)
    _solid(img, m, c, 0.35, 0.15)
    seam, ds = _mask()
    ds.line((230, 152, 230, 288), fill=255, width=3)
    ds.ellipse((222, 142, 238, 156), fill=255)
    _flat(img, seam, _darker(c, 0.6))


def _plantpot(img, c, rng):
    _shadow(img, 240, 398, 260)
    leaves, dl = _mask()
    for k in range(9):
        a = math.pi * (0.15 + 0.7 * k / 8)
        x, y = 240 - 120 * math.cos(a), 220 - 150 * math.sin(a)
        dl.ellipse((x - 34, y - 16, x + 34, y + 16), fill=255)
        dl.line((240, 220, x, y), fill=255, width=5)
    _solid(img, leaves, (52, 118, 62), 0.35, 0.3)
    m, d = _mask()
    d.polygon(((150, 210), (330, 210), (305, 398), (175, 398)), fill=255)
    _solid(img, m, c, 0.3, 0.35)
    rim, dr = _mask()
    dr.rectangle((140, 200, 340, 236), fill=255)
    _solid(img, rim, _darker(c, 0.88), 0.3, 0.2)


_DRAW = {"mug": _mug, "bottle": _bottle, "lamp": _lamp, "vase": _vase, "chair": _chair, "tshirt": _tshirt,
         "sneaker": _sneaker, "backpack": _backpack, "headphones": _headphones, "watch": _watch, "box": _box,
         "bowl": _bowl, "plate": _plate, "glass": _glass, "jar": _jar, "pan": _pan, "cushion": _cushion,
         "candle": _candle, "book": _book, "speaker": _speaker, "sunglasses": _sunglasses, "cap": _cap,
         "plantpot": _plantpot}


def draw(shape: str, colour: tuple[int, int, int], variation: int = 0) -> Image.Image:
    """The product photo: ``shape`` in ``colour`` on a studio backdrop; ``variation`` picks the backdrop tone
    and a slight turn of the object (a few degrees), so a catalogue's photos are not identical frames."""
    if shape not in _DRAW:
        raise ValueError(f"unknown product shape {shape!r}; one of {', '.join(SHAPES)}")
    rng = random.Random(f"photo:{shape}:{variation}")
    img = _backdrop(rng)
    layer = Image.new("RGB", (SIZE, SIZE), (0, 0, 0))
    layer.paste(img)
    _DRAW[shape](layer, tuple(colour), rng)
    angle = rng.uniform(-4, 4)
    if abs(angle) > 0.5:
        turned = layer.rotate(angle, resample=Image.Resampling.BICUBIC, fillcolor=img.getpixel((5, SIZE // 2)))
        diff = ImageChops.difference(layer, img).convert("L").point(lambda p: 255 if p > 3 else 0)
        mask = diff.rotate(angle, resample=Image.Resampling.BICUBIC).filter(ImageFilter.GaussianBlur(1))
        img.paste(turned, (0, 0), mask)
        return img
    return layer


def photo_key(shape: str, colour: str, variation: int) -> tuple[str, str, str, int]:
    """(file name, shape, colour name, pose) of a product's photo: products whose photos would be the same
    frame share one file; the name is a hash, so it does not tell the colour."""
    pose = variation % POSES
    name = hashlib.sha256(f"v{PHOTO_VERSION}:{shape}:{colour}:{pose}".encode()).hexdigest()[:20] + ".jpg"
    return name, shape, colour, pose


def render_to(job: tuple[str, str, tuple[int, int, int], int]) -> str:
    """Draw one photo into ``path`` (written to a temporary name and renamed: a cache never holds half a file)."""
    path, shape, colour, pose = job
    tmp = f"{path}.{random.random():.9f}.tmp"
    draw(shape, colour, pose).save(tmp, "JPEG", quality=86)
    import os

    os.replace(tmp, path)
    return path
