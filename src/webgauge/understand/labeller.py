"""Labels read from the DOM for real pages, precision first; also used by the baselines.

A real page's label is asked about only when a **strong signal** decides it; everything else
is left out and counted (``<task>:undecided`` in the manifest's ``dropped``).

- :func:`ui_group_label` -- the UI group of an element. The element's ancestors are walked from
  the nearest up; the first one that names a region decides, and only if the region's own box
  agrees with that name (two independent rules):

  * an ARIA landmark (the capture's role: ``banner``, ``contentinfo``, ``complementary``,
    ``main``, ``navigation``; a ``<header>`` inside an article or section is no banner), or an
    ``id``/``class`` token that names a region (``header``, ``site-footer``, ``sidebar``,
    ``main-content`` ...; see :data:`REGION_TOKENS`);
  * the region's geometry: a **top bar** starts within 150 px of the page top (40 px when only
    its name says so: Bootstrap's ``page-header`` is a heading in the content), spans at least
    60% of the page width and is at most 320 px tall; a **bottom bar** ends within 60 px of the
    page bottom, spans 60% of the width, starts below 40% of the page and is at most half the
    page tall; a **sidebar** is 80 px to 40% of the page wide, at least 200 px tall, and its
    centre lies in the left (right) 40% of the page; **main content** spans at least 45% of the
    width and neither starts within 40 px of the page top nor ends within 40 px of its bottom
    (a wrapper around the whole page is not a region).

  A landmark whose geometry disagrees leaves the element undecided (``conflict``); a
  navigation landmark or a name token whose geometry disagrees passes the decision to the
  next ancestor (a nav in a footer is in the bottom bar). An advertisement marker (id or class
  token ``ad``, ``ads``, ``advert``, ``sponsor`` ...) gives ``else``. An element inside main
  content that is itself a narrow column at the page's edge is left undecided (it looks like a
  sidebar). An element no region decides gets **no** label: the old position fallback
  (top 120 px = top bar, ...) was wrong on most real pages it labelled, and is only the
  ``dom-heuristic`` baseline's rule now (:func:`position_group`).
- :func:`button_like` -- buttons by role and appearance: ``button``, ``role=button``, an input
  button, or a link that looks like a button (a ``btn``/``button``/``cta`` class token such as
  ``c-btn``, or a fill of its own) and draws its text; visible, at least 8 px each way, inside
  the page, with a label that is not a redaction marker.
- :func:`primary_button` -- the most prominent button in the first viewport whose label is drawn
  text (an ``input[type=submit]`` with no visible value is no call to action): largest area, a
  filled one counting double.
- :func:`irreversible_buttons` -- buttons whose label names an irreversible action.
- :func:`is_redacted` -- a label that is a redaction marker (``[EMAIL REDACTED]``): never a target.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["UI_GROUPS", "GroupLabel", "REGION_TOKENS", "ui_group", "ui_group_label", "position_group",
           "primary_button", "irreversible_buttons", "is_irreversible", "button_like", "buttons", "label_of",
           "is_redacted", "inside_page", "draws_text"]

UI_GROUPS = ("top bar", "left sidebar", "right sidebar", "main content", "bottom bar", "else")
_AD_PART = re.compile(r"(ad|ads)\d{0,2}|adverts?|advertisement|advertising|sponsor|sponsored|adsbygoogle|adslot|"
                      r"banner-?ad", re.I)
_IRREVERSIBLE = re.compile(
    r"\b(delete|erase|remove (my )?account|close (my )?account|permanently|submit payment|pay now|"
    r"confirm and pay|transfer funds|place order|withdraw|wipe|destroy|terminate)\b", re.I)
_REDACTED = re.compile(r"\[\s*[A-Z][A-Z _-]*REDACTED\s*\]", re.I)
_WRAP = r"([-_]?(wrapper|wrap|container|inner|area|region|outer|holder))?"
#: ``id``/``class`` tokens (whole tokens, case-insensitive) that name a region, by region kind
REGION_TOKENS = {
    "top": re.compile(r"^(site|page|global|main|top|masthead)?[-_]?(header|masthead|topbar|top-bar|navbar|"
                      r"banner)" + _WRAP + r"$", re.I),
    "bottom": re.compile(r"^(site|page|global|main)?[-_]?(footer|bottombar|bottom-bar)" + _WRAP + r"$", re.I),
    "side": re.compile(r"^(left|right|primary|secondary)?[-_]?(sidebar|side-bar|sidebar-(left|right)|aside|"
                       r"side-?col|left-?col|right-?col|left-?column|right-?column)" + _WRAP + r"$", re.I),
    "main": re.compile(r"^(main|content|main-?content|main_content|primary-content|site-content|page-content)"
                       + _WRAP + r"$", re.I),
}
_LANDMARKS = {"banner": "top", "contentinfo": "bottom", "complementary": "side", "main": "main",
              "navigation": "nav"}


@dataclass(frozen=True)
class GroupLabel:
    """A UI-group decision: ``group`` (None: undecided, never asked) and the ``signal`` that
    decided it (``landmark``, ``name``, ``ad-marker``) or why not (``conflict``,
    ``edge-column``, ``no-region``)."""

    group: str | None
    signal: str


def label_of(el) -> str:
    """The visible label of an element: accessible name, text, value or placeholder."""
    return (el.name or el.text or el.attrs.get("value") or el.attrs.get("placeholder") or "").strip()


def is_redacted(text: str) -> bool:
    """Whether ``text`` holds a redaction marker such as ``[EMAIL REDACTED]``."""
    return bool(_REDACTED.search(text or ""))


def _page_wh(snapshot) -> tuple[float, float]:
    w, h = snapshot.page_size if snapshot.page_size[0] else (snapshot.viewport[0], snapshot.viewport[1])
    return float(w), float(h)


def inside_page(snapshot, el, slack: float = 1.0) -> bool:
    """The element's box lies inside the page (nothing off-screen: no negative offset, nothing
    beyond the page's right or bottom edge) and is not empty."""
    pw, ph = _page_wh(snapshot)
    x, y, w, h = el.box
    return w > 0 and h > 0 and x >= -slack and y >= -slack and x + w <= pw + slack and y + h <= ph + slack


