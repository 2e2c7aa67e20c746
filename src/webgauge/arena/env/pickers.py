"""Native pickers headless Chromium does not paint: an open ``<select>``'s options and a file chooser.

A desktop browser shows an open ``<select>`` as a popup list under the control and a file
input's chooser as a dialog of files; headless Chromium paints neither, so an agent that sees
only pixels would pick options blind and could not attach a file at all. The environment plays
the browser's part:

- a pointer click on a (single-choice, enabled) ``<select>`` opens its popup: the control gets
  the focus (as a real click gives it) and the options are drawn onto the observation's
  screenshot under the control (above it when there is more room there), the current choice
  highlighted, at most :data:`MAX_ROWS` rows like Chromium's. A pointer click on a row picks that
  option (the control's value changes and ``input`` and ``change`` fire, as a user's choice
  does; picking the current choice changes nothing); ``ArrowUp``/``ArrowDown``/``Home``/``End``
  move the highlight, ``Enter`` or ``Space`` picks it, ``Escape`` closes, a scroll moves the
  rows; a click anywhere else closes the popup and is not passed to the page (a browser
  swallows the click that dismisses a popup); any other action closes it first;
- a click that opens a file input's chooser (Playwright's ``filechooser`` event) opens a dialog
  drawn onto the screenshot that lists the task's own files by name; a pointer click on a name,
  or ``{"kind": "upload", "value": NAME}`` without an element, attaches it; ``Escape`` cancels.

The drawing is a transform of the screenshot, recorded with the observation (``overlays`` in
its metadata: kind and version, the drawn box in viewport CSS px, the rows shown and the
highlighted one). It is drawn with Pillow's bundled font, so it is the same on every machine;
it is not pixel-identical to any one desktop's popup. Option labels are not repeated in the
record (they are in the pixels).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = ["COMMIT_OPTION_JS", "MAX_ROWS", "SELECT_OPTIONS_JS", "FileDialog", "SelectPopup", "draw"]

MAX_ROWS = 20  # Chromium's popup shows at most 20 rows and scrolls the rest
ROW_PAD = 6  # px of the row height above the font size
TRANSFORM = "native-picker/1"

#: The options of the ``<select>`` at an XPath: ``{multiple, size, disabled, selected, options:
#: [{label, disabled}]}``, or null when it is not there. Read-only.
SELECT_OPTIONS_JS = """(xpath) => {
  const el = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  if (!(el instanceof HTMLSelectElement)) return null;
  return {multiple: el.multiple, size: el.size, disabled: el.matches(':disabled'), selected: el.selectedIndex,
          options: Array.from(el.options, (o) => ({label: (o.label || o.text || '').trim(), disabled: o.disabled}))};
}"""

#: Pick option ``i`` of the ``<select>`` at an XPath the way a user's choice does: the selected
#: index changes, then ``input`` and ``change`` fire (bubbling). Returns whether it changed.
COMMIT_OPTION_JS = """([xpath, i]) => {
  const el = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  if (!(el instanceof HTMLSelectElement) || el.selectedIndex === i) return false;
  el.selectedIndex = i;
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return true;
}"""


@dataclass
class SelectPopup:
    """An open ``<select>`` popup: the control (its XPath, its box in viewport CSS px) and its options."""

    path: str
    anchor: tuple[float, float, float, float]
    labels: list[str]
    disabled: list[bool]
    highlighted: int
    viewport: tuple[int, int]
    font_size: float = 13.0
    first: int = 0  # the first row shown (the popup scrolls when there are more than it shows)
    navigation_id: int = 0
    box: tuple[float, float, float, float] = field(default=(0.0, 0.0, 0.0, 0.0))
    rows: int = 0

    def __post_init__(self) -> None:
        self.layout()

    @property
    def row_height(self) -> float:
        return round(self.font_size) + ROW_PAD

    def layout(self) -> None:
        """Place the popup under the control, or above it when there is more room there."""
        x, y, w, h = self.anchor
        vw, vh = self.viewport
        below, above = vh - (y + h), y
        room = max(below, above)
        self.rows = max(1, min(len(self.labels), MAX_ROWS, int((room - 2) // self.row_height)))
        self.first = min(max(0, self.first), max(0, len(self.labels) - self.rows))
        if self.highlighted >= 0 and not (self.first <= self.highlighted < self.first + self.rows):
            self.first = min(max(0, self.highlighted - self.rows + 1), max(0, len(self.labels) - self.rows))
        width = max(w, 8 + max((_text_width(t, self.font_size) for t in self.labels), default=0) + 8)
        height = self.rows * self.row_height + 2
        top = y + h if below >= height or below >= above else y - height
        left = min(max(0.0, x), max(0.0, vw - width))
        self.box = (left, top, width, height)

    def row_at(self, px: float, py: float) -> int | None:
        """The option under a viewport point (CSS px), or None outside the rows."""
        x, y, w, h = self.box
        if not (x <= px <= x + w and y + 1 <= py < y + h - 1):
            return None
        i = self.first + int((py - y - 1) // self.row_height)
        return i if i < min(len(self.labels), self.first + self.rows) else None

    def row_center(self, i: int) -> tuple[float, float]:
        """The viewport point (CSS px) at the middle of option ``i``'s row (it must be shown)."""
        x, y, w, _ = self.box
        return (x + w / 2, y + 1 + (i - self.first + 0.5) * self.row_height)

    def move(self, key: str) -> None:
        enabled = [i for i, d in enumerate(self.disabled) if not d]
        if not enabled:
            return
        cur = self.highlighted
        if key == "Home":
            self.highlighted = enabled[0]
        elif key == "End":
            self.highlighted = enabled[-1]
        elif key == "ArrowDown":
            self.highlighted = next((i for i in enabled if i > cur), cur)
        elif key == "ArrowUp":
            self.highlighted = next((i for i in reversed(enabled) if i < cur), cur)
        self.layout()

    def scroll(self, dy: float) -> None:
        self.first += int(dy / self.row_height) if abs(dy) >= self.row_height else (1 if dy > 0 else -1)
        hl, self.highlighted = self.highlighted, -1  # the rows move, the highlight stays on its option
        self.layout()
        self.highlighted = hl

    def record(self) -> dict:
        return {"transform": TRANSFORM, "kind": "select_popup", "box": [round(v, 1) for v in self.box],
                "options": len(self.labels), "first": self.first, "rows": self.rows, "highlighted": self.highlighted}


