"""The seeded synthetic page generator: realistic pages that carry exact ground truth.

>>> page = generate_page(7, domain="bank", with_safety=True)
>>> page.truth["cta"]["label"], [s["label"] for s in page.truth["safety"]]
"""

from .content import DOMAINS
from .generator import GENERATOR_VERSION, SyntheticPage, generate_page
from .themes import LAYOUTS, REGION_GROUP, THEMES

__all__ = ["generate_page", "SyntheticPage", "GENERATOR_VERSION", "DOMAINS", "LAYOUTS", "THEMES",
           "REGION_GROUP"]
