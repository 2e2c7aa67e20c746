"""MRWeb-format data in and out: import, bare-array resource lists, export, outside generations."""

import csv
import json

import pytest
from click.testing import CliRunner
from PIL import Image

from webgauge.cli.design2code import group
from webgauge.design2code.mrweb import export_mrweb, import_mrweb
from webgauge.design2code.resources import ResourceList

LINK = {"position": [[10, 10], [110, 40]], "type": "a", "text": "Example", "color": [0, 0, 255],
        "on_click_jump_to": "https://example.com"}
IMG = {"position": [[10, 60], [210, 160]], "type": "img", "text": "", "color": [0, 0, 0], "src": "logo.png"}
BUTTON = {"position": [[10, 200], [90, 230]], "type": "button", "text": "Go", "color": [255, 255, 255]}
PAGE = ('<html><body style="margin:0"><a href="{href}" style="position:absolute;left:10px;top:10px;width:100px;'
        'height:30px;color:#00f">Example</a><img src="logo.png" style="position:absolute;left:10px;top:60px;'
        'width:200px;height:100px"><button style="position:absolute;left:10px;top:200px">Go</button></body></html>')


def mrweb_folder(root):
    """Two pages in MRWeb's layout (plus one id whose PNG is missing)."""
    root.mkdir()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(root / "logo.png")
    for ident, size in (("101", (640, 900)), ("102", (500, 300))):
        (root / f"{ident}.html").write_text(PAGE.format(href="https://example.com"))
        Image.new("RGB", size, (255, 255, 255)).save(root / f"{ident}.png")
        (root / f"{ident}.json").write_text(json.dumps([LINK, IMG, BUTTON]))
    (root / "103.html").write_text("<html></html>")
    (root / "103.json").write_text("[]")
    return root


def test_import_export_and_bare_array(tmp_path):
    src = mrweb_folder(tmp_path / "mrweb")
    insts, failures = import_mrweb(src, tmp_path / "inst")
    assert [i.id for i in insts] == ["101", "102"] and failures[0]["id"] == "103" and "103.png" in failures[0]["error"]
    rl = insts[0].pages[0].resources
    assert [(r.type, r.url) for r in rl.resources] == [("link", "https://example.com"), ("image", "logo.png")]
    assert rl.resources[0].color == "rgb(0, 0, 255)" and rl.resources[0].box == [[10.0, 10.0], [110.0, 40.0]]
    assert rl.page_size == (640, 900) and insts[1].pages[0].width == 500   # size from the PNG
    assert insts[0].meta["dropped_resource_types"] == {"button": 1}
    assert insts[0].assets == ["logo.png"] and (insts[0].root / "site" / "logo.png").is_file()
    bare = ResourceList.from_json(json.dumps([LINK, IMG, BUTTON]), page="101.html", page_size=(640, 900))
    assert bare.to_dict() == rl.to_dict()
    assert insts[0].meta["profile"] == {"width": 1920, "height": 1080} and insts[0].profile.width == 1920
    res = export_mrweb(tmp_path / "inst", tmp_path / "out")
    assert res == {"pages": 2, "dropped": {}}
    # MRWeb's rows come back as they were read (the button too), in MRWeb's serialisation
    assert (tmp_path / "out" / "101.json").read_text(encoding="utf-8") == json.dumps([LINK, IMG, BUTTON], indent=4)
    assert (tmp_path / "out" / "101.png").read_bytes() == (src / "101.png").read_bytes()
    assert (tmp_path / "out" / "logo.png").is_file()


