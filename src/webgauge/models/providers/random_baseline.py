"""``random``: a no-network baseline answering uniformly among the allowed answers.

The allowed answers are ``config.choices`` (per call), else ``choices=`` given to
``get_model("random", choices=[...])``; with neither, the call fails with a clear error
rather than inventing answers. The draw is seeded by ``config.seed`` (else the model's
``seed=``, default 0) combined with the sha256 of the messages and the item id, so the same
item gets the same answer on every run, independently of call order or concurrency, and
different items get independent draws.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any

from webgauge.models.config import GenerateConfig, Response
from webgauge.models.errors import ModelConfigError
from webgauge.models.messages import Message, messages_digest
from webgauge.models.usage import Usage

__all__ = ["RandomProvider", "create", "draw_seed"]


def draw_seed(seed: int, messages: Sequence[Message], item_id: str | None) -> int:
    """The integer seed of one draw: sha256 of (seed, messages digest, item id)."""
    blob = f"{seed}|{messages_digest(messages)}|{item_id or ''}".encode()
    return int.from_bytes(hashlib.sha256(blob).digest()[:8], "big")


class RandomProvider:
    """Uniform choice among the allowed answers (see module docstring)."""

    provider = "random"
    endpoint = ""
    honors_seed = True
    cacheable = False
    default_concurrency = 64

    def __init__(self, model: str = "", *, choices: Sequence[str] | None = None, seed: int = 0) -> None:
        if model:
            raise ModelConfigError(f"the random baseline takes no model name (got 'random:{model}'); "
                                   f"use get_model('random', choices=[...], seed=...)")
        if isinstance(choices, str):
            raise ModelConfigError("choices must be a list of strings, not one string")
        self.model = ""
        self.choices = tuple(choices) if choices is not None else None
        self.seed = int(seed)

    def cache_identity(self) -> dict[str, Any]:
        """Not cached; kept for the Provider protocol."""
        return {"choices": self.choices, "seed": self.seed}

    async def complete(self, messages: tuple[Message, ...], config: GenerateConfig, timeout: float) -> Response:
        """Draw one of the allowed answers."""
        choices = config.choices if config.choices is not None else self.choices
        if not choices:
            raise ModelConfigError("the random baseline needs the allowed answers: set GenerateConfig(choices=[...]) "
                                   "or get_model('random', choices=[...])")
        seed = config.seed if config.seed is not None else self.seed
        rng = random.Random(draw_seed(seed, messages, config.item_id))
        answer = rng.choice(list(choices))
        return Response(text=answer, usage=Usage(input_tokens=0, output_tokens=0), finish_reason="stop",
                        raw={"seed": seed, "choices": list(choices)})

    async def aclose(self) -> None:
        """Nothing to release."""


def create(model: str, **options: Any) -> RandomProvider:
    """Factory registered as ``random``."""
    return RandomProvider(model, **options)
