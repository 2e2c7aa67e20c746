"""Translations of the design2code suite to other harnesses (:mod:`.inspect_task`: Inspect)."""
