"""``openai``: any OpenAI-compatible chat-completions endpoint, over plain async HTTP (httpx).

Works with vLLM, SGLang, Ollama, LM Studio, llama.cpp server and OpenAI itself. The base
URL comes from ``base_url=``, else ``WEBGAUGE_OPENAI_BASE_URL``, else ``OPENAI_BASE_URL``,
else ``https://api.openai.com/v1``; the key from ``api_key=``, else ``OPENAI_API_KEY``
(no ``Authorization`` header at all when there is none, as local servers expect). Images are
sent inline as ``data:`` URLs in ``image_url`` parts. One request per ``complete`` call:
retries, limits and caching are the core's (see :mod:`webgauge.models.model`).
"""

from __future__ import annotations

import json
import os
from typing import Any

import httpx

from webgauge.models.config import GenerateConfig, Response
from webgauge.models.errors import ModelConfigError, PermanentError, TransientError
from webgauge.models.loops import PerLoop
from webgauge.models.messages import Image, Message
from webgauge.models.retry import parse_retry_after
from webgauge.models.usage import Usage

__all__ = ["OpenAICompatProvider", "create", "to_openai_messages", "build_request_body"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"

_FINISH = {"stop": "stop", "eos": "stop", "end_turn": "stop", "stop_sequence": "stop",
           "length": "length", "max_tokens": "length", "content_filter": "content_filter",
           "tool_calls": "tool_calls", "function_call": "tool_calls"}

_HINTS = {400: "the server rejected the request (check the model accepts images and the settings)",
          401: "check the API key (api_key= or OPENAI_API_KEY)",
          403: "the key is not allowed to use this model",
          404: "check the model name and the base URL (it usually ends in /v1)",
          422: "the server could not process the request body (check the settings)"}


def to_openai_messages(messages: tuple[Message, ...], image_detail: str | None = None) -> list[dict]:
    """Chat-completions ``messages``: text-only turns as strings, mixed turns as part lists."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if not m.images:
            out.append({"role": m.role, "content": m.text})
            continue
        parts: list[dict] = []
        for p in m.content:
            if isinstance(p, Image):
                url: dict[str, Any] = {"url": p.data_url()}
                if image_detail:
                    url["detail"] = image_detail
                parts.append({"type": "image_url", "image_url": url})
            else:
                parts.append({"type": "text", "text": p})
        out.append({"role": m.role, "content": parts})
    return out


def build_request_body(model: str, messages: tuple[Message, ...], config: GenerateConfig, *,
                       max_tokens_field: str = "max_tokens", image_detail: str | None = None) -> dict:
    """The JSON body of one chat-completions request (``config.extra`` merged last)."""
    body: dict[str, Any] = {"model": model, "messages": to_openai_messages(messages, image_detail),
                            "temperature": config.temperature, "stream": False}
    if config.max_tokens is not None:
        body[max_tokens_field] = config.max_tokens
    if config.top_p is not None:
        body["top_p"] = config.top_p
    if config.seed is not None:
        body["seed"] = config.seed
    if config.stop:
        body["stop"] = list(config.stop)
    body.update(config.extra)
    return body


def _message_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # some servers return content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    raise TypeError(f"message content is {type(content).__name__}")


def parse_response(data: Any) -> Response:
    """Turn a decoded chat-completions body into a Response; TransientError if malformed."""
    try:
        choice = data["choices"][0]
        text = _message_text(choice["message"].get("content"))
        finish = _FINISH.get(choice.get("finish_reason") or "", "other")
    except (KeyError, IndexError, TypeError, AttributeError) as e:
        raise TransientError(f"malformed chat-completions body ({type(e).__name__}: {e}): "
                             f"{json.dumps(data)[:200]}", kind="malformed") from None
    usage = data.get("usage") or {}
    return Response(text=text, finish_reason=finish, raw=data,
                    usage=Usage(input_tokens=usage.get("prompt_tokens"),
                                output_tokens=usage.get("completion_tokens")))


class OpenAICompatProvider:
    """One OpenAI-compatible endpoint and model (see the module docstring)."""

    provider = "openai"
    cacheable = True

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 headers: dict[str, str] | None = None, honors_seed: bool = True,
                 max_tokens_field: str = "max_tokens", image_detail: str | None = None,
                 default_concurrency: int = 8) -> None:
        if not model:
            raise ModelConfigError("the openai provider needs a model name: 'openai:MODEL' "
                                   "(e.g. openai:gpt-4o-mini or the name your vLLM server serves)")
        self.model = model
        base = (base_url or os.environ.get("WEBGAUGE_OPENAI_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
                or DEFAULT_BASE_URL)
        if not base.startswith(("http://", "https://")):
            raise ModelConfigError(f"base_url must start with http:// or https://, got {base!r}")
        self.endpoint = base.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.headers = dict(headers or {})
        self.honors_seed = honors_seed
        self.max_tokens_field = max_tokens_field
        self.image_detail = image_detail
        self.default_concurrency = default_concurrency
        self._clients: PerLoop[httpx.AsyncClient] = PerLoop(self._new_client, lambda c: c.aclose())

    def cache_identity(self) -> dict[str, Any]:
        """Request options that change what the server sees."""
        return {"max_tokens_field": self.max_tokens_field, "image_detail": self.image_detail}

    def _new_client(self) -> httpx.AsyncClient:
        headers = {"Content-Type": "application/json", **self.headers}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return httpx.AsyncClient(headers=headers, timeout=None)

    async def complete(self, messages: tuple[Message, ...], config: GenerateConfig, timeout: float) -> Response:
        """POST one chat-completions request and parse the answer."""
        body = build_request_body(self.model, messages, config, max_tokens_field=self.max_tokens_field,
                                  image_detail=self.image_detail)
        url = f"{self.endpoint}/chat/completions"
        try:
            r = await (await self._clients.get()).post(url, json=body, timeout=timeout)
        except httpx.TimeoutException as e:
            raise TransientError(f"openai {url}: timed out ({type(e).__name__})", kind="timeout") from e
        except httpx.TransportError as e:
            raise TransientError(f"openai {url}: connection failed ({type(e).__name__}: {e})",
                                 kind="connection") from e
        if r.status_code != 200:
            raise _status_error(url, r)
        try:
            data = r.json()
        except ValueError:
            raise TransientError(f"openai {url}: body is not JSON: {r.text[:200]!r}", kind="malformed") from None
        return parse_response(data)

    async def aclose(self) -> None:
        """Close the HTTP client of the running loop."""
        await self._clients.aclose()


def _status_error(url: str, r: httpx.Response) -> Exception:
    detail = r.text[:300]
    status = r.status_code
    if status in (408, 409, 425, 429) or status >= 500:
        retry_after = parse_retry_after(r.headers.get("retry-after"))
        if retry_after is None and r.headers.get("retry-after-ms"):
            ms = parse_retry_after(r.headers.get("retry-after-ms"))
            retry_after = ms / 1000.0 if ms is not None else None
        kind = "rate_limit" if status == 429 else "server_error"
        return TransientError(f"openai {url}: HTTP {status}: {detail}", status=status, kind=kind,
                              retry_after=retry_after)
    hint = _HINTS.get(status, "the request was refused")
    return PermanentError(f"openai {url}: HTTP {status} ({hint}): {detail}", status=status,
                          kind=f"http_{status}")


def create(model: str, **options: Any) -> OpenAICompatProvider:
    """Factory registered as ``openai``."""
    return OpenAICompatProvider(model, **options)
