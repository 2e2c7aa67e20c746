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
from dataclasses import dataclass
from typing import Any

from ..core.actions import Action, ActionError, validate_action_dict

__all__ = ["ParsedAnswer", "parse_model_answer", "parse_action", "validate_action_dict", "MAX_ANSWER_CHARS"]

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


def parse_action(text: str) -> Action:
    """The first JSON object in ``text`` that is a valid action (models may wrap it in prose).

    Checked against :data:`~webgauge.arena.core.actions.ACTION_SCHEMA` by :func:`parse_model_answer`;
    raises :class:`ActionError` naming the fix, never another exception.
    """
    parsed = parse_model_answer(text)
    if parsed.action is None:
        raise ActionError(parsed.error)
    return parsed.action
