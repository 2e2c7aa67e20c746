"""webgauge.understand."""
