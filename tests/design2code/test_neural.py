"""CLIP and LPIPS load from local weights the test builds; no weights means a missing value."""

import numpy as np
import pytest

from webgauge.design2code.neural import CLIP_ENV, LPIPS_ENV, ClipScorer, LpipsScorer, Missing, load_clip, load_lpips


@pytest.fixture
def torch(require_module):
    """PyTorch (the design2code extra), imported by the tests that use it, not while every worker
    collects; a missing torch fails naming the extra."""
    return require_module("torch", "design2code")


def test_missing_without_weights(monkeypatch):
    monkeypatch.delenv(CLIP_ENV, raising=False)
    monkeypatch.delenv(LPIPS_ENV, raising=False)
    for got, name in ((load_clip(None), "CLIP"), (load_lpips(None), "LPIPS")):
        assert isinstance(got, Missing) and name in got.reason and "--" in got.reason
    with pytest.raises(FileNotFoundError, match="nothing is downloaded"):
        load_clip("/nonexistent/clip")


def test_tiny_clip_from_saved_folder(tmp_path, monkeypatch, torch):
    from transformers import CLIPConfig, CLIPModel

    torch.manual_seed(0)
    cfg = CLIPConfig(text_config={"hidden_size": 16, "intermediate_size": 32, "num_attention_heads": 2,
                                  "num_hidden_layers": 1, "vocab_size": 64, "max_position_embeddings": 16},
                     vision_config={"hidden_size": 16, "intermediate_size": 32, "num_attention_heads": 2,
                                    "num_hidden_layers": 1, "image_size": 32, "patch_size": 8},
                     projection_dim=8)
    CLIPModel(cfg).save_pretrained(tmp_path / "clip")
    monkeypatch.setenv(CLIP_ENV, str(tmp_path / "clip"))
    scorer = load_clip(None)
    assert isinstance(scorer, ClipScorer) and scorer.size == 32
    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, (64, 48, 3), dtype=np.uint8)
    assert scorer.score(a, a) == pytest.approx(1.0, abs=1e-5)
    assert scorer.score(a, 255 - a) < 0.9999


def _identity_lpips(path, torch):
    # one 1x1 conv copying the 3 input channels, a ReLU tapped, channel weights 1
    sd = {"features.0.weight": torch.eye(3).view(3, 3, 1, 1), "features.0.bias": torch.zeros(3),
          "lin0.weight": torch.ones(1, 3, 1, 1)}
    torch.save({"format": "webgauge-lpips/1", "layers": [{"conv": [3, 3, 1, 1, 0]}, {"relu": {}}],
                "taps": [1], "state_dict": sd}, path)


def test_lpips_known_value(tmp_path, torch):
    path = tmp_path / "lpips.pt"
    _identity_lpips(path, torch)
    scorer = load_lpips(str(path))
    assert isinstance(scorer, LpipsScorer)
    a = np.full((8, 8, 3), 200, np.uint8)
    b = np.zeros((8, 8, 3), np.uint8)
    b[..., 0] = 255
    assert scorer.score(a, a) == 0.0

    def unit(rgb):  # the same pipeline by hand: scale to [-1,1], shift/scale, relu, unit norm
        x = np.array(rgb) / 127.5 - 1
        x = (x - np.array([-0.030, -0.088, -0.188])) / np.array([0.458, 0.448, 0.450])
        x = np.maximum(x, 0)
        return x / (np.linalg.norm(x) + 1e-10)

    expected = float(((unit([200, 200, 200]) - unit([255, 0, 0])) ** 2).sum())
    assert scorer.score(a, b) == pytest.approx(expected, rel=1e-5)


def test_lpips_rejects_other_formats(tmp_path, torch):
    torch.save({"lin0.model.1.weight": torch.ones(1, 64, 1, 1)}, tmp_path / "x.pt")
    with pytest.raises(ValueError, match="webgauge-lpips/1"):
        LpipsScorer(tmp_path / "x.pt")