@pytest.mark.browser
def test_cli_imports_and_scores_outside_generations(tmp_path):
    src = mrweb_folder(tmp_path / "mrweb")
    r = CliRunner().invoke(group, ["import-mrweb", str(src), "--out", str(tmp_path / "inst")])
    assert r.exit_code == 0 and "imported 2 instances" in r.output and "1 failed" in r.output, r.output
    results = tmp_path / "results" / "mymethod"
    results.mkdir(parents=True)
    # the generated page writes the same link as https://EXAMPLE.com/: equal once normalised, not exactly
    (results / "101.html").write_text(PAGE.format(href="https://EXAMPLE.com/"))
    rows = {}
    for mode in ("webgauge", "exact", "mrweb"):
        r = CliRunner().invoke(group, ["score", str(results), "--instances", str(tmp_path / "inst"), "--no-functional",
                                       "--url-match", mode, "--out", str(tmp_path / f"score-{mode}"), "--workers", "1"])
        assert r.exit_code == 0, r.output
        assert "1 instances have none" in r.output
        with (tmp_path / f"score-{mode}" / "score" / "report" / "scores.csv").open() as fh:
            rows[mode] = list(csv.DictReader(fh))
    assert [(x["model"], x["strategy"], x["instance"]) for x in rows["webgauge"]] == [("mymethod", "outside", "101")]
    assert float(rows["webgauge"][0]["rer"]) == 1.0
    assert float(rows["exact"][0]["rer"]) == 0.5               # as written: EXAMPLE.com/ is another string
    assert float(rows["mrweb"][0]["rer"]) == 1.0               # MRWeb compares the browser's href: the same
    html = (tmp_path / "score-exact" / "score" / "report" / "index.html").read_text()
    assert "URL matching for RER: exact" in html and "Prompt set: outside" in html
    assert "1 imported reference pages were rendered beside their candidates" in html and "stand-ins" in html
    bad = CliRunner().invoke(group, ["score", str(results)])
    assert bad.exit_code != 0 and "--instances" in bad.output


def test_mrweb_url_convention():
    from webgauge.design2code.resources import Resource
    from webgauge.design2code.urls import mrweb_url, url_key

    assert mrweb_url("392.html#intro") == "#intro" and mrweb_url("#") == "#"       # a link's fragment alone
    assert mrweb_url("http://www.kzyx.org") == "http://www.kzyx.org/"              # the browser's href form
    assert mrweb_url("HTTP://Blog.Example.com:80/a b") == "http://blog.example.com/a%20b"
    assert mrweb_url("https://de.wikipedia.org/wiki/Café") == "https://de.wikipedia.org/wiki/Caf%C3%A9"
    assert mrweb_url("https://x.org/i.png#v2", link=False) == "https://x.org/i.png#v2"  # images keep theirs
    assert mrweb_url("http://127.0.0.1:8123/about.html?x=1") == "about.html?x=1"  # our serving origin
    assert mrweb_url("file:///home/u/all_data/about.html") == "file:///home/u/all_data/about.html"
    # a page's attribute is put in that form; a URL MRWeb recorded is already in it
    page = Resource("link", [[0, 0], [1, 1]], "www.kzyx.org", raw_url="http://www.kzyx.org")
    recorded = Resource("link", [[0, 0], [1, 1]], "http://www.kzyx.org/")
    assert url_key(page, "mrweb") == url_key(recorded, "mrweb") != url_key(page, "exact")


def test_rer_on_mrweb_rows_follows_mrweb():
    """RER over two MRWeb resource lists (no browser): img and background-image are one kind,
    each generated resource is used once, URLs compare in MRWeb's form."""
    from webgauge.design2code.functional import rer
    from webgauge.design2code.matching import match_resources
    from webgauge.design2code.mrweb import resources_from_mrweb

    def a(url, x=0):
        return {"position": [[x, 0], [x + 10, 10]], "type": "a", "color": [0, 0, 0], "text": "t",
                "on_click_jump_to": url}

    def img(src, kind="img"):
        return {"position": [[0, 20], [10, 30]], "type": kind, "src": src}

    ref = resources_from_mrweb([a("#top"), a("#top", 20), a("http://www.kzyx.org/"), img("https://i.org/a.png"),
                                img("https://i.org/b.png", "background-image")]).resources
    gen = resources_from_mrweb([a("#top"), a("http://www.kzyx.org/"), img("https://i.org/a.png", "background-image"),
                                img("https://i.org/c.png")]).resources
    pairs = match_resources(ref, gen, 1920, 1080, "mrweb")
    assert rer(ref, gen, 1920, 1080, pairs) == 0.6     # one #top, the host, a.png (as a background): 3 of 5