def _chain(snapshot, el) -> list:
    by_id = {e.id: e for e in snapshot.elements}
    out, cur = [], el
    while cur is not None:
        out.append(cur)
        cur = by_id.get(cur.parent) if cur.parent else None
    return out


def _tokens(e) -> list[str]:
    return f"{e.attrs.get('id', '')} {e.attrs.get('class', '')}".split()


def _is_ad(e) -> bool:
    """An advertisement marker: an id/class token, or a ``-``/``_`` part of one, that is a whole
    ad word (``ad``, ``ads2``, ``advert``, ``sponsored`` ...); a part of a generated id such as
    ``AD1D2116`` is none."""
    return any(_AD_PART.fullmatch(part) for tok in _tokens(e) for part in re.split(r"[-_]", tok))


def _named(e) -> str | None:
    for tok in _tokens(e):
        for kind, pat in REGION_TOKENS.items():
            if pat.match(tok):
                return kind
    return None


def _geometry(kind: str, box, pw: float, ph: float, *, named: bool = False) -> str | None:
    """The group a region of ``kind`` with this box is, if its geometry agrees, else None. A top
    region known only by its name must start at the page's top (within 40 px): a class such as
    Bootstrap's ``page-header`` names a heading block in the content."""
    x, y, w, h = box
    if kind == "top":
        return "top bar" if y <= (40 if named else 150) and w >= 0.6 * pw and 0 < h <= 320 else None
    if kind == "bottom":
        return "bottom bar" if (y + h >= ph - 60 and w >= 0.6 * pw and y >= 0.4 * ph and h <= 0.5 * ph) else None
    if kind == "side":
        if not (80 <= w <= 0.4 * pw and h >= 200):
            return None
        cx = x + w / 2
        return "left sidebar" if cx < 0.4 * pw else "right sidebar" if cx > 0.6 * pw else None
    if kind == "main":
        return "main content" if w >= 0.45 * pw and y >= 40 and y + h <= ph - 40 else None
    if kind == "nav":  # a navigation landmark is a bar at the top or a column at a side
        return _geometry("top", box, pw, ph) or _geometry("side", box, pw, ph)
    return None


def ui_group_label(snapshot, el) -> GroupLabel:
    """The UI group of ``el`` where a strong signal decides it (see module docstring)."""
    pw, ph = _page_wh(snapshot)
    chain = _chain(snapshot, el)
    if any(_is_ad(e) for e in chain):
        return GroupLabel("else", "ad-marker")
    for e in chain:
        kind = _LANDMARKS.get(e.role)
        if kind is not None:
            group = _geometry(kind, e.box, pw, ph)
            if group is None:
                if kind == "nav":
                    continue
                return GroupLabel(None, "conflict")
            return _checked_main(GroupLabel(group, "landmark"), el, pw)
        kind = _named(e)
        if kind is not None:
            group = _geometry(kind, e.box, pw, ph, named=True)
            if group is not None:
                return _checked_main(GroupLabel(group, "name"), el, pw)
    return GroupLabel(None, "no-region")


