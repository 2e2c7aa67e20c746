"""The arena's action space: one JSON-able value shared by every agent and observation mode.

Kinds:

- semantic, on an element id from the current observation: ``click`` (optional ``modifiers``
  such as ``["Shift"]``), ``fill`` (value), ``select`` (value), ``hover``, ``focus``,
  ``press`` (key; element optional), ``scroll`` (dx, dy), ``drag`` (``element`` onto ``target``);
- keyboard: ``type_text`` (value) types into the focused element, one key event per character;
- files: ``upload`` (``element``: a file input; ``value``: the bare name of one of the task's
  files, listed in the task's public view under ``files``); never a host path. Without
  ``element`` it answers the file chooser a click opened (the observation's ``file_chooser``
  lists the names it offers), which is how screenshot mode uploads;
- pointer, in normalized screenshot coordinates: ``pointer`` with ``pointer`` in
  ``click | double_click | drag_start | drag_end`` and the observation it was aimed at: its
  short ``token`` (issued with each observation) or its full ``screenshot_hash``;
- navigation and tabs: ``goto`` (url), ``back``, ``forward``, ``switch_tab`` (tab);
- ``wait`` (ms), ``request_approval`` (reason) and ``done`` (answer).

Screenshot mode has no element ids: an action that names one (``element`` or ``target``) is
rejected there (:func:`mode_error`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

__all__ = ["Action", "ActionError", "ACTION_KINDS", "POINTER_KINDS", "MODIFIERS", "ACTION_SCHEMA",
           "validate_action_dict", "check_file_name", "mode_error"]

SEMANTIC = ("click", "fill", "select", "hover", "focus", "press", "scroll", "drag", "type_text", "upload")
NAVIGATION = ("goto", "back", "forward", "switch_tab")
ACTION_KINDS = SEMANTIC + ("pointer",) + NAVIGATION + ("wait", "request_approval", "done")
POINTER_KINDS = ("click", "double_click", "drag_start", "drag_end")
MODIFIERS = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")


class ActionError(ValueError):
    """An action that does not fit the schema (the message names the field to fix)."""


def check_file_name(name: object, what: str = "upload") -> str:
    """``name`` if it is a bare file name (no folder, no host path), else :class:`ActionError`."""
    if not isinstance(name, str) or not name.strip():
        raise ActionError(f"{what} needs 'value': the name of one of the task's files (see the task's 'files')")
    if "/" in name or "\\" in name or name in (".", "..") or "\x00" in name or len(name) > 200:
        raise ActionError(f"{what}: {name[:60]!r} is a path; name one of the task's files by its bare name "
                          "(e.g. 'report.log'), never a host path")
    return name


_T = TypeVar("_T")


def need(value: _T | None, what: str, kind: str) -> _T:
    """A field an action's kind requires (:class:`Action` checks it when made), never ``None``."""
    if value is None:
        raise ActionError(f"{kind} needs {what!r}")
    return value


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
    modifiers: tuple[str, ...] | None = None  # held keys for click
    target: str | None = None  # drop target element id for drag
    token: str | None = None  # the short observation token a pointer action was aimed at

    def __post_init__(self) -> None:
        k = self.kind
        if k not in ACTION_KINDS:
            raise ActionError(f"unknown action kind {k!r}; use one of {', '.join(ACTION_KINDS)}")
        if k in ("click", "fill", "select", "hover", "focus", "drag") and not self.element:
            raise ActionError(f"{k} needs 'element': an element id from the current observation")
        if k in ("fill", "select", "type_text") and self.value is None:
            raise ActionError(f"{k} needs 'value'")
        if k == "upload":
            check_file_name(self.value)
        if k == "drag" and not self.target:
            raise ActionError("drag needs 'target': the element id to drop onto")
        if self.modifiers is not None:
            if k != "click":
                raise ActionError("'modifiers' apply to click only")
            if isinstance(self.modifiers, str) or any(m not in MODIFIERS for m in self.modifiers):
                raise ActionError(f"'modifiers' is a list drawn from {', '.join(MODIFIERS)}")
            object.__setattr__(self, "modifiers", tuple(self.modifiers))
        if k == "press" and not self.key:
            raise ActionError("press needs 'key', e.g. 'Enter' or 'Escape'")
        if k == "pointer":
            if self.pointer not in POINTER_KINDS:
                raise ActionError(f"pointer needs 'pointer' in {', '.join(POINTER_KINDS)}")
            if not self.screenshot_hash and not self.token:
                raise ActionError("pointer needs 'token' (or 'screenshot_hash') of the observation it was aimed at")
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
        return self.kind in ("click", "press", "pointer", "type_text")

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if v is not None and not (k in ("dx", "dy") and v == 0.0)}
        if "modifiers" in d:
            d["modifiers"] = list(d["modifiers"])
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Action:
        """``d`` checked against :data:`ACTION_SCHEMA` (raises :class:`ActionError`, never ``TypeError``)."""
        return validate_action_dict(d)


ACTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["kind"],
    "properties": {
        "kind": {"enum": list(ACTION_KINDS)},
        "element": {"type": "string", "description": "element id from the observation (semantic actions)"},
        "value": {"type": "string", "description": "text to fill, option to select, or file name to upload"},
        "key": {"type": "string", "description": "key for press, e.g. Enter"},
        "dx": {"type": "number", "minimum": -100000, "maximum": 100000},
        "dy": {"type": "number", "minimum": -100000, "maximum": 100000, "description": "scroll amount in CSS px"},
        "pointer": {"enum": list(POINTER_KINDS)},
        "screenshot_hash": {"type": "string", "description": "sha256 of the screenshot the pointer aims at"},
        "x": {"type": "number", "minimum": 0, "maximum": 1}, "y": {"type": "number", "minimum": 0, "maximum": 1},
        "url": {"type": "string"}, "tab": {"type": "integer", "minimum": 0, "maximum": 99},
        "ms": {"type": "integer", "minimum": 0, "maximum": 60000},
        "reason": {"type": "string"}, "answer": {"type": "string"},
        "modifiers": {"type": "array", "items": {"enum": list(MODIFIERS)}, "description": "keys held during click"},
        "target": {"type": "string", "description": "element id to drop onto (drag)"},
        "token": {"type": "string", "description": "the observation's short screenshot token (pointer actions)"},
    },
}


def _type_ok(value: Any, spec: dict[str, Any]) -> str:
    """'' when ``value`` fits the JSON-schema ``spec`` subset used by ACTION_SCHEMA, else why not."""
    if "enum" in spec:
        if not isinstance(value, str) or value not in spec["enum"]:
            return f"must be one of {', '.join(map(str, spec['enum']))}, got {_short(value)}"
        return ""
    t = spec.get("type")
    if t == "array":
        if not isinstance(value, list) or len(value) > 8:
            return f"must be a list (at most 8 items), got {_short(value)}"
        for item in value:
            why = _type_ok(item, spec.get("items", {}))
            if why:
                return f"item {why}"
        return ""
    if t == "string":
        return "" if isinstance(value, str) else f"must be a string, got {_short(value)}"
    if t in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"must be a {t}, got {_short(value)}"
        if t == "integer" and not isinstance(value, int):
            if not (isinstance(value, float) and value.is_integer()):
                return f"must be an integer, got {_short(value)}"
        if isinstance(value, float) and not math.isfinite(value):
            return f"must be finite, got {value}"
        if "minimum" in spec and value < spec["minimum"]:
            return f"must be at least {spec['minimum']}, got {value}"
        if "maximum" in spec and value > spec["maximum"]:
            return f"must be at most {spec['maximum']}, got {value}"
        return ""
    return ""


def _short(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"


def validate_action_dict(d: Any, schema: dict[str, Any] = ACTION_SCHEMA) -> Action:
    """``d`` as an :class:`Action` after checking it against ``schema``; raises :class:`ActionError`."""
    if not isinstance(d, dict):
        raise ActionError(f"an action is a JSON object, got {type(d).__name__}")
    props = schema["properties"]
    for name in schema.get("required", ()):
        if name not in d:
            raise ActionError(f"missing required field {name!r}; e.g. {{\"kind\": \"click\", \"element\": \"e12\"}}")
    unknown = sorted(k for k in d if k not in props)
    if unknown:
        raise ActionError(f"unknown action field(s) {unknown[:5]}; allowed: {', '.join(props)}")
    clean: dict[str, Any] = {}
    for name, value in d.items():
        if value is None:
            continue
        why = _type_ok(value, props[name])
        if why:
            raise ActionError(f"field {name!r} {why}")
        if props[name].get("type") == "integer":
            value = int(value)
        elif props[name].get("type") == "number":
            value = float(value)
        elif props[name].get("type") == "array":
            value = tuple(value)
        clean[name] = value
    try:
        return Action(**clean)
    except ActionError:
        raise
    except (TypeError, ValueError) as exc:  # a field the schema lets through but Action cannot take
        raise ActionError(f"not a valid action: {exc}") from None


def mode_error(action: Action, mode: str | None) -> str | None:
    """Why ``action`` is not allowed in observation ``mode`` (None: it is). Screenshot mode shows no
    element ids, so an action naming one cannot come from what that mode shows."""
    if mode != "screenshot" or not (action.element or action.target):
        return None
    return (f"screenshot mode has no element ids: {action.kind} with an element id is not allowed; use a pointer "
            "action at screenshot coordinates (with the observation's token), press, type_text, scroll, goto, "
            "back, forward, switch_tab, wait or done (upload without an element answers an open file chooser)")
