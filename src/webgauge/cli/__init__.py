"""webgauge.cli."""
