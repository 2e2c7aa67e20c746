"""A scripted pointer step whose point is outside the view (a phone's view of a page wider than its
screen) is played as the element action that scrolls to its target; in view, it stays a pointer step."""

from __future__ import annotations

from webgauge.arena.core.observation import Observation
from webgauge.arena.core.script import Click, DragEnd, DragOnto, DragStart, Match, PointAt, by_element_out_of_view
from webgauge.browser import Element


def _el(eid: str, x: float, y: float) -> Element:
    return Element(id=eid, path=f"/html[1]/body[1]/div[{eid}]", tag="div", role="generic", name=eid, text=eid,
                   box=(x, y, 80, 40), visible=True, clickable=True, color="", background_color="", font_size=14.0)


def _obs(scroll_x: float = 0.0) -> Observation:
    return Observation(step=1, url="http://127.0.0.1/e/x/board/", navigation_id=1, viewport=(390, 844),
                       device_scale_factor=2.0, scroll=(scroll_x, 0.0), tabs=["u"], screenshot_hash="f" * 64,
                       token="f00d", elements=[_el("1", 20, 100), _el("2", 250, 100), _el("3", 480, 100)])


def _m(eid: str) -> Match:
    return Match(text=eid)


def test_a_point_past_the_view_edge_is_played_by_element():
    steps = [PointAt(_m("3")), PointAt(_m("1"))]
    assert by_element_out_of_view(steps, _obs()) == (1, [Click(_m("3"))])
    assert by_element_out_of_view(steps, _obs(scroll_x=200.0)) is None  # panned to it: in view


def test_a_drag_is_played_by_element_when_either_end_is_outside():
    inside = [DragStart(_m("1")), DragEnd(_m("2"))]
    assert by_element_out_of_view(inside, _obs()) is None
    to_outside = [DragStart(_m("1")), DragEnd(_m("3")), PointAt(_m("2"))]
    assert by_element_out_of_view(to_outside, _obs()) == (2, [DragOnto(_m("1"), _m("3"))])


def test_an_off_center_point_has_no_element_translation():
    assert by_element_out_of_view([PointAt(_m("3"), fx=0.2, fy=0.7)], _obs()) is None
