"""webgauge: reproducible benchmarks for multimodal models and browser agents on real web UIs."""

__version__ = "0.1.0"
__all__ = ["__version__"]