@dataclass
class FileDialog:
    """An open file chooser (Playwright's FileChooser) offering the task's files by name."""

    chooser: object
    names: list[str]
    viewport: tuple[int, int]
    font_size: float = 14.0
    box: tuple[float, float, float, float] = field(default=(0.0, 0.0, 0.0, 0.0))

    TITLE = "Choose a file to upload"

    def __post_init__(self) -> None:
        vw, vh = self.viewport
        rows = max(1, len(self.names))
        width = min(vw - 20, max(320, 24 + max([_text_width(n, self.font_size) for n in self.names]
                                               + [_text_width(self.TITLE, self.font_size)])))
        height = 40 + rows * self.row_height + 30
        self.box = ((vw - width) / 2, max(10.0, (vh - height) / 3), width, height)

    @property
    def row_height(self) -> float:
        return round(self.font_size) + 12

    def _rows_top(self) -> float:
        return self.box[1] + 40

    def name_at(self, px: float, py: float) -> str | None:
        x, _, w, _ = self.box
        top = self._rows_top()
        if not (x <= px <= x + w and top <= py < top + len(self.names) * self.row_height):
            return None
        return self.names[int((py - top) // self.row_height)]

    def name_center(self, name: str) -> tuple[float, float]:
        x, _, w, _ = self.box
        return (x + w / 2, self._rows_top() + (self.names.index(name) + 0.5) * self.row_height)

    def record(self) -> dict:
        return {"transform": TRANSFORM, "kind": "file_chooser", "box": [round(v, 1) for v in self.box],
                "files": len(self.names)}


@lru_cache(maxsize=8)
def _font(size: int):
    from PIL import ImageFont

    return ImageFont.load_default(size=size)  # Pillow's bundled font: the same drawing on every machine


def _text_width(text: str, size: float) -> float:
    return float(_font(round(size)).getlength(text))


def draw(png: bytes, picker: SelectPopup | FileDialog, dsf: float) -> bytes:
    """The screenshot with the open picker drawn over it (device pixels = CSS px x ``dsf``)."""
    from PIL import Image, ImageDraw

    img = Image.open(io.BytesIO(png)).convert("RGB")
    d = ImageDraw.Draw(img)

    def rect(x, y, w, h, **kw):
        d.rectangle([round(x * dsf), round(y * dsf), round((x + w) * dsf) - 1, round((y + h) * dsf) - 1], **kw)

    if isinstance(picker, SelectPopup):
        x, y, w, h = picker.box
        font = _font(round(picker.font_size * dsf))
        rect(x, y, w, h, fill=(255, 255, 255), outline=(118, 118, 118), width=max(1, round(dsf)))
        for r in range(picker.rows):
            i = picker.first + r
            ry = y + 1 + r * picker.row_height
            color = (128, 128, 128) if picker.disabled[i] else (0, 0, 0)
            if i == picker.highlighted:
                rect(x + 1, ry, w - 2, picker.row_height, fill=(30, 104, 218))
                color = (255, 255, 255)
            d.text((round((x + 6) * dsf), round((ry + picker.row_height / 2) * dsf)), picker.labels[i], fill=color,
                   font=font, anchor="lm")
    else:
        x, y, w, h = picker.box
        font = _font(round(picker.font_size * dsf))
        rect(x + 3, y + 3, w, h, fill=(90, 90, 90))  # a shadow, as a dialog casts
        rect(x, y, w, h, fill=(246, 246, 246), outline=(100, 100, 100), width=max(1, round(dsf)))
        d.text((round((x + 12) * dsf), round((y + 20) * dsf)), picker.TITLE, fill=(0, 0, 0), font=font, anchor="lm")
        top = picker._rows_top()
        for k, name in enumerate(picker.names):
            ry = top + k * picker.row_height
            rect(x + 8, ry + 1, w - 16, picker.row_height - 2, fill=(255, 255, 255), outline=(200, 200, 200))
            d.text((round((x + 16) * dsf), round((ry + picker.row_height / 2) * dsf)), name, fill=(0, 0, 0),
                   font=font, anchor="lm")
        if not picker.names:
            d.text((round((x + 16) * dsf), round((top + picker.row_height / 2) * dsf)), "(this task offers no files)",
                   fill=(110, 110, 110), font=font, anchor="lm")
        d.text((round((x + 12) * dsf), round((y + h - 15) * dsf)), "Escape: cancel", fill=(90, 90, 90), font=font,
               anchor="lm")
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=1)  # the same pixels, in about 60% of the time level 6 takes
    return out.getvalue()


# ---- the environment's side: open, act on and draw the pickers --------------------------------
PICKER_KEYS = ("ArrowUp", "ArrowDown", "Home", "End", "Enter", " ", "Space", "Escape")


def _viewport_point(obs, a) -> tuple[float, float]:
    return a.x * obs.viewport[0], a.y * obs.viewport[1]


async def open_select(env, el) -> bool:
    """A pointer click landed on ``el``: open its popup if it is a single-choice, enabled ``<select>``
    (or an option or option group inside one)."""
    parents = {e.id: e for e in env.obs.elements or []}
    while el is not None and el.tag.lower() in ("option", "optgroup"):
        el = parents.get(el.parent)
    if el is None or el.tag.lower() != "select":
        return False
    info = await env.page.evaluate(SELECT_OPTIONS_JS, el.path)
    if not info or info["multiple"] or info["size"] > 1 or info["disabled"] or not info["options"]:
        return False
    await env.page.focus(el.id)  # a click gives the control the focus and opens its popup
    obs = env.obs
    env.picker = SelectPopup(path=el.path, anchor=obs.viewport_box(el), labels=[o["label"] for o in info["options"]],
                             disabled=[bool(o["disabled"]) for o in info["options"]], highlighted=info["selected"],
                             viewport=obs.viewport, font_size=el.font_size or 13.0, navigation_id=obs.navigation_id)
    return True


async def consume(env, a) -> bool:
    """Does the open picker take action ``a``? (Then it has acted on it.) Any other action closes it."""
    p = env.picker
    if p is None:
        return False
    if isinstance(p, FileDialog):
        return await _file_dialog_action(env, p, a)
    if a.kind == "wait":
        return True
    if a.is_pointer and a.pointer in ("click", "double_click"):
        env.check_token(a)
        row = p.row_at(*_viewport_point(env.obs, a))
        env.picker = None
        if row is not None and not p.disabled[row]:
            await env.page.evaluate(COMMIT_OPTION_JS, [p.path, row])
        return True  # a click outside the popup only closes it
    if a.kind == "press" and not a.element and a.key in PICKER_KEYS:
        if a.key in ("Enter", " ", "Space"):
            env.picker = None
            if p.highlighted >= 0 and not p.disabled[p.highlighted]:
                await env.page.evaluate(COMMIT_OPTION_JS, [p.path, p.highlighted])
        elif a.key == "Escape":
            env.picker = None
        else:
            p.move(a.key)
        return True
    if a.kind == "scroll" and not a.element:
        p.scroll(a.dy)
        return True
    env.picker = None
    return False


async def _file_dialog_action(env, p: FileDialog, a) -> bool:
    name = None
    if a.kind == "wait":
        return True
    if a.kind == "upload" and not a.element:
        name = a.value
    elif a.is_pointer and a.pointer in ("click", "double_click"):
        env.check_token(a)
        name = p.name_at(*_viewport_point(env.obs, a))
        if name is None:
            return True  # the dialog is modal: a click beside it does nothing
    elif a.kind == "press" and not a.element and a.key == "Escape":
        env.picker = None
        return True
    elif a.is_pointer or (a.kind in ("press", "type_text") and not a.element):
        return True  # modal: no pointer or key reaches the page while it is open
    else:
        env.picker = None  # an element action, a navigation: the chooser is dismissed
        return False
    path = env.task_file(name)  # rejects a name that is not one of the task's files
    env.picker = None
    await env.page.choose_files(p.chooser, [path], timeout=env.action_timeout)
    return True


async def after_click(env, seen: int, target) -> None:
    """A click may have opened a file chooser (``seen``: choosers before it): show it as a dialog."""
    page = env.page
    for _ in range(20 if _is_file_opener(target) else 0):  # the chooser event follows the click by a round trip
        if len(page.file_choosers) > seen:
            break
        await page.wait_for_timeout(10)
    if len(page.file_choosers) > seen:
        env.picker = FileDialog(chooser=page.file_choosers[-1], names=[n for n, _ in env.task.files],
                                viewport=env.obs.viewport)


def overlay(env, obs):
    """The observation with the open picker drawn over its screenshot (and recorded in ``overlays``)."""
    import hashlib
    from dataclasses import replace

    from ..core.observation import short_token

    p = env.picker
    if p is None or obs.png is None:
        return obs
    if isinstance(p, SelectPopup) and (obs.navigation_id != p.navigation_id or tuple(obs.viewport) != p.viewport):
        env.picker = None  # the document changed under the popup: it is gone
        return obs
    png = draw(obs.png, p, obs.device_scale_factor)
    sha = hashlib.sha256(png).hexdigest()
    files = list(p.names) if isinstance(p, FileDialog) else None
    return replace(obs, png=png, screenshot_hash=sha, token=short_token(sha, obs.step), overlays=[p.record()],
                   file_chooser=files)


def kind_of(p) -> str:
    return "select_popup" if isinstance(p, SelectPopup) else "file_chooser"


def _is_file_opener(el) -> bool:
    """Could a click on ``el`` open a file chooser (a file input, or a label)?"""
    return el is not None and ((el.tag.lower() == "input" and el.attrs.get("type") == "file")
                               or el.tag.lower() == "label")
