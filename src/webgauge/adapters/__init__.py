"""Entry points that other harnesses load (see :mod:`.inspect_registry`). Each suite keeps its
own translations in its ``adapters/`` folder; this package only gathers them for a harness."""
