"""CLIP score and LPIPS from local weights only; missing weights give a missing value.

Nothing is downloaded. Weights come from an option or an environment variable:

* **CLIP** (``--clip-weights`` / ``WEBGAUGE_CLIP_WEIGHTS``): a folder in Hugging Face
  ``transformers`` ``CLIPModel`` format (``config.json`` plus ``model.safetensors`` or
  ``pytorch_model.bin``), e.g. what ``CLIPModel.save_pretrained`` writes. Images are resized
  (bicubic, not cropped, so the whole page is seen) to the vision config's ``image_size`` and
  normalised with the ``preprocessor_config.json`` mean/std when present, else CLIP's.
  The score is the cosine similarity of the two image embeddings (1 = same embedding).
* **LPIPS** (``--lpips-weights`` / ``WEBGAUGE_LPIPS_WEIGHTS``): one ``torch.save`` file::

      {"format": "webgauge-lpips/1",
       "layers": "alex" | [{"conv": [c_in, c_out, kernel, stride, padding]} | {"relu": {}} |
                           {"maxpool": [kernel, stride]}, ...],
       "taps": [indices of layers whose outputs are compared],   # default for alex: 1,4,7,9,11
       "state_dict": {"features.<i>.weight", "features.<i>.bias", "lin<k>.weight" (1, C_k, 1, 1)}}

  ``"alex"`` is torchvision's AlexNet ``features`` layout, so real LPIPS weights convert by
  putting torchvision's ``features.*`` tensors next to the official LPIPS linear layers with
  ``lin<k>.model.1.weight`` renamed ``lin<k>.weight``. LPIPS follows Zhang et al. (2018):
  inputs scaled to [-1, 1] then shifted/scaled, per-layer unit-normalised features over
  channels, squared differences weighted by ``lin<k>``, averaged over space, summed over
  layers; it runs on the aligned pair at full resolution.

When no weights are given the metric is :class:`Missing` with the reason, never a substitute.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from webgauge.design2code.align import AlignMode, align_pair, to_rgb_array

__all__ = ["Missing", "CLIP_ENV", "LPIPS_ENV", "ClipScorer", "LpipsScorer", "ALEX_LAYERS",
           "load_clip", "load_lpips", "resolve_weights"]

CLIP_ENV = "WEBGAUGE_CLIP_WEIGHTS"
LPIPS_ENV = "WEBGAUGE_LPIPS_WEIGHTS"
LPIPS_FORMAT = "webgauge-lpips/1"
ALEX_LAYERS: list[dict] = [
    {"conv": [3, 64, 11, 4, 2]}, {"relu": {}}, {"maxpool": [3, 2]},
    {"conv": [64, 192, 5, 1, 2]}, {"relu": {}}, {"maxpool": [3, 2]},
    {"conv": [192, 384, 3, 1, 1]}, {"relu": {}},
    {"conv": [384, 256, 3, 1, 1]}, {"relu": {}},
    {"conv": [256, 256, 3, 1, 1]}, {"relu": {}},
]
ALEX_TAPS = [1, 4, 7, 9, 11]
_CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
_CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


@dataclass(frozen=True)
class Missing:
    """A metric value that could not be computed, with the reason (reported as ``n/a``)."""

    reason: str

    def to_json(self) -> dict:
        return {"missing": self.reason}


def resolve_weights(option: str | None, env: str) -> str | None:
    """The weights path from the option, else the environment variable, else ``None``."""
    path = option or os.environ.get(env) or None
    if path and not Path(path).exists():
        raise FileNotFoundError(f"weights path {path} does not exist (from {'option' if option else env}); "
                                "point it at local weights — nothing is downloaded")
    return path


class ClipScorer:
    """CLIP image-image cosine similarity from a local ``transformers`` CLIPModel folder."""

    def __init__(self, path: str | Path) -> None:
        import torch
        from transformers import CLIPModel

        self.path = str(path)
        self.model = CLIPModel.from_pretrained(self.path, local_files_only=True).eval()
        size = self.model.config.vision_config.image_size
        mean, std = _CLIP_MEAN, _CLIP_STD
        pre = Path(self.path) / "preprocessor_config.json"
        if pre.is_file():
            cfg = json.loads(pre.read_text(encoding="utf-8"))
            mean, std = tuple(cfg.get("image_mean", mean)), tuple(cfg.get("image_std", std))
        self.size = int(size)
        self.mean = torch.tensor(mean).view(1, 3, 1, 1)
        self.std = torch.tensor(std).view(1, 3, 1, 1)

    def _tensor(self, image) -> Any:
        import torch
        from PIL import Image

        arr = to_rgb_array(image)
        img = Image.fromarray(arr).resize((self.size, self.size), Image.Resampling.BICUBIC)
        t = torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.0).permute(2, 0, 1).unsqueeze(0)
        return (t - self.mean) / self.std

    def embed(self, image) -> np.ndarray:
        import torch

        with torch.no_grad():
            out = self.model.get_image_features(pixel_values=self._tensor(image))
        if not isinstance(out, torch.Tensor):  # some versions return a model output
            out = getattr(out, "image_embeds", None) or out.pooler_output
        v = out[0].float().numpy()
        return v / max(float(np.linalg.norm(v)), 1e-12)

    def score(self, reference, generated) -> float:
        return float(np.dot(self.embed(reference), self.embed(generated)))


class LpipsScorer:
    """LPIPS distance from a ``webgauge-lpips/1`` file (see module docstring)."""

    def __init__(self, path: str | Path) -> None:
        import torch
        from torch import nn

        self.path = str(path)
        blob = torch.load(self.path, map_location="cpu", weights_only=True)
        if not isinstance(blob, dict) or blob.get("format") != LPIPS_FORMAT:
            raise ValueError(f"{path} is not a {LPIPS_FORMAT!r} file; see webgauge.design2code.neural "
                             "for the format and how to convert official LPIPS weights")
        layers = ALEX_LAYERS if blob.get("layers") == "alex" else blob["layers"]
        taps = blob.get("taps") or (ALEX_TAPS if blob.get("layers") == "alex" else None)
        if not taps:
            raise ValueError(f"{path}: 'taps' (indices of compared layers) is required for custom layers")
        mods: list[Any] = []
        for spec in layers:
            if "conv" in spec:
                ci, co, k, s, p = spec["conv"]
                mods.append(nn.Conv2d(ci, co, k, s, p))
            elif "relu" in spec:
                mods.append(nn.ReLU())
            elif "maxpool" in spec:
                k, s = spec["maxpool"]
                mods.append(nn.MaxPool2d(k, s))
            else:
                raise ValueError(f"{path}: unknown layer {spec!r}; use conv, relu or maxpool")
        self.features = nn.Sequential(*mods).eval()
        self.taps = list(taps)
        sd = blob["state_dict"]
        self.features.load_state_dict({k[len("features."):]: v for k, v in sd.items() if k.startswith("features.")})
        self.lins = [sd[f"lin{k}.weight"].float() for k in range(len(self.taps))]
        self.shift = torch.tensor([-0.030, -0.088, -0.188]).view(1, 3, 1, 1)
        self.scale = torch.tensor([0.458, 0.448, 0.450]).view(1, 3, 1, 1)

    def _feats(self, arr: np.ndarray) -> list:
        import torch

        x = torch.from_numpy(arr.astype(np.float32) / 127.5 - 1.0).permute(2, 0, 1).unsqueeze(0)
        x = (x - self.shift) / self.scale
        out = []
        for i, layer in enumerate(self.features):
            x = layer(x)
            if i in self.taps:
                out.append(x / (x.pow(2).sum(dim=1, keepdim=True).sqrt() + 1e-10))
        return out

    def score(self, reference, generated, align: AlignMode = "pad") -> float:
        import torch

        ref, gen = align_pair(reference, generated, align)
        with torch.no_grad():
            total = 0.0
            for f1, f2, w in zip(self._feats(ref), self._feats(gen), self.lins, strict=True):
                total += float(((f1 - f2).pow(2) * w).sum(dim=1).mean())
        return total


_CACHE: dict[tuple[str, str], Any] = {}


def load_clip(option: str | None = None) -> ClipScorer | Missing:
    """A cached :class:`ClipScorer`, or :class:`Missing` when no weights are configured."""
    path = resolve_weights(option, CLIP_ENV)
    if path is None:
        return Missing(f"no CLIP weights: pass --clip-weights or set {CLIP_ENV} (nothing is downloaded)")
    key = ("clip", path)
    if key not in _CACHE:
        _CACHE[key] = ClipScorer(path)
    return _CACHE[key]


def load_lpips(option: str | None = None) -> LpipsScorer | Missing:
    """A cached :class:`LpipsScorer`, or :class:`Missing` when no weights are configured."""
    path = resolve_weights(option, LPIPS_ENV)
    if path is None:
        return Missing(f"no LPIPS weights: pass --lpips-weights or set {LPIPS_ENV} (nothing is downloaded)")
    key = ("lpips", path)
    if key not in _CACHE:
        _CACHE[key] = LpipsScorer(path)
    return _CACHE[key]
