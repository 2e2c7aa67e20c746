"""The demo landing page: each part's headline table is read from its run's records."""

from __future__ import annotations

import re

import pytest

from webgauge.demo import run_demo
from webgauge.headlines import fmt_interval, headline


def test_interval_formatting():
    assert fmt_interval((0.5, 0.25, 0.75), percent=True) == "50% [25, 75]"
    assert fmt_interval((1.23456, 1.0, 2.0), 2) == "1.23 [1.00, 2.00]"
    assert fmt_interval(None) == "n/a" and fmt_interval(float("nan")) == "n/a"


@pytest.mark.browser
def test_landing_page_shows_the_capture_headline(tmp_path):
    index, failures = run_demo(tmp_path / "demo", suites=("capture",))
    assert failures == {}
    html = index.read_text(encoding="utf-8")
    head = headline("capture", tmp_path / "demo" / "capture")
    (row,) = head.rows
    # the default demo captures 3 synthetic pages plus 4 real ones (the corpus is required by the tests)
    assert row["pages"] == 7 and row["captured"] + row["failed"] == 7
    assert "<h3>Capture</h3>" in html
    cells = re.findall(r"<td[^>]*>(\d+)</td>", html.split("<h3>Capture</h3>", 1)[1])
    assert cells[:3] == ["7", str(row["captured"]), str(row["failed"])]
    with pytest.raises(FileNotFoundError, match="no arena run"):
        headline("arena", tmp_path / "demo" / "capture")
