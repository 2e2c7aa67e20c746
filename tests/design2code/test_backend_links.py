"""Link wiring and the recording backend (no browser)."""

import re

import httpx

from webgauge.design2code.backend import Route, SiteBackend
from webgauge.design2code.generate import wire_links


def test_wire_links_rewrites_every_form_of_a_page_name():
    code = ('<a href="/contact.html">a</a><a href="./contact">b</a><a href="http://127.0.0.1:9/index.html#top">c</a>'
            '<a href="https://example.com/contact.html">d</a><a href="#x">e</a>')
    out, n = wire_links(code, ["index.html", "contact.html"])
    assert re.findall(r'href="([^"]*)"', out) == ["contact.html", "contact.html", "index.html#top",
                                                   "https://example.com/contact.html", "#x"]
    assert n == 3


def test_backend_records_forms_json_and_unexpected():
    with SiteBackend({"index.html": b"hi"}, [Route("POST", "/api/contact")]) as srv:
        assert httpx.get(srv.url("index.html")).text == "hi"
        assert httpx.post(srv.url("api/contact"), data={"email": "a@b.c"}).status_code == 200
        assert httpx.post(srv.url("api/contact"), json={"x": 1}).json() == {"ok": True}
        assert httpx.post(srv.url("api/other"), data={"a": "1"}).status_code == 404
        assert httpx.get(srv.url("api/contact")).status_code == 405
        got = srv.received(Route("POST", "/api/contact"))
        assert [s.body for s in got] == [{"email": ["a@b.c"]}, {"x": 1}]
        assert [(s.method, s.path, s.status) for s in srv.submissions if not s.expected] == [
            ("POST", "/api/other", 404), ("GET", "/api/contact", 405)]
