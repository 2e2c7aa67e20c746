"""Position relations from boxes: every relation, the dead zone, difficulty thresholds."""

import pytest

from webgauge.understand.relations import EPS, RELATIONS, difficulty, relation

B = (100, 100, 50, 50)  # x 100..150, y 100..150


@pytest.mark.parametrize("a,expected", [
    ((110, 110, 10, 10), "contain"), ((90, 90, 100, 100), "contain"),
    ((130, 130, 50, 50), "overlap"),
    ((0, 0, 50, 50), "top-left"), ((200, 0, 50, 50), "top-right"),
    ((0, 200, 50, 50), "bottom-left"), ((200, 200, 50, 50), "bottom-right"),
    ((0, 110, 50, 20), "left"), ((200, 110, 50, 20), "right"),
    ((110, 0, 20, 50), "top"), ((110, 200, 20, 50), "bottom"),
])
def test_each_relation(a, expected):
    assert relation(a, B) == expected
    assert expected in RELATIONS


def test_relation_is_mirrored():
    mirror = {"left": "right", "top": "bottom", "top-left": "bottom-right", "top-right": "bottom-left"}
    for a, b in [((0, 110, 50, 20), B), ((0, 0, 50, 50), B), ((200, 0, 50, 50), B)]:
        r = relation(a, b)
        back = relation(b, a)
        assert mirror.get(r, r) == back or mirror.get(back, back) == r


def test_dead_zone_pairs_have_no_relation():
    assert relation((0, 100 + 50 - EPS / 2, 50, 30), B) is None     # y-ranges barely overlap
    assert relation((150 + EPS / 2, 200, 20, 20), B) is None         # x-gap inside the dead zone
    assert relation((0, 0, 100, 100), B) is None                     # corners touch


def test_difficulty_thresholds():
    assert [difficulty(h) for h in (800, 1500, 1501, 3000, 3001, 5500, 5501)] == \
        ["easy", "easy", "mid", "mid", "hard", "hard", None]
