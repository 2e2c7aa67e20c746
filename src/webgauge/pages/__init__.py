"""webgauge.pages."""
