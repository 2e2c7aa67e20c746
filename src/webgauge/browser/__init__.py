"""webgauge.browser."""
