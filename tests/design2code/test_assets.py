"""Real instances carry the local assets their page references; remote ones are listed."""

import pytest

from webgauge.design2code.assets import page_assets

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 8


def test_page_assets_finds_every_kind_of_local_reference(tmp_path):
    (tmp_path / "img").mkdir()
    (tmp_path / "css").mkdir()
    for name in ("img/a.png", "img/a2x.png", "img/bg.png", "img/inline.png", "favicon.ico", "img/font-bg.png",
                 "my pic.png"):
        (tmp_path / name).write_bytes(PNG)
    (tmp_path / "css" / "site.css").write_text("body{background:url('../img/font-bg.png')} @import 'gone.css';")
    (tmp_path / "index.html").write_text(
        '<html><head><link rel="shortcut icon" href="/favicon.ico"><link rel="stylesheet" href="css/site.css">'
        '<style>.hero{background-image:url("img/bg.png")} .x{background:url(data:image/png;base64,AA==)}</style>'
        '</head><body><img src="img/a.png?v=3" srcset="img/a.png 1x, img/a2x.png 2x">'
        '<div style="background: url(&quot;img/inline.png&quot;)"></div><img src="my%20pic.png">'
        '<img src="https://cdn.example.com/x.png"><img src="//cdn.example.com/y.png"><img src="nope.png">'
        '<img src="../outside.png"><a href="other.html">x</a></body></html>')
    files, unavailable = page_assets(tmp_path / "index.html")
    assert set(files) == {"img/a.png", "img/a2x.png", "img/bg.png", "img/inline.png", "favicon.ico",
                          "css/site.css", "img/font-bg.png", "my pic.png"}
    reasons = {u["url"]: u["reason"] for u in unavailable}
    assert reasons == {"https://cdn.example.com/x.png": "remote", "//cdn.example.com/y.png": "remote",
                       "nope.png": "missing", "../outside.png": "outside", "gone.css": "missing"}
    assert next(u for u in unavailable if u["url"] == "gone.css")["referenced_by"] == "css/site.css"


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="session")
async def test_real_page_with_rick_jpg_renders_the_image(real_pages, browser, tmp_path):
    from webgauge.design2code.backend import SiteBackend
    from webgauge.design2code.dataset import build_instances

    src = tmp_path / "pages"
    src.mkdir()
    (src / "2822.html").symlink_to(real_pages / "2822.html")   # a small shared page with <img src="rick.jpg">
    insts, failures = await build_instances(tmp_path / "inst", real=src, browser=browser, progress=False)
    assert failures == [] and len(insts) == 1
    inst = insts[0]
    assert inst.assets == ["rick.jpg"] and (inst.root / "site" / "rick.jpg").read_bytes()[:2] == b"\xff\xd8"
    assert {"url": "/Content/cont_back.png", "reason": "missing", "referenced_by": "2822.html"} in \
        inst.unavailable_assets
    assert inst.pages[0].resources.of_type("image")             # the image is in the resource list ...
    files = {**inst.asset_files(), "2822.html": inst.reference_code("2822.html").encode()}
    with SiteBackend(files) as backend:                         # ... and loads in the reference render
        async with browser.open(backend.url("2822.html"), inst.profile) as page:
            widths = await page.evaluate(
                "() => Array.from(document.images).filter(i => i.src.endsWith('rick.jpg')).map(i => i.naturalWidth)")
    assert widths and all(w == 1920 for w in widths)
