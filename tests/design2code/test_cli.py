"""The click commands call the library: extract a real page, IQA from a CSV, clear errors."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from webgauge.cli.design2code import group


@pytest.mark.browser
def test_extract_real_page_to_json(real_pages, tmp_path):
    page = real_pages / "12142.html"
    out = tmp_path / "res.json"
    r = CliRunner().invoke(group, ["extract", str(page), "-o", str(out)])
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    rl = doc["pages"]["12142.html"]
    assert rl["version"] == "webgauge.design2code.resources/1"
    assert {"background_image", "backend_route"} <= {x["type"] for x in rl["resources"]}
    bad = CliRunner().invoke(group, ["extract", str(tmp_path / "nope.html")])
    assert bad.exit_code != 0 and "not an HTML file" in bad.output


def test_iqa_command_prints_table(tmp_path):
    rng = np.random.default_rng(0)
    lines = ["rater,pair,rating,mae,nemd"]
    for k in range(3):
        for i in range(12):
            lines.append(f"r{k},p{i},{i + rng.normal(0, 0.3):.3f},{100 - 5 * i},{rng.random():.3f}")
    (tmp_path / "ratings.csv").write_text("\n".join(lines) + "\n")
    r = CliRunner().invoke(group, ["iqa", str(tmp_path / "ratings.csv"), "-o", str(tmp_path / "iqa.json")])
    assert r.exit_code == 0, r.output
    assert "| metric |" in r.output and "inter-rater SROCC" in r.output
    rows = {row["metric"]: row for row in json.loads((tmp_path / "iqa.json").read_text())["rows"]}
    assert rows["mae"]["srocc"] > 0.9 and rows["mae"]["srocc_signed"] < -0.9
    (tmp_path / "plain.csv").write_text("rater,pair,rating\na,x,1\n")
    r = CliRunner().invoke(group, ["iqa", str(tmp_path / "plain.csv")])
    assert r.exit_code != 0 and "--scores" in r.output


def test_score_rejects_an_unknown_metric_family(tmp_path):
    from webgauge.design2code.score import METRIC_FAMILIES, check_families

    r = CliRunner().invoke(group, ["score", str(tmp_path), "--metrics", "d2c,fid"])
    assert r.exit_code != 0 and "unknown metric family fid" in r.output and "mrweb, d2c" in r.output
    assert check_families(["d2c"]) == ("mrweb", "d2c") and check_families([]) == ("mrweb",)
    assert set(METRIC_FAMILIES) == {"mrweb", "d2c"}
