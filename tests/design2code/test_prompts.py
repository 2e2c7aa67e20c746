"""The two prompt sets and the URL-matching modes, on inputs whose output is known."""

import json

import pytest

from webgauge.design2code.prompts import PageTask, build_messages, refine_messages
from webgauge.design2code.resources import Resource, ResourceList
from webgauge.design2code.urls import url_key

PNG = b"\x89PNG\r\n\x1a\nfake"


def task(strategy, prompts):
    rl = ResourceList("index.html", [
        Resource("link", [[0, 0], [10, 10]], "about.html", text="About", target_page="about.html"),
        Resource("image", [[0, 20], [10, 30]], "img/a.png"),
        Resource("backend_route", [[0, 40], [10, 50]], "/api/contact", via="form", fields=["email"])])
    return PageTask("i", "index.html", ["index.html", "about.html"], PNG, rl, [], strategy, 1280, 900, prompts)


def test_mrweb_prompts_follow_appendix_c():
    msgs = build_messages(task("zs", "mrweb"))
    assert [m.role for m in msgs] == ["user"]                     # the paper has no system prompt
    text = msgs[0].text
    assert "Tailwind CSS" in text and "action list" in text and "[ACTION LIST]" not in text
    actions = json.loads(text[text.index("as follows: [{") + len("as follows: "):])
    assert actions == [{"position": [[0, 0], [10, 10]], "type": "a", "url": "about.html"},
                       {"position": [[0, 20], [10, 30]], "type": "img", "url": "img/a.png"}]
    assert "think step by step" in build_messages(task("cot", "mrweb"))[0].text
    sc = build_messages(task("sc", "mrweb"))[0].text
    assert "action list" not in sc and "Tailwind" in sc
    sr = task("sr", "mrweb")
    first = build_messages(sr)
    assert first[0].text == build_messages(task("zs", "mrweb"))[0].text
    again = refine_messages(sr, first, "```html\n<p>x</p>\n```", PNG, code="<p>x</p>")
    assert len(again) == 1 and len(again[0].content) == 3           # design, render, text with [CODE]
    assert "The current implementation I have is: <p>x</p> The action list" in again[0].text


def test_webgauge_prompts_stay_the_default():
    msgs = build_messages(task("zs", "webgauge"))
    assert msgs[0].role == "system" and "Tailwind" not in msgs[1].text and "/api/contact" in msgs[1].text
    with pytest.raises(ValueError, match="prompt set"):
        build_messages(task("zs", "nope"))


def test_url_match_modes():
    r = Resource("link", [[0, 0], [1, 1]], "https://example.com/", raw_url="https://EXAMPLE.com")
    assert url_key(r) == "https://example.com" and url_key(r, "exact") == "https://EXAMPLE.com"
    assert url_key("http://127.0.0.1:5555/about.html", "exact") == "about.html"   # the serving origin only
    assert url_key("./about.html", "exact") == "./about.html" and url_key("./about.html") == "about.html"
    assert url_key("a.php?x=1&amp;y=2", "webgauge,unescape") == "a.php?x=1&y=2"
    assert url_key("a.php?x=1&amp;y=2") == "a.php?x=1&amp;y=2"
    assert url_key("style.css?v=123&lang=en", "nocache") == "style.css?lang=en"
    assert url_key("style.css?v=123", "exact,nocache") == "style.css"
    with pytest.raises(ValueError, match="url-match"):
        url_key("x", "fuzzy")
