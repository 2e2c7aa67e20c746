"""Generation settings (:class:`GenerateConfig`) and the answer (:class:`Response`).

``GenerateConfig`` holds what the caller controls per call. The fields that can change the
answer (temperature, top_p, max_tokens, seed, stop, choices, extra) go into the response
cache key; ``timeout`` and ``item_id`` do not (``item_id`` only steers the ``scripted``
provider, which is never cached).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from webgauge.models.usage import Usage

__all__ = ["GenerateConfig", "Response", "FINISH_REASONS"]

# Normalized finish reasons. Providers map their own vocabulary onto these.
FINISH_REASONS = ("stop", "length", "content_filter", "tool_calls", "other")


@dataclass(frozen=True)
class GenerateConfig:
    """Settings for one ``generate`` call.

    - ``temperature``: 0.0 (the default) makes a call deterministic and so cacheable.
    - ``max_tokens``: cap on output tokens; ``None`` = provider default (Anthropic needs a
      value, so its provider sends 1024 when unset).
    - ``seed``: sampling seed; with a provider that honors seeds a seeded call at
      temperature > 0 is deterministic too, and cacheable.
    - ``stop``: stop sequences.
    - ``timeout``: seconds per attempt; ``None`` = the model's default.
    - ``choices``: the allowed answers (used by the ``random`` baseline).
    - ``item_id``: the benchmark item this call is for (used by ``scripted`` lookups).
    - ``extra``: provider-specific request fields, sent as-is (and part of the cache key).
    """

    temperature: float = 0.0
    max_tokens: int | None = None
    top_p: float | None = None
    seed: int | None = None
    stop: Sequence[str] | None = None
    timeout: float | None = None
    choices: Sequence[str] | None = None
    item_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.temperature is None or self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature!r}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1 or None, got {self.max_tokens!r}")
        if self.top_p is not None and not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p!r}")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds, got {self.timeout!r}")
        if isinstance(self.stop, str):
            object.__setattr__(self, "stop", (self.stop,))
        elif self.stop is not None:
            object.__setattr__(self, "stop", tuple(self.stop))
        if isinstance(self.choices, str):
            raise TypeError("choices must be a list of strings, not one string")
        if self.choices is not None:
            object.__setattr__(self, "choices", tuple(self.choices))

    def replace(self, **changes: Any) -> GenerateConfig:
        """A copy with some fields changed."""
        return replace(self, **changes)

    def answer_settings(self) -> dict[str, Any]:
        """The fields that can change the answer (what the cache key holds)."""
        return {
            "temperature": float(self.temperature),
            "max_tokens": self.max_tokens,
            "top_p": self.top_p,
            "seed": self.seed,
            "stop": list(self.stop) if self.stop is not None else None,
            "choices": list(self.choices) if self.choices is not None else None,
            "extra": self.extra,
        }


@dataclass(frozen=True)
class Response:
    """A model's answer.

    ``finish_reason`` is one of :data:`FINISH_REASONS`; ``"length"`` means the answer was cut
    at ``max_tokens`` (see :attr:`truncated`), which scorers must treat as such rather than
    parse a half answer silently. ``raw`` is the provider's decoded response body when
    available; ``cached`` is True when the answer came from the response cache.
    """

    text: str
    usage: Usage = field(default_factory=Usage)
    finish_reason: str = "stop"
    raw: dict | None = None
    cached: bool = False
    model: str = ""

    @property
    def truncated(self) -> bool:
        """True when generation stopped at the token limit."""
        return self.finish_reason == "length"

    def to_dict(self, include_raw: bool = False) -> dict:
        """JSON-able dict (``raw`` only when asked)."""
        out = {"text": self.text, "finish_reason": self.finish_reason, "cached": self.cached,
               "model": self.model, "usage": self.usage.to_dict()}
        if include_raw:
            out["raw"] = self.raw
        return out
