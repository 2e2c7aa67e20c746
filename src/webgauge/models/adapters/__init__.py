"""Translations of webgauge's model layer to other harnesses (see :mod:`.inspect_provider`)."""
