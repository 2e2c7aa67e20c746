"""An element's dict form: plain JSON types, every field, a copy the element does not share."""

from __future__ import annotations

import dataclasses
import json

from webgauge.browser.snapshot import Element


def _element() -> Element:
    return Element(id="e0123456789", path="/html[1]/body[1]/a[2]", tag="a", role="link", name="View",
                   text="View item", box=(10.5, 20.0, 30.25, 14.0), visible=True, clickable=True,
                   color="rgb(0, 0, 0)", background_color="rgba(0, 0, 0, 0)", font_size=14.0,
                   attrs={"href": "/shop/p/1", "class": "btn"}, parent="e9876543210", depth=5,
                   in_viewport=True, position="sticky", z_index="3")


def test_to_dict_holds_every_field_as_asdict_does_with_the_box_as_a_list():
    e = _element()
    d = e.to_dict()
    want = dataclasses.asdict(e)
    want["box"] = [10.5, 20.0, 30.25, 14.0]
    assert d == want and list(d) == [f.name for f in dataclasses.fields(Element)]
    assert json.loads(json.dumps(d)) == d  # plain JSON types
    assert Element.from_dict(d) == e


def test_the_dict_is_a_copy():
    e = _element()
    d = e.to_dict()
    d["attrs"]["href"] = "/elsewhere"
    d["box"][0] = 0.0
    assert e.attrs["href"] == "/shop/p/1" and e.box[0] == 10.5
