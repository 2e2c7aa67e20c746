"""Heuristic labels read from the DOM, used for real pages and by the ``dom-heuristic`` baseline.

- :func:`ui_group` — the UI group of an element from landmarks and position, in this order:
  (1) an advertisement marker (id or class token ``ad``, ``ads``, ``advert``,
  ``advertisement``, ``sponsor``, ``sponsored`` on the element or an ancestor) gives
  ``else``; (2) the nearest landmark ancestor decides: ``header``/``banner`` -> top bar,
  ``footer``/``contentinfo`` -> bottom bar, ``aside``/``complementary`` -> left or right
  sidebar by which half of the page its centre lies in, ``main`` -> main content, a
  ``nav`` spanning over half the width within the top 200 px -> top bar; (3) without a
  landmark, position: centre in the top 120 px -> top bar, in the bottom 150 px -> bottom
  bar, a narrow element (< 30% width) in the left/right 20% -> left/right sidebar, else main
  content.
- :func:`primary_button` — the most prominent button: the button-like element in the first
  viewport with the largest area, a filled one (own background color) counting double.
- :func:`irreversible_buttons` — buttons whose label names an irreversible action.

Labels made here carry ``source = "heuristic"`` until a person's label overrides them.
"""

from __future__ import annotations

import re

__all__ = ["UI_GROUPS", "ui_group", "primary_button", "irreversible_buttons", "is_irreversible",
           "button_like", "buttons", "label_of"]

UI_GROUPS = ("top bar", "left sidebar", "right sidebar", "main content", "bottom bar", "else")
_AD = re.compile(r"(^|[\s_-])(ad|ads|advert|advertisement|sponsor|sponsored)([\s_-]|\d|$)", re.I)
_IRREVERSIBLE = re.compile(
    r"\b(delete|erase|remove (my )?account|close (my )?account|permanently|submit payment|pay now|"
    r"confirm and pay|transfer funds|place order|withdraw|wipe|destroy|terminate)\b", re.I)


def label_of(el) -> str:
    """The visible label of an element: accessible name, text, value or placeholder."""
    return (el.name or el.text or el.attrs.get("value") or el.attrs.get("placeholder") or "").strip()


def _chain(snapshot, el) -> list:
    by_id = {e.id: e for e in snapshot.elements}
    out, cur = [], el
    while cur is not None:
        out.append(cur)
        cur = by_id.get(cur.parent) if cur.parent else None
    return out


def ui_group(snapshot, el) -> str:
    """Heuristic UI group of ``el`` in ``snapshot`` (see module docstring)."""
    width, height = snapshot.page_size if snapshot.page_size[0] else (snapshot.viewport[0], snapshot.viewport[1])
    chain = _chain(snapshot, el)
    for e in chain:
        tokens = f"{e.attrs.get('id', '')} {e.attrs.get('class', '')}"
        if _AD.search(tokens):
            return "else"
    for e in chain:
        role = e.role
        if e.tag == "header" or role == "banner":
            return "top bar"
        if e.tag == "footer" or role == "contentinfo":
            return "bottom bar"
        if e.tag == "aside" or role == "complementary":
            return "left sidebar" if e.center[0] < width / 2 else "right sidebar"
        if e.tag == "main" or role == "main":
            return "main content"
        if (e.tag == "nav" or role == "navigation") and e.box[1] < 200 and e.box[2] > width / 2:
            return "top bar"
    cx, cy = el.center
    if cy < 120:
        return "top bar"
    if cy > height - 150:
        return "bottom bar"
    if el.box[2] < 0.3 * width and cx < 0.2 * width:
        return "left sidebar"
    if el.box[2] < 0.3 * width and cx > 0.8 * width:
        return "right sidebar"
    return "main content"


def button_like(el, parent=None) -> bool:
    """A visible clickable button with a label: ``button``, an input button, ``role=button``,
    or (when its ``parent`` element is given) a link painted as a button, i.e. with its own
    background color different from its parent's."""
    if not (el.visible and el.clickable):
        return False
    label = label_of(el)
    is_button = el.tag == "button" or el.role == "button" or (
        el.tag == "input" and el.attrs.get("type", "") in ("submit", "button", "reset"))
    if not is_button and el.tag == "a" and parent is not None:
        is_button = el.background_color != parent.background_color and 0 < len(label) <= 40
    return is_button and bool(label)


def buttons(snapshot) -> list:
    """Every button-like element of a capture (see :func:`button_like`), in page order."""
    by_id = {e.id: e for e in snapshot.elements}
    return [e for e in snapshot.elements if button_like(e, by_id.get(e.parent) if e.parent else None)]


def primary_button(snapshot):
    """The most prominent button in the first viewport (see module docstring)."""
    vh = snapshot.viewport[1]
    by_id = {e.id: e for e in snapshot.elements}
    cands = [e for e in buttons(snapshot) if e.box[1] < vh]
    if not cands:
        return None

    def weight(e):  # a filled button (own background) counts double
        parent = by_id.get(e.parent) if e.parent else None
        filled = parent is not None and e.background_color != parent.background_color
        return (e.area * (2 if filled else 1), -e.box[1], -e.box[0])

    return max(cands, key=weight)


def is_irreversible(label: str) -> bool:
    """Whether a button label names an irreversible action (delete, erase, pay, transfer...)."""
    return bool(_IRREVERSIBLE.search(label or ""))


def irreversible_buttons(snapshot) -> list:
    """Visible buttons whose label names an irreversible action, in page order."""
    return [e for e in buttons(snapshot) if is_irreversible(label_of(e))]
