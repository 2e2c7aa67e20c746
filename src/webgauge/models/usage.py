"""Usage accounting: what one call cost (:class:`Usage`) and running totals (:class:`UsageMeter`).

Token counts come from the provider's own report; ``None`` means the provider did not
report them (counted apart, never guessed). Image count and bytes are measured by the core
from the messages, so they are the same whichever provider is used. A cache hit carries the
token counts of the call that was cached, with ``cached=True``; the meter adds those to
``cached_*`` totals, not to the billed ones.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field

__all__ = ["Usage", "UsageMeter", "UsageTotals"]


@dataclass(frozen=True)
class Usage:
    """What one ``generate`` call used.

    ``calls`` is 1 for a finished call; ``retries`` counts attempts beyond the first;
    ``latency_s`` is wall time from the first attempt to the answer, backoff included.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    images: int = 0
    image_bytes: int = 0
    calls: int = 1
    retries: int = 0
    latency_s: float = 0.0
    cached: bool = False

    def to_dict(self) -> dict:
        """Plain JSON-able dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Usage:
        """Inverse of :meth:`to_dict` (e.g. to re-sum usage stored in a run's records)."""
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown Usage fields {sorted(unknown)}")
        return cls(**data)


@dataclass
class UsageTotals:
    """Sums over many calls (a plain snapshot; see :class:`UsageMeter`).

    ``calls`` counts answered calls (cache hits included, ``cache_hits`` of them);
    ``errors`` counts calls that failed for good; ``retries`` counts extra attempts of both.
    ``input_tokens``/``output_tokens`` are what the providers reported for calls that went out
    (the bill); ``cached_*`` are the tokens of answers served from the cache (saved).
    ``calls_without_token_counts`` are answered calls whose provider reported no tokens.
    ``latency_s`` is summed wall time (not the run's duration: calls overlap).
    """

    calls: int = 0
    cache_hits: int = 0
    errors: int = 0
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cached_output_tokens: int = 0
    calls_without_token_counts: int = 0
    images: int = 0
    image_bytes: int = 0
    latency_s: float = 0.0
    by_model: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Plain JSON-able dict."""
        return asdict(self)


class UsageMeter:
    """Thread-safe running totals across calls, overall and per model name.

    One meter may be shared by several models (pass ``meter=`` to ``get_model``) to get a
    run-wide bill. ``record`` adds a finished call; ``record_error`` a call that failed for
    good (its retries still count).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._totals = UsageTotals()

    def record(self, usage: Usage, model: str = "") -> None:
        """Add one finished call's usage."""
        with self._lock:
            for t in (self._totals, self._model_totals(model)):
                _add(t, usage)

    def record_error(self, model: str = "", retries: int = 0, latency_s: float = 0.0) -> None:
        """Add one call that failed after ``retries`` retries."""
        with self._lock:
            for t in (self._totals, self._model_totals(model)):
                t.errors += 1
                t.retries += retries
                t.latency_s += latency_s

    def _model_totals(self, model: str) -> UsageTotals:
        return self._totals.by_model.setdefault(model, UsageTotals())

    @property
    def totals(self) -> UsageTotals:
        """A copy of the current totals."""
        with self._lock:
            out = UsageTotals(**{k: v for k, v in asdict(self._totals).items() if k != "by_model"})
            out.by_model = {name: UsageTotals(**{k: v for k, v in asdict(t).items() if k != "by_model"})
                            for name, t in self._totals.by_model.items()}
            return out

    def to_dict(self) -> dict:
        """Totals as a JSON-able dict."""
        return self.totals.to_dict()

    def __repr__(self) -> str:
        t = self.totals
        return (f"UsageMeter(calls={t.calls}, cache_hits={t.cache_hits}, errors={t.errors}, "
                f"retries={t.retries}, in={t.input_tokens}, out={t.output_tokens}, images={t.images})")


def _add(t: UsageTotals, u: Usage) -> None:
    t.calls += u.calls
    t.retries += u.retries
    t.images += u.images
    t.image_bytes += u.image_bytes
    t.latency_s += u.latency_s
    if u.input_tokens is None and u.output_tokens is None:
        t.calls_without_token_counts += u.calls
    if u.cached:
        t.cache_hits += u.calls
        t.cached_input_tokens += u.input_tokens or 0
        t.cached_output_tokens += u.output_tokens or 0
    else:
        t.input_tokens += u.input_tokens or 0
        t.output_tokens += u.output_tokens or 0
