"""Position relationships between two element boxes, and position-task difficulty.

Boxes are ``(x, y, w, h)`` in CSS px of the page. The relation of A *to* B is exactly:

1. ``contain`` — one box contains the other (each edge inside, with ``TOL`` = 1 px slack);
2. ``overlap`` — otherwise, when the x-ranges and the y-ranges both overlap by more than
   ``EPS`` = 4 px;
3. a pure direction — ``left``/``right`` when A lies wholly left/right of B by more than
   ``EPS`` *and* their y-ranges overlap by more than ``EPS``; ``top``/``bottom`` likewise
   with the axes swapped;
4. a diagonal — ``top-left``, ``top-right``, ``bottom-left``, ``bottom-right`` when A is
   separated from B by more than ``EPS`` on both axes.

The **dead zone**: a pair whose ranges on some axis overlap or are separated by at most
``EPS`` (they nearly touch: ``-EPS <= overlap <= EPS``) and that is not ``contain`` has no
defined relation; :func:`relation` returns ``None`` and such pairs are never asked.

Difficulty follows the full-page height (the cut-offs are ours: the paper grades position
questions easy, mid and hard but gives no numbers): ``easy`` up to 1,500 px, ``mid`` up to 3,000 px,
``hard`` up to 5,500 px; taller pages are dropped (:func:`difficulty` returns ``None``).
"""

from __future__ import annotations

__all__ = ["RELATIONS", "relation", "difficulty", "EPS", "TOL", "HEIGHT_THRESHOLDS", "MAX_HEIGHT"]

RELATIONS = ("contain", "overlap", "top-left", "top-right", "bottom-left", "bottom-right",
             "left", "right", "top", "bottom")
EPS = 4.0
TOL = 1.0
HEIGHT_THRESHOLDS = (("easy", 1500.0), ("mid", 3000.0), ("hard", 5500.0))
MAX_HEIGHT = HEIGHT_THRESHOLDS[-1][1]


def _contains(a, b) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax - TOL <= bx and ay - TOL <= by and bx + bw <= ax + aw + TOL and by + bh <= ay + ah + TOL


def relation(a, b) -> str | None:
    """The relation of box ``a`` to box ``b`` (see module docstring), or ``None`` in the dead zone."""
    if _contains(a, b) or _contains(b, a):
        return "contain"
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ox = min(ax + aw, bx + bw) - max(ax, bx)   # > 0: x-ranges overlap by ox px; < 0: gap
    oy = min(ay + ah, by + bh) - max(ay, by)
    if -EPS <= ox <= EPS or -EPS <= oy <= EPS:
        return None
    if ox > EPS and oy > EPS:
        return "overlap"
    horiz = "left" if ax + aw <= bx else "right"
    vert = "top" if ay + ah <= by else "bottom"
    if oy > EPS:
        return horiz
    if ox > EPS:
        return vert
    return f"{vert}-{horiz}"


def difficulty(page_height: float) -> str | None:
    """``easy`` / ``mid`` / ``hard`` by full-page height, ``None`` above ``MAX_HEIGHT``."""
    for name, limit in HEIGHT_THRESHOLDS:
        if page_height <= limit:
            return name
    return None
