"""webgauge.perturb."""
