"""Charts: real PNGs whose pixels reflect the data, byte-identical for identical data."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from webgauge.report.plots import bar_chart, scatter


def _ink_rows(path, color=(0x4C, 0x72, 0xB0)):
    """Rows of the image holding the first bar's colour."""
    arr = np.asarray(Image.open(path).convert("RGB")).astype(int)
    mask = (np.abs(arr - np.array(color)).sum(axis=2) < 12)
    return np.nonzero(mask.any(axis=1))[0], arr


def test_bar_chart_draws_bars_in_proportion_and_is_deterministic(tmp_path):
    p1 = bar_chart(tmp_path / "a.png", ["gpt", "claude", "random"], [60.0, 30.0, 10.0], [55.0, 25.0, 5.0],
                   [65.0, 35.0, 15.0], title="Accuracy", ylabel="%", ylim=(0, 100))
    img = Image.open(p1)
    assert img.format == "PNG" and img.size == (700, 400)
    rows_high, _ = _ink_rows(p1)
    p2 = bar_chart(tmp_path / "b.png", ["gpt", "claude", "random"], [30.0, 30.0, 10.0], ylim=(0, 100))
    rows_low, _ = _ink_rows(p2)
    # Same axis, half the value: the first bar is about half as tall.
    assert len(rows_low) / len(rows_high) == pytest.approx(0.5, abs=0.06)
    again = bar_chart(tmp_path / "c.png", ["gpt", "claude", "random"], [60.0, 30.0, 10.0], [55.0, 25.0, 5.0],
                      [65.0, 35.0, 15.0], title="Accuracy", ylabel="%", ylim=(0, 100))
    assert again.read_bytes() == p1.read_bytes()
    many = bar_chart(tmp_path / "h.png", [f"task {i}" for i in range(12)], list(range(12)))
    assert Image.open(many).size[1] > Image.open(many).size[0] * 0.6  # horizontal layout grows with rows
    with pytest.raises(ValueError, match="same length"):
        bar_chart(tmp_path / "x.png", ["a"], [1.0, 2.0])
    with pytest.raises(ValueError, match="both lo and hi"):
        bar_chart(tmp_path / "x.png", ["a"], [1.0], lo=[0.5])
    with pytest.raises(ValueError, match=".png"):
        bar_chart(tmp_path / "x.jpg", ["a"], [1.0])


def test_scatter_writes_png(tmp_path):
    p = scatter(tmp_path / "s.png", [0.1, 0.5, 0.9], [0.2, 0.4, 0.95], labels=["a", "b", "c"],
                xlabel="metric", ylabel="human", diagonal=True)
    img = Image.open(p)
    assert img.size == (600, 500)
    rows, arr = _ink_rows(p)
    assert len(rows) > 5  # the points are drawn
    assert not list(tmp_path.glob(".*tmp*"))
