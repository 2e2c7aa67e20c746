"""A written report renders to a PNG in real Chromium, images from the run dir included."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from webgauge.report.html import image, relpath, table, write_html
from webgauge.report.plots import bar_chart
from webgauge.report.render import render_html_to_png

pytestmark = pytest.mark.browser


async def test_report_renders_with_relative_images(tmp_path):
    chart = bar_chart(tmp_path / "blobs" / "chart.png", ["a", "b"], [0.8, 0.4], [0.7, 0.3], [0.9, 0.5])
    report = tmp_path / "reports" / "index.html"
    rows = [{"model": f"m{i}", "acc": (50.0 + i, 45.0 + i, 55.0 + i)} for i in range(40)]
    write_html(report, "Demo report", [("Scores", table(rows, ["model", "acc"])),
                                       ("Chart", image(relpath(chart, report), alt="chart"))])
    out = await render_html_to_png(report, tmp_path / "shots" / "report.png", width=900, root=tmp_path)
    img = Image.open(io.BytesIO(out.read_bytes())).convert("RGB")
    assert img.size[0] == 900 and img.size[1] > 800  # full page: 40 rows and a chart are taller than the viewport
    arr = np.asarray(img).astype(int)
    # The chart's first bar colour only exists in the page if the relative image loaded.
    bar_blue = (np.abs(arr - np.array([0x4C, 0x72, 0xB0])).sum(axis=2) < 12).sum()
    assert bar_blue > 2000
    with pytest.raises(ValueError, match="not inside root"):
        await render_html_to_png(report, tmp_path / "x.png", root=tmp_path / "blobs")
    with pytest.raises(FileNotFoundError):
        await render_html_to_png(tmp_path / "missing.html", tmp_path / "x.png")
