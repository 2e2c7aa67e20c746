"""webgauge.models."""
