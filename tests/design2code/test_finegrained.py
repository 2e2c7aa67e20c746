"""Fine-grained metrics and RER keys on resource lists with known differences."""

import pytest

from webgauge.design2code.finegrained import fine_grained
from webgauge.design2code.matching import match_resources
from webgauge.design2code.resources import Resource, ResourceList


def link(url, x, y, w=100, h=20, text="Home", color="rgb(0, 0, 0)"):
    return Resource("link", [[x, y], [x + w, y + h]], url, text=text, color=color)


def test_known_offsets_and_areas():
    ref = [link("a.html", 0, 0), Resource("image", [[0, 100], [200, 200]], "img/x.png")]
    gen = [link("/a.html", 100, 50, text="Home", color="rgb(0,0,0)"),
           Resource("image", [[0, 100], [100, 200]], "http://127.0.0.1:9/img/x.png")]
    fg = fine_grained(ref, gen, width=1000, height=500)
    assert fg.n_matched == 2
    # link: dx=100/1000, dy=50/500 -> 0.1; image: centre moves 50px in x -> 0.05
    assert fg.position_offset == pytest.approx((0.1 + 0.05) / 2)
    assert fg.area_difference == pytest.approx((0 + 0.5) / 2)
    assert fg.color_difference == 0.0 and fg.text_difference == 0.0


def test_assignment_is_optimal_not_first_come():
    ref = [link("h.html", 0, 0), link("h.html", 0, 400)]
    gen = [link("h.html", 0, 402), link("h.html", 0, 3)]   # listed in reverse order
    pairs = match_resources(ref, gen, 1000, 500)
    assert [(p.ref_index, p.gen_index) for p in pairs] == [(0, 1), (1, 0)]
    assert fine_grained(ref, gen, 1000, 500).position_offset == pytest.approx((3 / 500 + 2 / 500) / 2)


def test_no_match_across_destinations_and_none_means():
    fg = fine_grained([link("a.html", 0, 0)], [link("b.html", 0, 0)], 100, 100)
    assert fg.n_matched == 0 and fg.position_offset is None and fg.color_difference is None


def test_text_and_color_difference():
    fg = fine_grained([link("a", 0, 0, text="About", color="rgb(0,0,0)")],
                      [link("a", 0, 0, text="Abou", color="rgb(255,255,255)")], 100, 100)
    assert fg.text_difference == pytest.approx(1 - 2 * 4 / 9)
    # black vs white is ΔE00 = 100: MRWeb's scale divides by 100, the raw value stays beside it
    assert fg.color_difference == pytest.approx(1.0, abs=1e-5)
    assert fg.color_difference_raw == pytest.approx(100.0, abs=1e-3)


def test_text_difference_only_over_resources_with_text():
    ref = [link("a", 0, 0, text="About"), Resource("image", [[0, 50], [10, 60]], "x.png", text="")]
    gen = [link("a", 0, 0, text="About"), Resource("image", [[0, 50], [10, 60]], "x.png", text="a photo")]
    fg = fine_grained(ref, gen, 100, 100)
    assert fg.n_matched == 2 and fg.text_difference == 0.0        # the alt-less image does not count
    assert [p["text_difference"] for p in fg.pairs] == [0.0, None]


def test_resource_list_roundtrip_and_validation():
    rl = ResourceList("index.html", [link("a.html", 1, 2), Resource(
        "backend_route", [[0, 0], [10, 10]], "/api/contact", fields=["email"])], page_size=(800, 600))
    back = ResourceList.from_json(rl.to_json())
    assert back.to_dict() == rl.to_dict() and back.resources[1].method == "POST"
    with pytest.raises(ValueError, match="not one of"):
        Resource("button", [[0, 0], [1, 1]], "x")
    with pytest.raises(ValueError, match="version"):
        ResourceList.from_dict({"version": "0", "page": "x", "resources": []})
