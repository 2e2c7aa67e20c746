"""Retry policy: exponential backoff with jitter and a cap, honoring ``Retry-After``.

The delay before retry ``n`` (0-based) is ``min(max_delay, base_delay * multiplier**n)``
scaled by a jitter factor drawn uniformly from ``[1 - jitter, 1]`` (so ``jitter=0`` is
plain exponential backoff). When the server sent ``Retry-After``, the delay is the larger
of that and the backoff, capped at ``max_retry_after`` so a hostile header cannot stall a
run for hours. Jitter comes from a seeded ``random.Random``, so a test run is repeatable.
"""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass

__all__ = ["RetryPolicy", "parse_retry_after"]


@dataclass(frozen=True)
class RetryPolicy:
    """How the core retries transient failures.

    ``max_retries`` counts retries beyond the first attempt (so at most ``max_retries + 1``
    requests per call).
    """

    max_retries: int = 4
    base_delay: float = 1.0
    multiplier: float = 2.0
    max_delay: float = 30.0
    jitter: float = 0.5
    max_retry_after: float = 120.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if self.base_delay < 0 or self.max_delay < 0 or self.max_retry_after < 0:
            raise ValueError("delays must be >= 0")
        if not 0 <= self.jitter <= 1:
            raise ValueError("jitter must be in [0, 1]")
        if self.multiplier < 1:
            raise ValueError("multiplier must be >= 1")

    def rng(self) -> random.Random:
        """A fresh seeded generator for one model's jitter draws."""
        return random.Random(self.seed)

    def backoff(self, retry: int, rng: random.Random) -> float:
        """Delay (s) before retry number ``retry`` (0-based), jitter applied."""
        raw = min(self.max_delay, self.base_delay * self.multiplier ** retry)
        return raw * (1.0 - self.jitter * rng.random())

    def delay(self, retry: int, rng: random.Random, retry_after: float | None) -> float:
        """Delay before retry ``retry``: the backoff, or the server's ``Retry-After`` if longer."""
        d = self.backoff(retry, rng)
        if retry_after is not None:
            d = max(d, min(retry_after, self.max_retry_after))
        return d


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP-date); None if absent/bad.

    Also accepts the ``retry-after-ms`` style value when given as a plain float.
    """
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)
