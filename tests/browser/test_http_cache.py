"""The routed pages' HTTP cache: it serves only what a browser's own cache would serve without asking
the server (RFC 9111's freshness), only static sub-resources, keyed by what the response varies by, and a
page loaded through it looks and behaves as one loaded from the server."""

from __future__ import annotations

import email.utils
import gzip
import http.server
import threading
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webgauge.browser import RenderProfile
from webgauge.browser.http_cache import CACHEABLE_KINDS, HttpCache, freshness_seconds

NOW = 1_800_000_000.0
KINDS = sorted(CACHEABLE_KINDS | {"document", "xhr", "fetch", "media", "other", "websocket", "manifest"})
DIRECTIVES = st.sampled_from(["no-store", "no-cache", "public", "private", "must-revalidate", "immutable",
                              "max-age=0", "max-age=60", "max-age=86400", "s-maxage=600", "max-age=x",
                              'private="set-cookie"', "stale-while-revalidate=60", "NO-STORE", " no-cache "])


def http_date(t: float) -> str:
    return email.utils.formatdate(t, usegmt=True)


responses = st.fixed_dictionaries({}, optional={
    "cache-control": st.lists(DIRECTIVES, max_size=4).map(", ".join),
    "expires": st.one_of(st.integers(-10**6, 10**6).map(lambda d: http_date(NOW + d)), st.just("0"), st.just("soon")),
    "last-modified": st.integers(-10**7, 10**5).map(lambda d: http_date(NOW + d)),
    "date": st.just(http_date(NOW)),
    "vary": st.sampled_from(["Accept-Encoding", "Cookie", "*", "Accept-Encoding, Cookie", "accept-language, *"]),
    "pragma": st.sampled_from(["no-cache", ""]),
})
requests = st.fixed_dictionaries({}, optional={"range": st.just("bytes=0-10"),
                                               "cookie": st.sampled_from(["a=1", "a=2"]),
                                               "authorization": st.just("Basic eA==")})


@settings(max_examples=500, deadline=None)
@given(method=st.sampled_from(["GET", "get", "POST", "HEAD", "PUT"]), kind=st.sampled_from(KINDS),
       status=st.sampled_from([200, 203, 204, 206, 301, 304, 404, 500]), req=requests, resp=responses,
       cacheable_request=st.booleans())
def test_only_what_a_browser_would_reuse_unasked_is_fresh(method, kind, status, req, resp, cacheable_request):
    if cacheable_request:  # half the examples are GETs of a static kind answered 200: the headers decide
        method, kind, status = "GET", "stylesheet", 200
    fresh = freshness_seconds(method, kind, status, req, resp, now=NOW)
    cc = {d.strip().lower() for d in resp.get("cache-control", "").split(",")}
    if fresh > 0:
        assert method.upper() == "GET" and kind in CACHEABLE_KINDS and status == 200
        assert not {"no-store", "no-cache", "max-age=0", "max-age=x", 'private="set-cookie"'} & cc, resp
        assert "*" not in resp.get("vary", "") and "no-cache" not in resp.get("pragma", "")
        assert "range" not in req and "authorization" not in req
        # a lifetime is declared (max-age, Expires in the future) or there is a Last-Modified to guess from
        assert any(d.startswith("max-age=") for d in cc) or "expires" in resp or "last-modified" in resp
    if "max-age=60" in cc and fresh > 0 and not any(d.startswith("max-age=") and d != "max-age=60" for d in cc):
        assert fresh == 60  # max-age wins over Expires and the heuristic
    if not any(d.startswith("max-age=") for d in cc) and "expires" not in resp:
        assert fresh <= 86400  # a lifetime guessed from Last-Modified is at most a day


@settings(max_examples=200, deadline=None)
@given(lifetime=st.integers(1, 1000), waited=st.integers(0, 2000), cookie1=st.sampled_from(["", "s=1", "s=2"]),
       cookie2=st.sampled_from(["", "s=1", "s=2"]), vary=st.sampled_from(["", "Cookie", "Accept-Encoding"]))
