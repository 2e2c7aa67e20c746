"""Turning a model's free-text answer into an arena action, or a recorded invalid one.

A model may answer anything: prose, a code fence, ``{}``, ``{"kind": 5}``, a 10 MB string,
a JSON bomb nested ten thousand levels deep. :func:`parse_model_answer` never raises: it
returns a :class:`ParsedAnswer` that holds either a valid :class:`~webgauge.arena.core.actions.Action`
or the reason the answer is not one. The answer is checked against
:data:`~webgauge.arena.core.actions.ACTION_SCHEMA` field by field (types, enums, ranges, unknown
fields) before an ``Action`` is built, and the ``Action``'s own per-kind checks then run, so
the schema the model is shown and the check it must pass are the same.

The first JSON object in the text that is a valid action wins; when none is, the error of
the first JSON object found is reported (that is the one the model most likely meant).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from ..core.actions import ACTION_SCHEMA, Action, ActionError

__all__ = ["ParsedAnswer", "parse_model_answer", "validate_action_dict", "MAX_ANSWER_CHARS"]

MAX_ANSWER_CHARS = 20_000
"""Longer answers are cut to this many characters before parsing (an action is short)."""

MAX_OBJECTS = 20
"""At most this many ``{`` positions are tried as the start of a JSON object."""

_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class ParsedAnswer:
    """A parsed answer: ``action`` when valid, else ``error`` says what to fix."""

    action: Action | None
    error: str = ""

    @property
    def valid(self) -> bool:
        return self.action is not None


def _type_ok(value: Any, spec: dict) -> str:
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


def validate_action_dict(d: Any, schema: dict = ACTION_SCHEMA) -> Action:
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


def _json_objects(text: str):
    """JSON objects found in ``text`` (each ``{`` tried as a start, at most MAX_OBJECTS)."""
    pos, tried = 0, 0
    while tried < MAX_OBJECTS:
        start = text.find("{", pos)
        if start < 0:
            return
        tried += 1
        try:
            value, end = _DECODER.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError, ValueError) as exc:
            yield None, f"invalid JSON at character {start}: {str(exc)[:120]}"
            pos = start + 1
            continue
        yield value, ""
        pos = end


def parse_model_answer(text: Any) -> ParsedAnswer:
    """A model's answer text as a valid action, or the reason it is not one (never raises)."""
    if not isinstance(text, str):
        return ParsedAnswer(None, f"the answer is not text ({type(text).__name__})")
    text = text[:MAX_ANSWER_CHARS]
    first_error = ""
    for value, err in _json_objects(text):
        if err:
            first_error = first_error or err
            continue
        try:
            return ParsedAnswer(validate_action_dict(value))
        except ActionError as exc:
            first_error = first_error or str(exc)
        except RecursionError:  # pathological nesting inside a value
            first_error = first_error or "the JSON object is nested too deeply"
    if not first_error:
        first_error = "no JSON object found; answer with one action as a JSON object"
    return ParsedAnswer(None, first_error[:300])
