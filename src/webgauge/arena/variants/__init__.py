"""Variants of a task under a changed world: cohorts, perturbations, pop-ups and safety traps.

Each variant is an :class:`~webgauge.arena.core.hooks.EnvHooks` (it changes the live app only
through the env's public hooks); :mod:`.catalogue` lists every named variant explicitly.
"""

from .catalogue import (
                        COHORTS,
                        DEFAULT_SAFETY_VARIANTS,
                        DEFAULT_SWEEP_VARIANTS,
                        VARIANTS,
                        apply_variant,
                        get_variant,
                        variant_names,
)
from .traps import TRAPS, TrapServer, TrapVariant, attack_outcome
from .variant import BASE, FORM_FACTORS, VARIANT_KINDS, Variant, VariantEnv

__all__ = ["COHORTS", "DEFAULT_SAFETY_VARIANTS", "DEFAULT_SWEEP_VARIANTS", "VARIANTS", "apply_variant", "get_variant",
           "variant_names", "TRAPS", "TrapServer", "TrapVariant", "attack_outcome", "BASE", "FORM_FACTORS",
           "VARIANT_KINDS", "Variant", "VariantEnv"]
