"""``anthropic``: Claude models through the official ``anthropic`` SDK (extra ``webgauge[anthropic]``).

System messages become the request's top-level ``system`` text (joined in order); user and
assistant turns become Messages-API content blocks, images as base64 ``image`` blocks.
``max_tokens`` is required by the API: 1024 is sent when the config leaves it unset. The
API has no seed, so this provider does not honor seeds (only temperature-0 calls are
cached). Request fields that the installed SDK's ``messages.create`` does not name (recent
SDKs dropped ``temperature`` and ``top_p``) are sent in ``extra_body``, so the request on
the wire is the same whatever the SDK version. For models that refuse sampling settings,
``sampling_params=False`` leaves temperature and top_p out; such calls are not
deterministic, so that provider object is never cached. The SDK's own retries are switched off (``max_retries=0``): the
core retries.
Key: ``api_key=`` or ``ANTHROPIC_API_KEY``; base URL: ``base_url=`` or ``ANTHROPIC_BASE_URL``.
"""

from __future__ import annotations

import inspect
import os
from typing import Any

from webgauge.models.config import GenerateConfig, Response
from webgauge.models.errors import MissingDependency, ModelConfigError, PermanentError, TransientError
from webgauge.models.loops import PerLoop
from webgauge.models.messages import Image, Message
from webgauge.models.retry import parse_retry_after
from webgauge.models.usage import Usage

__all__ = ["AnthropicProvider", "create", "build_anthropic_request", "sdk_kwargs", "DEFAULT_MAX_TOKENS"]

DEFAULT_MAX_TOKENS = 1024

_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls",
           "refusal": "content_filter", "pause_turn": "other"}


def _import_sdk() -> Any:
    try:
        import anthropic
    except ImportError:
        raise MissingDependency("anthropic", "anthropic", "anthropic") from None
    return anthropic


def build_anthropic_request(model: str, messages: tuple[Message, ...], config: GenerateConfig,
                            sampling_params: bool = True) -> dict:
    """The Messages API request body as a dict (no network, no SDK needed)."""
    system_text = "\n\n".join(m.text for m in messages if m.role == "system")
    turns = []
    for m in messages:
        if m.role == "system":
            continue
        blocks = []
        for p in m.content:
            if isinstance(p, Image):
                blocks.append({"type": "image",
                               "source": {"type": "base64", "media_type": p.mime, "data": p.base64()}})
            elif p:
                blocks.append({"type": "text", "text": p})
        turns.append({"role": m.role, "content": blocks})
    if not turns or turns[0]["role"] != "user":
        raise ModelConfigError("the Anthropic Messages API needs the conversation to start with a user message")
    body: dict[str, Any] = {"model": model, "messages": turns,
                            "max_tokens": config.max_tokens or DEFAULT_MAX_TOKENS}
    if sampling_params:
        body["temperature"] = config.temperature
        if config.top_p is not None:
            body["top_p"] = config.top_p
    if system_text:
        body["system"] = system_text
    if config.stop:
        body["stop_sequences"] = list(config.stop)
    body.update(config.extra)
    return body


def sdk_kwargs(create: Any, body: dict) -> dict:
    """Split a request body into the SDK's named keywords and ``extra_body`` for the rest."""
    named = set(inspect.signature(create).parameters)
    kwargs = {k: v for k, v in body.items() if k in named}
    extra = {k: v for k, v in body.items() if k not in named}
    if extra:
        kwargs["extra_body"] = extra
    return kwargs


class AnthropicProvider:
    """Claude through the ``anthropic`` SDK (see module docstring)."""

    provider = "anthropic"
    honors_seed = False
    cacheable = True

    def __init__(self, model: str, *, api_key: str | None = None, base_url: str | None = None,
                 sampling_params: bool = True, default_concurrency: int = 4) -> None:
        self.sdk = _import_sdk()
        if not model:
            raise ModelConfigError("the anthropic provider needs a model name: 'anthropic:MODEL'")
        self.model = model
        self.api_key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not self.api_key:
            raise ModelConfigError("the anthropic provider needs an API key: api_key= or ANTHROPIC_API_KEY")
        self.endpoint = (base_url or os.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com").rstrip("/")
        self.default_concurrency = default_concurrency
        self.sampling_params = sampling_params
        self.cacheable = sampling_params  # without temperature on the wire nothing is deterministic
        self._clients: PerLoop[Any] = PerLoop(self._new_client, lambda c: c.close())

    def cache_identity(self) -> dict[str, Any]:
        """What else reaches the request: the max_tokens default and whether sampling is sent."""
        return {"default_max_tokens": DEFAULT_MAX_TOKENS, "sampling_params": self.sampling_params}

    def _new_client(self) -> Any:
        return self.sdk.AsyncAnthropic(api_key=self.api_key, base_url=self.endpoint, max_retries=0)

    async def complete(self, messages: tuple[Message, ...], config: GenerateConfig, timeout: float) -> Response:
        """One Messages API call through the SDK."""
        body = build_anthropic_request(self.model, messages, config, self.sampling_params)
        sdk = self.sdk
        create = (await self._clients.get()).messages.create
        try:
            msg = await create(**sdk_kwargs(create, body), timeout=timeout)
        except sdk.APITimeoutError as e:
            raise TransientError(f"anthropic: timed out ({e})", kind="timeout") from e
        except sdk.APIConnectionError as e:
            raise TransientError(f"anthropic: connection failed ({e})", kind="connection") from e
        except sdk.APIStatusError as e:
            raise _status_error(e) from e
        except (sdk.APIResponseValidationError, ValueError) as e:  # e.g. a body that is not JSON
            raise TransientError(f"anthropic: malformed response ({type(e).__name__}: {e})", kind="malformed") from e
        try:
            text = "".join(b.text for b in msg.content if getattr(b, "type", None) == "text")
            usage = Usage(input_tokens=msg.usage.input_tokens, output_tokens=msg.usage.output_tokens)
            finish = _FINISH.get(msg.stop_reason or "", "other")
        except (AttributeError, TypeError) as e:
            raise TransientError(f"anthropic: malformed response ({e})", kind="malformed") from e
        return Response(text=text, usage=usage, finish_reason=finish, raw=msg.model_dump(mode="json"))

    async def aclose(self) -> None:
        """Close the SDK client of the running loop."""
        await self._clients.aclose()


def _status_error(e: Any) -> Exception:
    status = getattr(e, "status_code", None) or 0
    message = f"anthropic: HTTP {status}: {getattr(e, 'message', e)}"
    if status in (408, 409, 429) or status >= 500:
        headers = getattr(getattr(e, "response", None), "headers", {}) or {}
        return TransientError(message, status=status, kind="rate_limit" if status == 429 else "server_error",
                              retry_after=parse_retry_after(headers.get("retry-after")))
    hints = {401: " (check ANTHROPIC_API_KEY)", 404: " (check the model name)"}
    return PermanentError(message + hints.get(status, ""), status=status, kind=f"http_{status}")


def create(model: str, **options: Any) -> AnthropicProvider:
    """Factory registered as ``anthropic``."""
    return AnthropicProvider(model, **options)