def _checked_main(label: GroupLabel, el, pw: float) -> GroupLabel:
    """Main content, unless the element is itself a narrow column at the page's edge."""
    if label.group != "main content":
        return label
    x, _, w, _ = el.box
    if w < 0.3 * pw and (x + w <= 0.25 * pw or x >= 0.75 * pw):
        return GroupLabel(None, "edge-column")
    return label


def ui_group(snapshot, el) -> str | None:
    """The decided UI group of ``el``, or None (see :func:`ui_group_label`)."""
    return ui_group_label(snapshot, el).group


def position_group(snapshot, el) -> str:
    """Position alone (no landmark, no name): centre in the top 120 px -> top bar, in the bottom
    150 px -> bottom bar, a narrow element (< 30% width) in the left/right 20% -> left/right
    sidebar, else main content. The ``dom-heuristic`` baseline's rule; never a label."""
    pw, ph = _page_wh(snapshot)
    cx, cy = el.center
    if cy < 120:
        return "top bar"
    if cy > ph - 150:
        return "bottom bar"
    if el.box[2] < 0.3 * pw and cx < 0.2 * pw:
        return "left sidebar"
    if el.box[2] < 0.3 * pw and cx > 0.8 * pw:
        return "right sidebar"
    return "main content"


_BTN_CLASS = re.compile(r"(^|[-_])(btn|button|cta)([-_]|$)", re.I)


def _alpha(color: str) -> float:
    m = re.match(r"rgba\(\s*[\d.]+\s*,\s*[\d.]+\s*,\s*[\d.]+\s*,\s*([\d.]+)\s*\)", color or "")
    return float(m.group(1)) if m else 1.0


def draws_text(el) -> bool:
    """The element's label is text drawn on the page: a text node (or an input button's value)
    in a visible colour and a readable size."""
    has = bool(el.text.strip() or (el.tag == "input" and str(el.attrs.get("value", "")).strip()))
    return has and el.font_size >= 6 and _alpha(el.color) > 0.1


def _filled(el, parent) -> bool:
    return parent is not None and _alpha(el.background_color) > 0.1 and el.background_color != parent.background_color


def button_like(el, parent=None, snapshot=None) -> bool:
    """A visible clickable button with drawn text (see module docstring). With ``snapshot``,
    the element must lie inside the page."""
    if not (el.visible and el.clickable and el.box[2] >= 8 and el.box[3] >= 8):
        return False
    if snapshot is not None and not inside_page(snapshot, el):
        return False
    label = label_of(el)
    if not label or len(label) > 60 or is_redacted(label):
        return False
    if el.tag == "button" or el.role == "button":
        return True
    if el.tag == "input":
        return el.attrs.get("type", "") in ("submit", "button", "reset")
    if el.tag == "a" and len(label) <= 40 and draws_text(el):
        return any(_BTN_CLASS.search(t) for t in el.attrs.get("class", "").split()) or _filled(el, parent)
    return False


def buttons(snapshot) -> list:
    """Every button-like element of a capture (see :func:`button_like`), in page order."""
    by_id = {e.id: e for e in snapshot.elements}
    return [e for e in snapshot.elements
            if button_like(e, by_id.get(e.parent) if e.parent else None, snapshot)]


def primary_button(snapshot):
    """The most prominent button in the first viewport (see module docstring)."""
    vh = snapshot.viewport[1]
    by_id = {e.id: e for e in snapshot.elements}
    cands = [e for e in buttons(snapshot) if e.box[1] < vh and draws_text(e)]
    if not cands:
        return None

    def weight(e):  # a filled button (own background) counts double
        filled = _filled(e, by_id.get(e.parent) if e.parent else None)
        return (e.area * (2 if filled else 1), -e.box[1], -e.box[0])

    return max(cands, key=weight)


def is_irreversible(label: str) -> bool:
    """Whether a button label names an irreversible action (delete, erase, pay, transfer...)."""
    return bool(_IRREVERSIBLE.search(label or ""))


def irreversible_buttons(snapshot) -> list:
    """Visible buttons whose label names an irreversible action, in page order."""
    return [e for e in buttons(snapshot) if is_irreversible(label_of(e))]
