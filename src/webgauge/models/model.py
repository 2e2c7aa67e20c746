"""The Model protocol and the core that wraps every provider.

A provider (:class:`Provider`) only knows how to turn messages into ONE request to its
backend and the reply into a :class:`Response`; it raises :class:`TransientError` or
:class:`PermanentError`. Everything around that call lives here, once, for every provider
(:class:`ManagedModel`): the response cache (deterministic calls only), the per-endpoint
concurrency limit, the per-attempt timeout, retries with backoff and ``Retry-After``, and
usage accounting (tokens, images, calls, retries, latency) into a :class:`UsageMeter`.
Identical deterministic calls made at the same time by one model object are sent once; the
others wait and are answered from the cache.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from webgauge.models.cache import ResponseCache, cache_key, is_deterministic
from webgauge.models.config import GenerateConfig, Response
from webgauge.models.errors import ModelError, RetriesExhausted, TransientError
from webgauge.models.limits import default_concurrency, endpoint_semaphore
from webgauge.models.messages import Message, image_stats, normalize_messages
from webgauge.models.recorder import ReplayRecorder
from webgauge.models.retry import RetryPolicy
from webgauge.models.usage import Usage, UsageMeter

__all__ = ["Model", "Provider", "ManagedModel", "DEFAULT_TIMEOUT"]

log = logging.getLogger("webgauge.models")

DEFAULT_TIMEOUT = 120.0

Messages = str | Message | Sequence[Message]


@runtime_checkable
class Model(Protocol):
    """What suites call: messages of text and images in, text and usage out."""

    name: str

    async def generate(self, messages: Messages, config: GenerateConfig | None = None) -> Response:
        """Answer one conversation."""
        ...


class Provider(Protocol):
    """One backend, one attempt. Registered by name; see :func:`webgauge.models.register_provider`.

    Attributes: ``provider`` (registry name), ``model`` (model name at the backend),
    ``endpoint`` (base URL; '' for in-process providers), ``honors_seed`` (a fixed seed makes
    its answers repeatable), ``cacheable`` (worth caching: False for in-process providers),
    ``default_concurrency`` (requests in flight per endpoint unless configured).
    """

    provider: str
    model: str
    endpoint: str
    honors_seed: bool
    cacheable: bool
    default_concurrency: int

    def cache_identity(self) -> dict[str, Any]:
        """Provider options that reach the request and so belong in the cache key."""
        ...

    async def complete(self, messages: tuple[Message, ...], config: GenerateConfig,
                       timeout: float) -> Response:
        """Send one request; return text, finish_reason, raw and token counts."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


