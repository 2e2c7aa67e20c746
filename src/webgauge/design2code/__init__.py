"""webgauge.design2code."""
