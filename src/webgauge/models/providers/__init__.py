"""Built-in model providers, each imported only when chosen (see :mod:`webgauge.models.registry`)."""
