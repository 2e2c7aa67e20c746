"""``gemini``: Gemini models through the official ``google-genai`` SDK (extra ``webgauge[gemini]``).

System messages become ``system_instruction``; user turns keep role ``user`` and assistant
turns become role ``model``; images are ``inline_data`` parts (bytes + mime). ``seed`` is
sent and honored by the API, so seeded calls are cacheable. The SDK's own retries are
switched off (one attempt): the core retries. Key: ``api_key=``, else ``GEMINI_API_KEY``,
else ``GOOGLE_API_KEY``; ``base_url=`` points the SDK at another host (e.g. a test server).
"""

from __future__ import annotations

import os
from typing import Any

from webgauge.models.config import GenerateConfig, Response
from webgauge.models.errors import MissingDependency, ModelConfigError, PermanentError, TransientError
from webgauge.models.loops import PerLoop
from webgauge.models.messages import Image, Message
from webgauge.models.retry import parse_retry_after
from webgauge.models.usage import Usage

__all__ = ["GeminiProvider", "create", "build_gemini_request"]

_FINISH = {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter", "RECITATION": "content_filter",
           "BLOCKLIST": "content_filter", "PROHIBITED_CONTENT": "content_filter", "SPII": "content_filter",
           "IMAGE_SAFETY": "content_filter"}

_TRANSPORT_ERRORS: tuple = ()
for _mod in ("httpx", "httpx2", "aiohttp"):
    try:
        _m = __import__(_mod)
        _TRANSPORT_ERRORS += tuple(getattr(_m, n) for n in ("TransportError", "ClientError") if hasattr(_m, n))
    except ImportError:
        pass


def _import_sdk() -> tuple[Any, Any, Any]:
    try:
        from google import genai
        from google.genai import errors, types
    except ImportError:
        raise MissingDependency("gemini", "google-genai", "gemini") from None
    return genai, types, errors


def build_gemini_request(messages: tuple[Message, ...], config: GenerateConfig) -> tuple[list[dict], dict]:
    """``(contents, generation config)`` as plain dicts for ``models.generate_content``."""
    system_text = "\n\n".join(m.text for m in messages if m.role == "system")
    contents = []
    for m in messages:
        if m.role == "system":
            continue
        parts: list[dict[str, Any]] = []
        for p in m.content:
            if isinstance(p, Image):
                parts.append({"inline_data": {"mime_type": p.mime, "data": p.data}})
            elif p:
                parts.append({"text": p})
        contents.append({"role": "model" if m.role == "assistant" else "user", "parts": parts})
    if not contents:
        raise ModelConfigError("the Gemini API needs at least one user message")
    cfg: dict[str, Any] = {"temperature": config.temperature}
    if system_text:
        cfg["system_instruction"] = system_text
    if config.max_tokens is not None:
        cfg["max_output_tokens"] = config.max_tokens
    if config.top_p is not None:
        cfg["top_p"] = config.top_p
    if config.seed is not None:
        cfg["seed"] = config.seed
    if config.stop:
        cfg["stop_sequences"] = list(config.stop)
    cfg.update(config.extra)
    return contents, cfg


class GeminiProvider:
    """Gemini through ``google-genai`` (see module docstring)."""

    provider = "gemini"
    honors_seed = True
    cacheable = True

    def __init__(self, model: str, *, api_key: str | None = None, base_url: str | None = None,
                 api_version: str | None = None, default_concurrency: int = 4) -> None:
        self.genai, self.types, self.errors = _import_sdk()
        if not model:
            raise ModelConfigError("the gemini provider needs a model name: 'gemini:MODEL'")
        self.model = model
        self.api_key = api_key or os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
        if not self.api_key:
            raise ModelConfigError("the gemini provider needs an API key: api_key=, GEMINI_API_KEY or GOOGLE_API_KEY")
        self.base_url = base_url
        self.api_version = api_version
        self.endpoint = (base_url or "https://generativelanguage.googleapis.com").rstrip("/")
        self.default_concurrency = default_concurrency
        self._clients: PerLoop[Any] = PerLoop(self._new_client, lambda c: c.aio.aclose())

    def cache_identity(self) -> dict[str, Any]:
        """The API version changes what the request means."""
        return {"api_version": self.api_version}

    def _new_client(self) -> Any:
        # Building a genai Client costs ~0.5 s (TLS setup), so there is one per event loop.
        t = self.types
        opts: dict[str, Any] = {"retry_options": t.HttpRetryOptions(attempts=1)}
        if self.base_url:
            opts["base_url"] = self.base_url
        if self.api_version:
            opts["api_version"] = self.api_version
        return self.genai.Client(api_key=self.api_key, http_options=t.HttpOptions(**opts))

    async def complete(self, messages: tuple[Message, ...], config: GenerateConfig, timeout: float) -> Response:
        """One generateContent call through the SDK."""
        contents, cfg = build_gemini_request(messages, config)
        cfg["http_options"] = self.types.HttpOptions(timeout=int(timeout * 1000))
        try:
            client = await self._clients.get()
            resp = await client.aio.models.generate_content(
                model=self.model, contents=contents, config=self.types.GenerateContentConfig(**cfg))
        except self.errors.APIError as e:
            raise _status_error(e) from e
        except _TRANSPORT_ERRORS as e:
            raise TransientError(f"gemini: connection failed ({type(e).__name__}: {e})", kind="connection") from e
        except ValueError as e:  # a body that is not JSON
            raise TransientError(f"gemini: malformed response ({e})", kind="malformed") from e
        return _parse(resp)

    async def aclose(self) -> None:
        """Close the SDK client of the running loop."""
        await self._clients.aclose()


def _parse(resp: Any) -> Response:
    try:
        cand = resp.candidates[0]
        parts = (cand.content.parts or []) if cand.content else []
        text = "".join(p.text for p in parts if getattr(p, "text", None))
        reason = cand.finish_reason.name if cand.finish_reason is not None else ""
    except (AttributeError, IndexError, TypeError) as e:
        raise TransientError(f"gemini: malformed response ({type(e).__name__}: {e})", kind="malformed") from e
    meta = resp.usage_metadata
    usage = Usage(input_tokens=getattr(meta, "prompt_token_count", None),
                  output_tokens=getattr(meta, "candidates_token_count", None))
    return Response(text=text, usage=usage, finish_reason=_FINISH.get(reason, "other"),
                    raw=resp.model_dump(mode="json", exclude_none=True))


def _status_error(e: Any) -> Exception:
    status = int(getattr(e, "code", 0) or 0)
    message = f"gemini: HTTP {status}: {getattr(e, 'message', e)}"
    if status in (408, 409, 429) or status >= 500:
        headers = getattr(getattr(e, "response", None), "headers", None) or {}
        return TransientError(message, status=status, kind="rate_limit" if status == 429 else "server_error",
                              retry_after=parse_retry_after(headers.get("retry-after")))
    hints = {400: " (check the request settings)", 401: " (check GEMINI_API_KEY)",
             403: " (check GEMINI_API_KEY)", 404: " (check the model name)"}
    return PermanentError(message + hints.get(status, ""), status=status, kind=f"http_{status}")


def create(model: str, **options: Any) -> GeminiProvider:
    """Factory registered as ``gemini``."""
    return GeminiProvider(model, **options)