def test_an_entry_serves_only_while_fresh_and_only_to_requests_it_varies_alike(lifetime, waited, cookie1,
                                                                               cookie2, vary):
    clock = [0.0]
    cache = HttpCache(clock=lambda: clock[0])
    resp = {"cache-control": f"max-age={lifetime}", "vary": vary, "content-encoding": "gzip", "content-length": "9"}
    assert cache.store("GET", "stylesheet", "http://127.0.0.1:1/a.css", {"cookie": cookie1}, 200, resp, b"body{}")
    clock[0] = float(waited)
    hit = cache.lookup("GET", "stylesheet", "http://127.0.0.1:1/a.css", {"cookie": cookie2})
    should = waited < lifetime and (vary != "Cookie" or cookie1 == cookie2)
    assert (hit is not None) == should
    if hit is not None:  # the body is kept decoded: the wire's encoding and length are not replayed
        assert hit.body == b"body{}" and "content-encoding" not in hit.headers and "content-length" not in hit.headers
    assert cache.lookup("POST", "stylesheet", "http://127.0.0.1:1/a.css", {"cookie": cookie2}) is None
    assert cache.lookup("GET", "document", "http://127.0.0.1:1/a.css", {"cookie": cookie2}) is None


def test_the_cache_keeps_to_its_size():
    cache = HttpCache(max_bytes=8000)
    for i in range(40):
        cache.store("GET", "image", f"http://127.0.0.1:1/{i}.png", {}, 200, {"cache-control": "max-age=99"}, b"x" * 900)
    assert cache.bytes <= 8000 and len(cache) == 8
    assert cache.lookup("GET", "image", "http://127.0.0.1:1/39.png", {}) is not None  # the newest stay
    assert cache.lookup("GET", "image", "http://127.0.0.1:1/0.png", {}) is None


PAGE = b"""<!doctype html><html><head><link rel=stylesheet href="/style.css"><script src="/app.js"></script></head>
<body><h1 id=h>Cached</h1><img id=live src="/live.png"><img id=old src="/old.png"></body></html>"""
CSS = b"h1 { color: rgb(1, 2, 3); } body { background: rgb(250, 240, 230); }"
JS = b"document.addEventListener('DOMContentLoaded', () => { document.body.dataset.js = window.__n = 'ran'; });"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5f0d2b90000000049454e44ae426082")


class _Server:
    """A loopback server counting requests per path: a gzip'd stylesheet fresh for 10 minutes, a script
    fresh by its old Last-Modified, an image marked no-store and one with no freshness at all."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        served = self.hits

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                served[self.path] += 1
                now = email.utils.formatdate(usegmt=True)
                body, headers = {
                    "/": (PAGE, {"Content-Type": "text/html", "Cache-Control": "no-store"}),
                    "/style.css": (gzip.compress(CSS), {"Content-Type": "text/css", "Content-Encoding": "gzip",
                                                        "Cache-Control": "public, max-age=600"}),
                    "/app.js": (JS, {"Content-Type": "text/javascript",
                                     "Last-Modified": email.utils.formatdate(0, usegmt=True)}),
                    "/live.png": (PNG, {"Content-Type": "image/png", "Cache-Control": "max-age=600, no-store"}),
                    "/old.png": (PNG, {"Content-Type": "image/png"}),
                }.get(self.path, (b"nope", {"Content-Type": "text/plain"}))
                self.send_response(200 if self.path in ("/", "/style.css", "/app.js", "/live.png", "/old.png") else 404)
                for k, v in {**headers, "Date": now, "Content-Length": str(len(body))}.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


async def _load(browser, url: str, cache: bool) -> dict:
    page = await browser.new_page(RenderProfile(offline=True, allowed_origins=(url,)), http_cache=cache)
    try:
        await page.goto(url)
        return await page.evaluate("""() => ({color: getComputedStyle(document.getElementById('h')).color,
            bg: getComputedStyle(document.body).backgroundColor, js: document.body.dataset.js || '',
            imgs: [...document.images].map(i => i.complete && i.naturalWidth)})""")
    finally:
        await page.close()


@pytest.mark.browser
async def test_pages_through_the_cache_look_the_same_and_skip_only_fresh_resources(browser):
    server = _Server()
    browser.http_cache.clear()
    try:
        plain = await _load(browser, server.url, cache=False)
        assert plain == {"color": "rgb(1, 2, 3)", "bg": "rgb(250, 240, 230)", "js": "ran", "imgs": [1, 1]}
        before = Counter(server.hits)
        first = await _load(browser, server.url, cache=True)
        second = await _load(browser, server.url, cache=True)  # another context: the cache is the browser's
        assert first == second == plain
        fetched = server.hits - before
        # the fresh ones came from the server once; the no-store image and the page on every load
        assert fetched["/style.css"] == 1 and fetched["/app.js"] == 1
        assert fetched["/live.png"] == 2 and fetched["/"] == 2 and fetched["/old.png"] == 2
        assert browser.http_cache.hits >= 2
        again = Counter(server.hits)
        await _load(browser, server.url, cache=False)  # a page without the cache asks the server for all
        assert (server.hits - again)["/style.css"] == 1
    finally:
        server.close()
