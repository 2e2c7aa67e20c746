"""Visual themes and layouts for synthetic pages.

A ``Theme`` fixes colors, font stack, corner radius and base font size. A layout names which
page regions exist; the UI-group vocabulary of the understand suite maps onto these regions.
Fonts are stacks of families that ship with common Linux fonts packages (DejaVu, Liberation,
Noto), ending in a generic family so rendering never depends on a download.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Theme", "THEMES", "FONTS", "LAYOUTS", "REGION_GROUP"]


@dataclass(frozen=True)
class Theme:
    """Colors (CSS hex) and typography of one synthetic page."""

    name: str
    bg: str
    surface: str
    text: str
    muted: str
    primary: str
    on_primary: str
    topbar: str
    on_topbar: str
    footer: str
    on_footer: str
    danger: str
    border: str


THEMES: tuple[Theme, ...] = (
    Theme("ocean", "#f4f7fb", "#ffffff", "#1b2430", "#5b6775", "#1565c0", "#ffffff",
          "#0d2c54", "#e8f0fb", "#102a43", "#d9e2ec", "#c62828", "#d5dde7"),
    Theme("forest", "#f6f8f3", "#ffffff", "#1f2a1c", "#5c6b57", "#2e7d32", "#ffffff",
          "#ffffff", "#1f2a1c", "#24331f", "#dde7d8", "#b71c1c", "#d8e0d2"),
    Theme("sunset", "#fff8f2", "#ffffff", "#2d1e16", "#6e5a4d", "#e65100", "#ffffff",
          "#3e2723", "#ffe0cc", "#2d1e16", "#f3e3d6", "#b71c1c", "#ecd9c9"),
    Theme("grape", "#f7f5fb", "#ffffff", "#241a33", "#62587a", "#6a1b9a", "#ffffff",
          "#ffffff", "#241a33", "#241a33", "#e6ddf2", "#c62828", "#ddd5ea"),
    Theme("slate", "#eef1f4", "#ffffff", "#1c2127", "#59636e", "#00796b", "#ffffff",
          "#263238", "#eceff1", "#1c2127", "#cfd8dc", "#d32f2f", "#cfd6dc"),
    Theme("paper", "#ffffff", "#fafafa", "#222222", "#666666", "#c2185b", "#ffffff",
          "#fafafa", "#222222", "#f0f0f0", "#333333", "#b00020", "#e0e0e0"),
)

FONTS: tuple[str, ...] = (
    '"DejaVu Sans", Arial, sans-serif',
    '"Liberation Sans", Arial, sans-serif',
    '"Noto Sans", "DejaVu Sans", sans-serif',
    '"Liberation Serif", "DejaVu Serif", serif',
    '"DejaVu Serif", Georgia, serif',
    '"Nimbus Sans", "Liberation Sans", sans-serif',
)

# layout name -> regions present (besides the top bar, main content and the optional ad strip)
LAYOUTS: dict[str, tuple[str, ...]] = {
    "classic": ("left", "bottom"),
    "right-rail": ("right", "bottom"),
    "holy-grail": ("left", "right", "bottom"),
    "simple": ("bottom",),
    "dashboard": ("left",),
}

REGION_GROUP: dict[str, str] = {
    "top": "top bar", "left": "left sidebar", "right": "right sidebar", "main": "main content",
    "bottom": "bottom bar", "ad": "else",
}
