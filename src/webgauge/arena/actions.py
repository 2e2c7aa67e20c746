"""The arena's action space: one JSON-able value shared by every agent and observation mode.

Kinds:

- semantic, on an element id from the current observation: ``click``, ``fill`` (value),
  ``select`` (value), ``hover``, ``press`` (key; element optional), ``scroll`` (dx, dy);
- pointer, in normalized screenshot coordinates: ``pointer`` with ``pointer`` in
  ``click | double_click | drag_start | drag_end`` and the ``screenshot_hash`` it was aimed at;
- navigation and tabs: ``goto`` (url), ``back``, ``forward``, ``switch_tab`` (tab);
- ``wait`` (ms), ``request_approval`` (reason) and ``done`` (answer).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Action", "ActionError", "ACTION_KINDS", "POINTER_KINDS", "ACTION_SCHEMA", "parse_action"]

SEMANTIC = ("click", "fill", "select", "hover", "press", "scroll")
NAVIGATION = ("goto", "back", "forward", "switch_tab")
ACTION_KINDS = SEMANTIC + ("pointer",) + NAVIGATION + ("wait", "request_approval", "done")
POINTER_KINDS = ("click", "double_click", "drag_start", "drag_end")


class ActionError(ValueError):
    """An action that does not fit the schema (the message names the field to fix)."""


@dataclass(frozen=True)
class Action:
    kind: str
    element: str | None = None
    value: str | None = None
    key: str | None = None
    dx: float = 0.0
    dy: float = 0.0
    screenshot_hash: str | None = None
    x: float | None = None
    y: float | None = None
    pointer: str | None = None
    url: str | None = None
    tab: int | None = None
    ms: int | None = None
    reason: str | None = None
    answer: str | None = None

    def __post_init__(self) -> None:
        k = self.kind
        if k not in ACTION_KINDS:
            raise ActionError(f"unknown action kind {k!r}; use one of {', '.join(ACTION_KINDS)}")
        if k in ("click", "fill", "select", "hover") and not self.element:
            raise ActionError(f"{k} needs 'element': an element id from the current observation")
        if k in ("fill", "select") and self.value is None:
            raise ActionError(f"{k} needs 'value'")
        if k == "press" and not self.key:
            raise ActionError("press needs 'key', e.g. 'Enter' or 'Escape'")
        if k == "pointer":
            if self.pointer not in POINTER_KINDS:
                raise ActionError(f"pointer needs 'pointer' in {', '.join(POINTER_KINDS)}")
            if not self.screenshot_hash:
                raise ActionError("pointer needs 'screenshot_hash' of the screenshot it was aimed at")
            if self.x is None or self.y is None or not (0 <= self.x <= 1 and 0 <= self.y <= 1):
                raise ActionError("pointer needs 'x' and 'y' normalized to the screenshot, each in [0, 1]")
        if k == "goto" and not self.url:
            raise ActionError("goto needs 'url'")
        if k == "switch_tab" and self.tab is None:
            raise ActionError("switch_tab needs 'tab' (0-based index)")

    @property
    def is_pointer(self) -> bool:
        return self.kind == "pointer"

    @property
    def is_write_candidate(self) -> bool:
        """Actions that can submit something (used for retry accounting)."""
        return self.kind in ("click", "press", "pointer")

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None and not (k in ("dx", "dy") and v == 0.0)}

    @classmethod
    def from_dict(cls, d: dict) -> "Action":
        if not isinstance(d, dict):
            raise ActionError(f"an action is a JSON object, got {type(d).__name__}")
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise ActionError(f"unknown action field(s) {sorted(unknown)}")
        return cls(**d)


def parse_action(text: str) -> Action:
    """The first JSON object in ``text`` as an :class:`Action` (models may wrap it in prose)."""
    start = text.find("{")
    if start < 0:
        raise ActionError("no JSON object found; answer with one action as a JSON object")
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                try:
                    return Action.from_dict(json.loads(text[start:i + 1]))
                except json.JSONDecodeError as exc:
                    raise ActionError(f"invalid JSON: {exc}") from None
    raise ActionError("unterminated JSON object")


ACTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["kind"],
    "properties": {
        "kind": {"enum": list(ACTION_KINDS)},
        "element": {"type": "string", "description": "element id from the observation (semantic actions)"},
        "value": {"type": "string", "description": "text to fill or option to select"},
        "key": {"type": "string", "description": "key for press, e.g. Enter"},
        "dx": {"type": "number", "minimum": -100000, "maximum": 100000},
        "dy": {"type": "number", "minimum": -100000, "maximum": 100000, "description": "scroll amount in CSS px"},
        "pointer": {"enum": list(POINTER_KINDS)},
        "screenshot_hash": {"type": "string", "description": "sha256 of the screenshot the pointer aims at"},
        "x": {"type": "number", "minimum": 0, "maximum": 1}, "y": {"type": "number", "minimum": 0, "maximum": 1},
        "url": {"type": "string"}, "tab": {"type": "integer", "minimum": 0, "maximum": 99},
        "ms": {"type": "integer", "minimum": 0, "maximum": 60000},
        "reason": {"type": "string"}, "answer": {"type": "string"},
    },
}
