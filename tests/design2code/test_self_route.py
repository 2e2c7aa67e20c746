"""A form that submits to its own page never shadows that page; a candidate 404 is a counted miss.

The backend half is a property over methods, page names and queries on the real loopback server;
the scoring half is the issue's minimal page (``<form action="">``) scored against itself in Chromium.
"""

import shutil
import socket
import string

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webgauge.design2code.backend import Route, SiteBackend

names = st.text(alphabet=string.ascii_lowercase + string.digits + "-_", min_size=1, max_size=12).map(
    lambda s: f"{s}.html")
queries = st.dictionaries(st.sampled_from(["q", "email", "x"]), st.text(alphabet=string.ascii_letters, max_size=6),
                          max_size=2)


@settings(max_examples=15)
@given(names, st.sampled_from(["GET", "POST"]), queries)
def test_a_route_on_its_own_page_serves_the_page_and_records_only_submissions(name, method, query):
    body = b"<h1>page</h1>"
    with SiteBackend({name: body}, [Route.of(method, f"/{name}")]) as srv:
        for _ in range(2):                                   # page loads, again and again: never recorded
            r = httpx.get(srv.url(name))
            assert r.status_code == 200 and r.content == body
        assert srv.submissions == []
        if method == "GET":                                  # a GET submission carries a query (maybe empty)
            r = httpx.get(srv.url(name) + "?" + "&".join(f"{k}={v}" for k, v in query.items()))
        else:
            r = httpx.post(srv.url(name), data=query)
        assert r.status_code == 200 and b"Received" in r.content
        got = srv.received(Route(method, f"/{name}"))
        assert len(got) == 1 and (got[0].query if method == "GET" else (got[0].body or {})) == \
            {k: [v] for k, v in query.items()}


def test_route_of_drops_query_and_fragment():
    assert Route.of("post", "/contact#contact_form") == Route("POST", "/contact")
    assert Route.of(None, "search?q=1") == Route("POST", "/search")


def test_a_missing_file_is_a_counted_404_and_a_dropped_connection_prints_nothing(capfd):
    with SiteBackend({"index.html": b"hi"}) as srv:
        assert httpx.get(srv.url("rick.jpg")).status_code == 404
        host, port = srv.base_url.split("//")[1].rstrip("/").split(":")
        for _ in range(5):                                   # a client that leaves before the answer
            with socket.create_connection((host, int(port))) as s:
                s.sendall(b"GET /missing.png HTTP/1.1\r\nHost: x\r\n\r\n")
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        assert httpx.get(srv.url("index.html")).text == "hi"
        assert srv.not_found[0] == "/rick.jpg" and set(srv.not_found) <= {"/rick.jpg", "/missing.png"}
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipe" not in err and "ConnectionReset" not in err


MINIMAL = ('<h1>Hello world</h1><p>Some text here.</p><form action=""><input name="q"><button>Search</button>'
           '</form><img src="rick.jpg">')


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="session")
async def test_the_minimal_self_form_page_scores_perfectly(browser, real_pages, tmp_path):
    from webgauge.browser import RenderProfile
    from webgauge.design2code.dataset import build_instances
    from webgauge.design2code.score import score_site

    src = tmp_path / "pages"
    src.mkdir()
    (src / "selfform.html").write_text(MINIMAL, encoding="utf-8")
    shutil.copy(real_pages / "rick.jpg", src / "rick.jpg")
    (inst,), failures = await build_instances(tmp_path / "inst", real=src, browser=browser, progress=False,
                                              profile=RenderProfile(width=960, height=600))
    assert failures == [] and inst.routes == [Route("GET", "/selfform.html")]
    files = {**inst.asset_files(), "selfform.html": MINIMAL.encode()}
    res = await score_site(inst, files, browser, metrics=("d2c",))
    s = res["summary"]
    assert (s["mae"], s["ssim"], s["nemd"], s["rer"], s["backend"], s["images"]) == (0.0, 1.0, 1.0, 1.0, 1.0, 1.0)
    assert s["not_found"] == 0
    assert all(s[m] == 1.0 for m in ("d2c_block", "d2c_text", "d2c_position", "d2c_color", "d2c_final_noclip"))
    # without the page's image the candidate's request is a counted miss, not an error
    res = await score_site(inst, {"selfform.html": MINIMAL.encode()}, browser, functional=False)
    assert res["summary"]["not_found"] >= 1 and res["summary"]["pages_failed"] == 0
    assert {"method": "GET", "path": "/rick.jpg", "status": 404, "expected": False} in res["unexpected_requests"]
