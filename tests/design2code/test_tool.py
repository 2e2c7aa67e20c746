"""The design2code tool end to end in headless Chromium: upload, draw, generate, preview, zip."""

import io
import zipfile

import httpx
import pytest
from PIL import Image, ImageDraw

from webgauge.design2code.tool import ToolServer

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.browser]


def design(path, color, label):
    img = Image.new("RGB", (600, 400), "white")
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, 600, 50], fill=color)
    d.rectangle([20, 300, 220, 340], fill="#dddddd")
    d.text((30, 15), label, fill="white")
    img.save(path)
    return path


async def draw_box(page, stage_box, x1, y1, x2, y2):
    sx, sy = stage_box[0] + 1, stage_box[1] + 1   # inside the 1px border
    await page.mouse_down(sx + x1, sy + y1)
    await page.mouse_up(sx + x2, sy + y2, steps=4)


async def wait_url(page, suffix, seconds=10.0):
    for _ in range(int(seconds / 0.05)):
        if page.url.endswith(suffix):
            return
        await page.wait_for_timeout(50)
    raise AssertionError(f"browser stayed at {page.url}, expected .../{suffix}")


async def set_next_box(page, type_, url, text="", fields=""):
    await page.select("css=#box-type", type_)
    await page.fill("css=#box-url", url)
    await page.fill("css=#box-text", text)
    await page.fill("css=#box-fields", fields)


async def test_tool_end_to_end(browser, tmp_path):
    a = design(tmp_path / "home.png", "#0969da", "Home")
    b = design(tmp_path / "contact.png", "#1a7f37", "Contact")
    async with ToolServer(tmp_path / "work") as tool:
        async with browser.open(tool.url) as page:
            await page.set_input_files("css=#files", [a, b])
            await page.wait_for("css=#tabs button >> nth=1")
            stage = await page.box_of("css=#stage")
            # design 1 (index.html): a link to the second page
            await set_next_box(page, "link", "contact.html", "Contact us")
            await draw_box(page, stage, 400, 10, 560, 40)
            # design 2: rename it, a link home and a contact form
            await page.click("css=#tabs button >> nth=1")
            await page.fill("css=#page-name", "contact.html")
            await set_next_box(page, "link", "index.html", "Home")
            await draw_box(page, stage, 20, 10, 120, 40)
            await set_next_box(page, "backend_route", "/api/contact", "Send", "email")
            await draw_box(page, stage, 20, 300, 220, 340)
            state = await page.evaluate("() => [...document.querySelectorAll('#box-list tr')].length")
            assert state == 2
            await page.click("css=#generate")
            await page.wait_for("css=#preview-link", timeout=30)
            statuses = await page.evaluate("() => document.getElementById('statuses').textContent")
            assert statuses == "index.html: ok, contact.html: ok"
            preview = await page.evaluate("() => document.getElementById('preview-link').href")
            download = await page.evaluate("() => document.getElementById('download-link').href")
            await page.click("css=#download-link")
            await page.wait_for_timeout(300)
            assert page.downloads and page.downloads[0]["suggested_filename"].endswith(".zip")

            # the preview: navigation between generated pages and the backend route
            page.allow_origin(preview)
            await page.goto(preview)
            await page.mouse_click(480, 25)                       # the drawn "Contact us" link
            await wait_url(page, "/contact.html")
            await page.wait_for("css=form input[name=email]")  # the URL changes at commit, before the parse
            await page.evaluate("() => document.querySelector('form input[name=email]').value = 'a@b.c'")
            await page.click("css=form button[type=submit]")
            await wait_url(page, "/api/contact")
            await page.goto(preview.rsplit("/", 1)[0] + "/contact.html")
            await page.mouse_click(70, 25)                        # "Home"
            await wait_url(page, "/index.html")

        pid = download.rsplit("/", 1)[1].split("-")[-1].removesuffix(".zip")
        async with httpx.AsyncClient() as client:
            zdata = (await client.get(download)).content
            subs = (await client.get(f"{tool.url}api/submissions/{pid}")).json()
            bad = await client.post(f"{tool.url}api/generate", json={"designs": [], "strategy": "zs"})
        names = zipfile.ZipFile(io.BytesIO(zdata)).namelist()
        assert sorted(names) == ["contact.html", "index.html", "resources.json"]
        assert subs == [{"method": "POST", "path": "/api/contact", "body": {"email": ["a@b.c"]}, "expected": True}]
        assert bad.status_code == 400 and "at least one design" in bad.json()["error"]
