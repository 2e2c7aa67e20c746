"""The eight task builders of the understand suite, one module per task family."""

from .forms import build_form_fill, build_hint_text
from .position import build_position
from .robustness import build_color, build_layout, build_text
from .safety import build_safety
from .ui_group import build_ui_group

BUILDERS = {
    "position": build_position, "ui_group": build_ui_group, "form_fill": build_form_fill,
    "hint_text": build_hint_text, "color": build_color, "text": build_text, "layout": build_layout,
    "safety": build_safety,
}

__all__ = ["BUILDERS", "build_position", "build_ui_group", "build_form_fill", "build_hint_text",
           "build_color", "build_text", "build_layout", "build_safety"]
