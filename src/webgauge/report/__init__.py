"""webgauge.report."""
