"""webgauge.models: one async Model protocol over many providers.

``async generate(messages, config) -> Response(text, usage)``: messages carry text and
images (:class:`Image`, named by sha256); providers register by name and import lazily.
The core (:class:`ManagedModel`) owns retries with backoff, per-endpoint concurrency limits,
timeouts, usage accounting and a response cache for deterministic calls::

    from webgauge.models import get_model, user, Image, GenerateConfig
    model = get_model("openai:gpt-4o-mini", base_url="http://127.0.0.1:8000/v1", cache="run/cache.sqlite")
    r = await model.generate([user("Which button is larger?", Image(png))], GenerateConfig(max_tokens=64))
    r.text, r.usage, r.truncated, r.cached

Built-in providers: ``openai`` (any OpenAI-compatible endpoint), ``anthropic``, ``gemini``
(optional extras), ``hf-local`` (a local vision-language model folder run in-process with
``transformers``, optionally with a LoRA adapter: ``hf-local:PATH?adapter=DIR``; extra
``webgauge[local]``), ``scripted`` (answers from a JSONL file) and ``random`` (uniform baseline).
"""

from webgauge.models.cache import ResponseCache, cache_key, default_cache_path, is_deterministic
from webgauge.models.config import FINISH_REASONS, GenerateConfig, Response
from webgauge.models.errors import (
                                    MissingDependency,
                                    ModelConfigError,
                                    ModelError,
                                    NoScriptedAnswer,
                                    PermanentError,
                                    RetriesExhausted,
                                    TransientError,
)
from webgauge.models.messages import (
                                    Image,
                                    Message,
                                    assistant,
                                    image_stats,
                                    last_user_text,
                                    messages_digest,
                                    normalize_messages,
                                    system,
                                    user,
)
from webgauge.models.model import DEFAULT_TIMEOUT, ManagedModel, Model, Provider
from webgauge.models.recorder import ReplayRecorder
from webgauge.models.registry import (
                                    ENTRY_POINT_GROUP,
                                    get_model,
                                    get_provider_factory,
                                    list_providers,
                                    provider_info,
                                    register_provider,
)
from webgauge.models.retry import RetryPolicy, parse_retry_after
from webgauge.models.usage import Usage, UsageMeter, UsageTotals

__all__ = [
    "DEFAULT_TIMEOUT", "ENTRY_POINT_GROUP", "FINISH_REASONS",
    "GenerateConfig", "Image", "ManagedModel", "Message", "MissingDependency", "Model",
    "ModelConfigError", "ModelError", "NoScriptedAnswer", "PermanentError", "Provider",
    "ReplayRecorder", "Response", "ResponseCache", "RetriesExhausted", "RetryPolicy", "TransientError",
    "Usage", "UsageMeter", "UsageTotals",
    "assistant", "cache_key", "default_cache_path", "get_model", "get_provider_factory",
    "image_stats", "is_deterministic", "last_user_text", "list_providers", "messages_digest",
    "normalize_messages", "parse_retry_after", "provider_info", "register_provider", "system", "user",
]
