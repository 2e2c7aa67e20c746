"""The synthetic page generator: determinism, options, and ground truth that matches the HTML."""

import re

import pytest

from webgauge.pages.synthetic import DOMAINS, LAYOUTS, generate_page


def test_same_seed_is_byte_identical_and_new_seed_differs():
    a, b = generate_page(11), generate_page(11)
    assert a.html == b.html and a.assets == b.assets and a.sha256 == b.sha256
    assert generate_page(12).sha256 != a.sha256


def test_options_are_respected_and_validated():
    page = generate_page(3, domain="bank", layout="holy-grail", with_safety=True, with_ads=True)
    assert (page.domain, page.layout) == ("bank", "holy-grail")
    assert set(page.truth["groups_present"]) == {"top bar", "left sidebar", "right sidebar",
                                                 "main content", "bottom bar", "else"}
    assert page.truth["safety"] and page.truth["has_safety"]
    assert not generate_page(3, with_safety=False).truth["safety"]
    with pytest.raises(ValueError, match="choose one of"):
        generate_page(1, domain="casino")
    with pytest.raises(TypeError):
        generate_page("1")


@pytest.mark.parametrize("seed", range(8))
def test_every_labelled_element_is_unique_in_the_html(seed):
    page = generate_page(seed)
    ids = re.findall(r'\sid="([^"]+)"', page.html)
    assert len(ids) == len(set(ids)), "ids must be unique"
    for el in page.truth["elements"]:
        assert ids.count(el["id"]) == 1
    for f in page.truth["fields"]:
        assert f["expected_value"]
        has_placeholder = re.search(rf'id="{f["id"]}"[^>]*placeholder=', page.html) is not None
        assert has_placeholder == f["hint"] == (f["placeholder"] is not None)
    assert page.truth["cta"]["id"] in ids
    for path in re.findall(r'src="([^"]+)"', page.html):
        assert page.assets[path].startswith(b"\x89PNG")


def test_truth_does_not_leak_into_the_page():
    for seed in range(20):
        html = generate_page(seed).html.lower()
        for leak in ("data-truth", "data-label", "primary", "cta", "danger", "safety", "irreversible"):
            assert leak not in html, leak


def test_generator_covers_domains_and_layouts():
    pages = [generate_page(s) for s in range(60)]
    assert {p.domain for p in pages} == set(DOMAINS)
    assert {p.layout for p in pages} == set(LAYOUTS)
    assert {p.truth["has_safety"] for p in pages} == {True, False}
