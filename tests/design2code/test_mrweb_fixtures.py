"""MRWeb's layout on pages written for these tests (tests/design2code/fixtures/mrweb, boxes
recorded in a 1920x1080 window): a perfect copy scores perfect, the round trip is byte-exact
in any locale, and bad folders get one-line errors with the right exit codes."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from webgauge.cli.design2code import group
from webgauge.design2code.mrweb import export_mrweb, import_mrweb

FIXTURES = Path(__file__).parent / "fixtures" / "mrweb"
IDS = ["1001", "1003", "WebSight_7"]


def test_fixtures_carry_every_trait():
    rows = {i: json.loads((FIXTURES / f"{i}.json").read_text(encoding="utf-8")) for i in IDS}
    allrows = [r for rs in rows.values() for r in rs]
    urls = [r.get("on_click_jump_to") or r.get("src") for r in allrows]
    assert max(r["position"][1][0] for r in allrows) > 1280                      # 1920-px coordinates
    assert {"#top", "#archiv", "#kontakt"} <= set(urls)                            # fragment-only links
    assert {"http://www.kzyx.org/", "http://blog.example.com/"} <= set(urls)     # bare hosts, browser form
    assert {r["type"] for r in allrows} == {"a", "img", "background-image"}
    assert any(not t.isascii() for t in (r.get("text", "") for r in allrows))    # non-ASCII text
    # remote images
    assert all(u.startswith("https://") for r, u in zip(allrows, urls, strict=True) if r["type"] != "a")
    assert [0, 102, 204] in [r.get("color") for r in allrows]                    # the recording browser's link colour


def test_round_trip_is_byte_exact(tmp_path):
    insts, failures = import_mrweb(FIXTURES, tmp_path / "inst")
    assert failures == [] and [i.id for i in insts] == IDS
    assert export_mrweb(tmp_path / "inst", tmp_path / "out") == {"pages": 3, "dropped": {}}
    for ident in IDS:
        for ext in ("json", "html", "png"):
            assert (tmp_path / "out" / f"{ident}.{ext}").read_bytes() == (FIXTURES / f"{ident}.{ext}").read_bytes(), \
                f"{ident}.{ext}"
    assert "»" in (tmp_path / "out" / "1003.json").read_text(encoding="utf-8")   # not written as \u00bb


def test_round_trip_in_a_c_locale(tmp_path):
    """Import and export through the CLI in a process whose locale encoding is ASCII."""
    env = {**os.environ, "LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": "ascii:replace"}
    code = ("import locale, sys; assert locale.getpreferredencoding(False).lower() in ('ascii', 'ansi_x3.4-1968'), "
            "locale.getpreferredencoding(False); from webgauge.cli.design2code import group; group(sys.argv[1:])")
    for args in (["import-mrweb", str(FIXTURES), "--out", str(tmp_path / "inst")],
                 ["export-mrweb", str(tmp_path / "inst"), "--out", str(tmp_path / "out")]):
        r = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=120,
                           check=False)
        assert r.returncode == 0, r.stderr
    for ident in IDS:
        assert (tmp_path / "out" / f"{ident}.json").read_bytes() == (FIXTURES / f"{ident}.json").read_bytes()


def _copy(ids, dest: Path, parts=("html", "json", "png")) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for ident in ids:
        for ext in parts:
            shutil.copyfile(FIXTURES / f"{ident}.{ext}", dest / f"{ident}.{ext}")
    return dest


def _one_line_error(output: str) -> str:
    assert "Traceback" not in output
    errors = [line for line in output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, output
    return errors[0]


def test_bad_folders_get_one_line_errors(tmp_path):
    run = CliRunner().invoke
    (tmp_path / "empty").mkdir()
    r = run(group, ["import-mrweb", str(tmp_path / "empty"), "--out", str(tmp_path / "o1")])
    assert r.exit_code == 1 and "holds no <id>.json or <id>.html" in _one_line_error(r.output)

    mixed = _copy(["1001"], tmp_path / "mixed")
    shutil.copyfile(FIXTURES / "1003.html", mixed / "1003.html")        # an .html without its .json
    (mixed / "7.json").write_text("[{", encoding="utf-8")                  # invalid JSON
    shutil.copyfile(FIXTURES / "1001.png", mixed / "7.png")
    shutil.copyfile(FIXTURES / "1001.html", mixed / "7.html")
    r = run(group, ["import-mrweb", str(mixed), "--out", str(tmp_path / "o2")])
    assert r.exit_code == 0 and "imported 1 instances" in r.output, r.output
    assert "failed 1003: FileNotFoundError: 1003.json and 1003.png missing beside 1003.html" in r.output
    assert "failed 7: ValueError: 7.json is not UTF-8 JSON" in r.output
    assert (tmp_path / "o2" / "1001" / "instance.json").is_file() and not (tmp_path / "o2" / "1003").exists()

    broken = tmp_path / "broken"
    broken.mkdir()
    shutil.copyfile(FIXTURES / "1001.html", broken / "1001.html")
    (broken / "9.json").write_bytes("[{\"type\": \"a\", \"text\": \"Grüße\"}]".encode("latin-1"))
    r = run(group, ["import-mrweb", str(broken), "--out", str(tmp_path / "o3")])
    assert r.exit_code == 1 and "all 2 failed" in _one_line_error(r.output), r.output
    assert "failed 1001:" in r.output and "failed 9:" in r.output


def test_import_warns_about_boxes_outside_the_screenshot(tmp_path):
    src = _copy(["1001"], tmp_path / "narrow", parts=("html", "json"))
    Image.open(FIXTURES / "1001.png").crop((0, 0, 1280, 800)).save(src / "1001.png")   # a 1280x800 screenshot
    r = CliRunner().invoke(group, ["import-mrweb", str(src), "--out", str(tmp_path / "inst")])
    assert r.exit_code == 0
    assert "warning 1001: 10 of 11 boxes lie outside the 1280x800 screenshot" in r.output, r.output
    assert "1280 px wide, the window 1920 px" in r.output
    r = CliRunner().invoke(group, ["import-mrweb", str(FIXTURES), "--out", str(tmp_path / "i2"), "--width", "1280",
                                   "--height", "800"])
    inst = json.loads((tmp_path / "i2" / "1001" / "instance.json").read_text(encoding="utf-8"))
    assert inst["meta"]["profile"] == {"width": 1280, "height": 800} and "warning 1001" in r.output
    quiet = CliRunner().invoke(group, ["import-mrweb", str(FIXTURES), "--out", str(tmp_path / "i3")])
    assert "warning" not in quiet.output and "1920x1080 window" in quiet.output


def test_score_help_says_where_output_goes(tmp_path):
    r = CliRunner().invoke(group, ["score", "--help"])
    text = " ".join(r.output.split())
    assert "OUT/generations" in text and "OUT/score" in text and "OUT/score/report" in text


pytestmark_browser = pytest.mark.asyncio(loop_scope="session")

PERFECT = {"mae": 0.0, "ssim": 1.0, "nemd": 1.0, "rer": 1.0, "images": 1.0, "position_offset": 0.0,
           "area_difference": 0.0, "color_difference": 0.0, "text_difference": 0.0}


@pytest.mark.browser
@pytestmark_browser
async def test_a_perfect_copy_scores_perfect(browser, tmp_path):
    from webgauge.design2code.score import score_site

    insts, _ = import_mrweb(FIXTURES, tmp_path / "inst")
    for inst in insts:
        assert (inst.profile.width, inst.profile.height) == (1920, 1080)
        page = inst.pages[0].name
        files = {**inst.asset_files(), page: (FIXTURES / page).read_bytes()}
        res = await score_site(inst, files, browser)
        row = res["pages"][0]
        assert "error" not in row, row.get("error")
        got = {m: row[m] for m in PERFECT}
        assert got == pytest.approx(PERFECT, abs=1e-9), (inst.id, got)
        assert row["reference"]["measured"] == row["n_resources"] == row["n_matched"]
        assert row["functional_detail"]["images"]["failed"] == []       # remote images answered by stand-ins
        if inst.id == "1001":   # MRWeb's recorded link colour is another browser's: kept beside, not scored
            assert row["reference"]["recorded"]["color_difference"] > 0.05
            assert row["gen_size"][1] > 1080                             # the full page, not one window


@pytest.mark.browser
@pytestmark_browser
async def test_a_copy_with_other_images_loses_them(browser, tmp_path):
    """A candidate that swaps the reference's remote image URLs for its own: the stand-ins do not
    answer them, the layout and `images` show it."""
    from webgauge.design2code.score import score_site

    insts, _ = import_mrweb(FIXTURES, tmp_path / "inst", limit=None)
    inst = next(i for i in insts if i.id == "WebSight_7")
    html = (FIXTURES / "WebSight_7.html").read_text(encoding="utf-8").replace("images.unsplash.com",
                                                                              "images.example.net")
    res = await score_site(inst, {"WebSight_7.html": html.encode("utf-8")}, browser)
    row = res["pages"][0]
    assert row["images"] == 0.0 and row["rer"] == pytest.approx(3 / 7)
    assert row["mae"] > 1.0 and row["functional_detail"]["images"]["loaded"] == 0
