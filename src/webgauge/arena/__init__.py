"""webgauge.arena."""
