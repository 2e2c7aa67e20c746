"""Bad pages get a clear per-page error (or a warning) within a time limit, never a hang."""

import http.server
import threading
import time

import pytest

from webgauge.pages import StaticServer, capture_pages, load_pages

BAD = {
    "malformed": "<html><body><div><p>unclosed <b>bold <table><tr><td>cell</div></span>text</p>",
    "loop": "<html><body><h1>before</h1><script>while (true) {}</script></body></html>",
    "dialogs": "<html><body><script>alert('hi'); confirm('sure?'); prompt('name?');</script><h1>after "
               "dialogs</h1></body></html>",
    "popups": "<html><body><script>for (let i = 0; i < 50; i++) window.open('about:blank#' + "
              "i);</script><h1>popups</h1></body></html>",
    "huge": "<html><body>" + "".join(f"<div>item {i}</div>" for i in range(50000)) + "</body></html>",
    "never_loads": "<html><body><h1>waiting</h1><img src='/hang.png'></body></html>",
    "remote": "<html><body><h1>remote</h1><img src='https://images.example.com/x.png'>"
              "<script src='https://cdn.example.com/lib.js'></script><link rel=stylesheet href='http://fonts.example.com/f.css'></body></html>",
}


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        name = self.path.strip("/").removesuffix(".html")
        if self.path == "/hang.png":
            time.sleep(40)
            return
        body = BAD.get(name)
        if body is None:
            self.send_error(404)
            return
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def bad_server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.daemon_threads = True
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


@pytest.mark.browser
async def test_bad_pages_fail_clearly_within_the_limit(browser, bad_server):
    refs = load_pages([f"{bad_server}/{name}.html" for name in BAD if name != "huge"])
    limit = 8  # seconds per page (a looping page burns a core until then: no longer than needed)
    t0 = time.monotonic()
    results = await capture_pages(browser, refs, timeout=limit, concurrency=2, progress=False)
    elapsed = time.monotonic() - t0
    by = {r.ref.url.rsplit("/", 1)[1].removesuffix(".html"): r for r in results}
    assert set(by) == set(BAD) - {"huge"}
    assert elapsed < limit * len(BAD) / 2 + 10
    assert by["malformed"].ok and any(e.tag == "td" and e.text.startswith("cell")
                                      for e in by["malformed"].snapshot.elements)
    assert not by["loop"].ok and by["loop"].error.kind == "timeout" and "loop" in str(by["loop"].error)
    dialogs = by["dialogs"].snapshot.dialogs
    assert [d["type"] for d in dialogs] == ["alert", "confirm", "prompt"]
    assert by["popups"].ok and len(by["popups"].snapshot.blocked_requests) == 0
    # 50,000 elements is heavy work, not a fault: it gets its own, larger time limit
    [huge] = await capture_pages(browser, load_pages(f"{bad_server}/huge.html"), timeout=90, progress=False)
    assert huge.ok and len(huge.snapshot.elements) == 20000 and huge.snapshot.truncated and not huge.snapshot.full_page
    never = by["never_loads"]
    assert never.ok and any("load event did not fire" in w for w in never.snapshot.warnings)
    remote = by["remote"].snapshot.blocked_requests
    assert {r["resource_type"] for r in remote} >= {"image", "script", "stylesheet"}
    # the browser is still healthy after all that
    ok = await capture_pages(browser, refs[:1], timeout=12, progress=False)
    assert ok[0].ok


@pytest.mark.browser
async def test_all_41_shared_real_pages_capture(browser, real_pages_dir):
    refs = load_pages(real_pages_dir)
    assert len(refs) == 41
    results = await capture_pages(browser, refs, timeout=45, concurrency=2, progress=False)
    failed = [(r.ref.id, str(r.error)) for r in results if not r.ok]
    assert not failed
    for r in results:
        assert r.snapshot.png_sha256 and len(r.snapshot.elements) > 3


def test_load_pages_errors_name_the_fix(tmp_path):
    with pytest.raises(ValueError, match="offline"):
        load_pages("https://example.com/page.html")
    with pytest.raises(FileNotFoundError):
        load_pages(tmp_path / "missing.html")
    (tmp_path / "a.txt").write_text("x")
    with pytest.raises(ValueError, match="no .html pages"):
        load_pages(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "p.html").write_text("<p>x</p>")
    (tmp_path / "p.html").write_text("<p>y</p>")
    refs = load_pages([tmp_path, tmp_path / "p.html"])
    assert [r.id for r in refs] == ["p", "sub/p", "p~1"]


def test_static_server_in_memory_and_folder(tmp_path):
    import urllib.request

    with StaticServer(files={"/a.html": "<p>hi</p>"}) as srv:
        assert urllib.request.urlopen(srv.url("a.html")).read() == b"<p>hi</p>"
    (tmp_path / "b.html").write_text("<p>b</p>")
    with StaticServer(root=tmp_path) as srv:
        assert urllib.request.urlopen(srv.url("b.html")).read() == b"<p>b</p>"


def test_folder_pages_are_served_with_their_charset(tmp_path):
    """A meta charset after the first 1,024 bytes must not leave Chromium guessing the encoding."""
    import urllib.request

    from webgauge.pages import StaticServer
    from webgauge.pages.server import text_charset

    late = b"<html><head><style>" + b"/*" + b"x" * 2000 + b"*/ p::before{content:'\xe2\x80\x94'}</style>" \
        b'<meta content="text/html; charset=utf-8" http-equiv="Content-Type"></head><body>\xe2\x80\x94</body></html>'
    (tmp_path / "late.html").write_bytes(late)
    (tmp_path / "latin.html").write_bytes(b"<p>caf\xe9</p>")
    assert text_charset(late) == "utf-8" and text_charset(b'<meta charset="windows-1252">') == "windows-1252"
    assert text_charset(b"caf\xe9") is None
    with StaticServer(root=tmp_path) as srv:
        with urllib.request.urlopen(srv.url("late.html")) as r:
            assert r.headers["Content-Type"] == "text/html; charset=utf-8"
        with urllib.request.urlopen(srv.url("latin.html")) as r:
            assert r.headers["Content-Type"] == "text/html"


@pytest.mark.browser
async def test_kept_pages_capture_what_new_pages_capture(browser, real_pages_dir, monkeypatch):
    """One capture at a time keeps its page and clears it for the next: four shared pages on one
    page, and each snapshot the same as in a browser context of its own."""
    from webgauge.browser import LivePage

    refs = load_pages([real_pages_dir / f"{n}.html" for n in ("11791", "1223", "13365", "87")])
    used = []
    real_capture = LivePage.capture

    async def recording(self, *a, **kw):
        used.append(self)
        return await real_capture(self, *a, **kw)

    monkeypatch.setattr(LivePage, "capture", recording)
    kept = await capture_pages(browser, refs, timeout=45, concurrency=1, progress=False)
    assert all(r.ok for r in kept), [str(r.error) for r in kept]
    assert len(used) == 4 and len({id(p) for p in used}) == 1
    monkeypatch.undo()
    with StaticServer(root=real_pages_dir) as srv:
        for r in kept:
            alone = await browser.capture_url(srv.url(f"{r.ref.id}.html"), timeout=45)
            assert r.snapshot.png_sha256 == alone.png_sha256, r.ref.id
            assert [(e.id, e.tag, e.box, e.text) for e in r.snapshot.elements] == [
                (e.id, e.tag, e.box, e.text) for e in alone.elements], r.ref.id
    with pytest.raises(ValueError, match="page options"):
        await browser.capture_url(srv.url("87.html"), keep=True, require_settled=True)
