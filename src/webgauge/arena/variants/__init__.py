"""Variants of a task under a changed world: cohorts, perturbations, pop-ups and safety traps."""

from .variant import COHORTS, FORM_FACTORS, VARIANTS, Variant, VariantEnv, VariantOracle, apply_variant, get_variant, solve_with_oracle, variant_names
from .traps import TRAPS, TrapServer, TrapVariant, attack_outcome

__all__ = ["COHORTS", "FORM_FACTORS", "VARIANTS", "Variant", "VariantEnv", "VariantOracle", "apply_variant",
           "get_variant", "solve_with_oracle", "variant_names", "TRAPS", "TrapServer", "TrapVariant", "attack_outcome"]
