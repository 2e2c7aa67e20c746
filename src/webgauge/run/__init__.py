"""webgauge.run."""
