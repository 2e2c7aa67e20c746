"""Resource extraction from the rendered DOM, on pages whose resources are known by construction."""

import pytest

from webgauge.design2code.backend import Route, SiteBackend
from webgauge.design2code.extract import extract_page, extract_site

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.browser]

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5b4a6cb0000000049454e44ae426082")

PAGE = """<!DOCTYPE html><html><head><style>
body{margin:0;height:1500px;background:#fff}
.abs{position:absolute}
</style></head><body>
<a class="abs" href="b.html" style="left:10px;top:20px;width:100px;height:30px;color:rgb(200,0,0)">Go to B</a>
<a class="abs" href="https://www.example.com/x/" style="left:10px;top:1200px;width:50px;height:10px">Ext</a>
<a href="hidden.html" style="display:none">hidden</a>
<a href="zero.html" class="abs" style="left:0;top:0;width:0;height:0;overflow:hidden"></a>
<a href="invisible.html" class="abs" style="left:300px;top:0;width:40px;height:40px;visibility:hidden">inv</a>
<img class="abs" src="img/p.png" alt="Pixel" style="left:200px;top:100px;width:64px;height:32px">
<div class="abs" style="left:400px;top:300px;width:120px;height:80px;background-image:url('img/p.png')"></div>
<form class="abs" action="/api/contact" method="post" style="left:0;top:500px;width:300px;height:60px">
  <input name="email" type="email"><button type="submit">Send</button></form>
<button class="abs" data-fetch="/api/like" style="left:600px;top:40px;width:80px;height:20px">Like</button>
</body></html>"""


async def test_extract_known_page(browser):
    files = {"a.html": PAGE, "b.html": "<a href='a.html'>back</a>", "img/p.png": PNG}
    with SiteBackend(files, [Route("POST", "/api/contact")]) as srv:
        rl = await extract_page(browser, srv.url("a.html"), name="a.html")
    by = {(r.type, r.url): r for r in rl.resources}
    assert sorted(by) == sorted([("link", "b.html"), ("link", "https://www.example.com/x/"),
                                 ("image", "img/p.png"), ("background_image", "img/p.png"),
                                 ("backend_route", "/api/contact"), ("backend_route", "/api/like")])
    link = by[("link", "b.html")]
    assert link.box == [[10, 20], [110, 50]] and link.text == "Go to B" and link.color == "rgb(200, 0, 0)"
    assert by[("link", "https://www.example.com/x/")].box == [[10, 1200], [60, 1210]]  # page px, below the fold
    assert by[("image", "img/p.png")].text == "Pixel"
    assert by[("background_image", "img/p.png")].box == [[400, 300], [520, 380]]
    form = by[("backend_route", "/api/contact")]
    assert (form.method, form.via, form.fields) == ("POST", "form", ["email"])
    assert by[("backend_route", "/api/like")].via == "fetch"
    assert rl.page_size == (1280, 1500)


async def test_extract_site_follows_links_to_depth(browser):
    files = {"index.html": "<a href='p1.html'>one</a>",
             "p1.html": "<a href='/p2.html'>two</a> <a href='index.html'>home</a>",
             "p2.html": "<a href='p3.html'>three</a>", "p3.html": "end"}
    with SiteBackend(files) as srv:
        site = await extract_site(browser, srv.url("index.html"), depth=1)
    assert sorted(site) == ["index.html", "p1.html"]
    targets = {r.text: r.target_page for rl in site.values() for r in rl.resources}
    assert targets == {"one": "p1.html", "two": "p2.html", "home": "index.html"}