class ManagedModel:
    """A provider plus the core's cache, limits, timeouts, retries and usage accounting.

    Made by :func:`webgauge.models.get_model`; implements :class:`Model`. ``meter`` holds this
    model's totals (pass a shared :class:`UsageMeter` to sum several models).
    """

    def __init__(self, provider: Provider, *, retry: RetryPolicy | None = None,
                 max_concurrency: int | None = None, timeout: float | None = None,
                 cache: ResponseCache | None = None, meter: UsageMeter | None = None,
                 recorder: ReplayRecorder | None = None) -> None:
        self.provider = provider
        self.recorder = recorder
        self.retry = retry or RetryPolicy()
        self.max_concurrency = max_concurrency or default_concurrency(provider.default_concurrency)
        self.timeout = timeout or DEFAULT_TIMEOUT
        self.cache = cache
        self.meter = meter if meter is not None else UsageMeter()
        self._rng = self.retry.rng()
        self._key_locks: dict[tuple, list] = {}
        self.name = f"{provider.provider}:{provider.model}" if provider.model else provider.provider

    def __repr__(self) -> str:
        where = f" at {self.provider.endpoint}" if self.provider.endpoint else ""
        return f"<ManagedModel {self.name}{where}>"

    def describe(self) -> dict[str, Any]:
        """JSON-able description for a run's spec: what answers and how it is called."""
        p = self.provider
        return {"name": self.name, "provider": p.provider, "model": p.model, "endpoint": p.endpoint,
                "honors_seed": p.honors_seed, "options": p.cache_identity(),
                "retry": dataclasses.asdict(self.retry), "max_concurrency": self.max_concurrency,
                "timeout": self.timeout, "cache": str(self.cache.path) if self.cache is not None else None}

    def cache_key_for(self, messages: Sequence[Message], config: GenerateConfig) -> str | None:
        """The cache key of this call, or None if it is not cached (no cache, or not deterministic)."""
        if self.cache is None or not self.provider.cacheable:
            return None
        if not is_deterministic(config, self.provider.honors_seed):
            return None
        p = self.provider
        return cache_key(provider=p.provider, model=p.model, endpoint=p.endpoint, messages=messages,
                         config=config, identity=p.cache_identity())

    async def generate(self, messages: Messages, config: GenerateConfig | None = None) -> Response:
        """Answer ``messages``: from the cache if deterministic and seen, else from the provider."""
        msgs = normalize_messages(messages)
        config = config or GenerateConfig()
        n_images, n_bytes = image_stats(msgs)
        start = time.monotonic()
        key = self.cache_key_for(msgs, config)
        if key is None or self.cache is None:
            return await self._fresh(msgs, config, None, n_images, n_bytes, start)
        # Identical deterministic calls in flight at once go out once: the others wait, then hit the cache.
        async with self._key_lock(key):
            hit = await asyncio.to_thread(self.cache.get, key)
            if hit is not None:
                usage = dataclasses.replace(hit.usage, images=n_images, image_bytes=n_bytes,
                                            latency_s=time.monotonic() - start)
                self.meter.record(usage, self.name)
                hit = dataclasses.replace(hit, usage=usage, model=self.name)
                if self.recorder is not None:
                    self.recorder.record(msgs, config, hit)
                return hit
            return await self._fresh(msgs, config, key, n_images, n_bytes, start)

    @contextlib.asynccontextmanager
    async def _key_lock(self, key: str):
        slot = (asyncio.get_running_loop(), key)
        entry = self._key_locks.get(slot)
        if entry is None:
            entry = self._key_locks[slot] = [asyncio.Lock(), 0]
        entry[1] += 1
        try:
            async with entry[0]:
                yield
        finally:
            entry[1] -= 1
            if entry[1] == 0:
                del self._key_locks[slot]

    async def _fresh(self, msgs: tuple[Message, ...], config: GenerateConfig, key: str | None,
                     n_images: int, n_bytes: int, start: float) -> Response:
        response, retries = await self._call_with_retries(msgs, config, start)
        usage = Usage(input_tokens=response.usage.input_tokens, output_tokens=response.usage.output_tokens,
                      images=n_images, image_bytes=n_bytes, calls=1, retries=retries,
                      latency_s=time.monotonic() - start, cached=False)
        response = dataclasses.replace(response, usage=usage, cached=False, model=self.name)
        if key is not None and self.cache is not None:
            await asyncio.to_thread(self.cache.put, key, self.provider.provider, response)
        self.meter.record(usage, self.name)
        if self.recorder is not None:
            self.recorder.record(msgs, config, response)
        return response

    async def _call_with_retries(self, msgs: tuple[Message, ...], config: GenerateConfig,
                                 start: float) -> tuple[Response, int]:
        timeout = config.timeout or self.timeout
        sem = endpoint_semaphore(self.provider.provider, self.provider.endpoint, self.max_concurrency)
        policy = self.retry
        for attempt in range(policy.max_retries + 1):
            try:
                async with sem:
                    # wait_for, not asyncio.timeout: that is Python 3.11+, and 3.10 is supported
                    return await asyncio.wait_for(self.provider.complete(msgs, config, timeout), timeout), attempt
            except (TimeoutError, asyncio.TimeoutError):
                err: ModelError = TransientError(
                    f"no answer within {timeout:g}s (raise timeout= or config.timeout)",
                    kind="timeout")
            except TransientError as e:
                err = e
            except ModelError:  # permanent: a bad request, auth, config... retrying cannot help
                self.meter.record_error(self.name, attempt, time.monotonic() - start)
                raise
            if attempt == policy.max_retries:
                break
            delay = policy.delay(attempt, self._rng, getattr(err, "retry_after", None))
            log.warning("%s: %s (attempt %d/%d); retrying in %.2fs", self.name, err, attempt + 1,
                        policy.max_retries + 1, delay)
            await asyncio.sleep(delay)
        self.meter.record_error(self.name, policy.max_retries, time.monotonic() - start)
        raise RetriesExhausted(f"{self.name}: gave up after {policy.max_retries + 1} attempts; last error: {err}",
                               attempts=policy.max_retries + 1, last_error=err)

    async def aclose(self) -> None:
        """Close the provider's connections (the cache stays open: it may be shared)."""
        await self.provider.aclose()

    async def __aenter__(self) -> ManagedModel:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
