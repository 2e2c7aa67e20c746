"""Provider registry: names to factories, imported lazily, plus ``get_model``.

A provider factory is any callable ``factory(model: str, **options) -> Provider``. Built-in
providers are registered as import paths and imported only when chosen, so a missing
optional SDK only matters to whoever picks that provider (and raises
:class:`MissingDependency` naming the pip extra). Third-party packages add providers with
:func:`register_provider` or through the ``webgauge.models`` entry-point group::

    [project.entry-points."webgauge.models"]
    myprovider = "mypkg.models:create"

Model specs are ``"provider:model"`` (``"openai:gpt-4o-mini"``, ``"scripted:answers.jsonl"``);
the model part may itself contain colons (``"openai:qwen2.5-vl:7b"``).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import threading
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from webgauge.models.cache import ResponseCache, default_cache_path
from webgauge.models.errors import ModelConfigError
from webgauge.models.model import ManagedModel, Provider
from webgauge.models.recorder import ReplayRecorder
from webgauge.models.retry import RetryPolicy
from webgauge.models.usage import UsageMeter

__all__ = ["register_provider", "list_providers", "provider_info", "get_model", "get_provider_factory",
           "ENTRY_POINT_GROUP"]

ENTRY_POINT_GROUP = "webgauge.models"

ProviderFactory = Callable[..., Provider]

_BUILTIN: dict[str, str] = {
    "openai": "webgauge.models.providers.openai_compat:create",
    "anthropic": "webgauge.models.providers.anthropic_sdk:create",
    "gemini": "webgauge.models.providers.gemini_sdk:create",
    "scripted": "webgauge.models.providers.scripted:create",
    "random": "webgauge.models.providers.random_baseline:create",
    "hf-local": "webgauge.models.providers.hf_local:create",
}

_lock = threading.Lock()
_registered: dict[str, str | ProviderFactory] = {}


def register_provider(name: str, factory: str | ProviderFactory, *, replace: bool = False) -> None:
    """Register ``factory`` (a callable or a ``"module:attr"`` path) under ``name``.

    Registering a taken name raises unless ``replace=True``.
    """
    if not name or ":" in name or name != name.strip():
        raise ModelConfigError(f"provider name must be non-empty without ':' or spaces, got {name!r}")
    if not (callable(factory) or (isinstance(factory, str) and ":" in factory)):
        raise ModelConfigError("factory must be a callable or a 'module:attr' import path")
    with _lock:
        if not replace and name in _all_names():
            raise ModelConfigError(f"model provider {name!r} is already registered; pass replace=True")
        _registered[name] = factory


def _entry_points() -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _all_names() -> set[str]:
    return set(_BUILTIN) | set(_registered) | set(_entry_points())


def list_providers() -> list[str]:
    """Names of every provider: built-in, registered and from entry points (none imported)."""
    with _lock:
        return sorted(_all_names())


# The optional package each built-in provider needs: (importable module, pip extra).
_REQUIRES = {"anthropic": ("anthropic", "anthropic"), "gemini": ("google.genai", "gemini"),
             "hf-local": ("transformers", "local")}


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package is missing
        return False


def provider_info() -> list[dict[str, Any]]:
    """One dict per provider: name, source (builtin | registered | entry point), available, hint.

    Availability is checked without importing anything (``importlib.util.find_spec``).
    """
    with _lock:
        registered = set(_registered)
    eps = _entry_points()
    out = []
    for name in list_providers():
        source = "registered" if name in registered else "builtin" if name in _BUILTIN else \
            f"entry point {eps[name].value}"
        available, hint = True, ""
        if source == "builtin" and name in _REQUIRES:
            module, extra = _REQUIRES[name]
            available = _importable(module)
            hint = "" if available else f"pip install 'webgauge[{extra}]'"
        out.append({"name": name, "source": source, "available": available, "hint": hint})
    return out


def _load(path: str) -> ProviderFactory:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def get_provider_factory(name: str) -> ProviderFactory:
    """The factory registered under ``name`` (imported now); unknown names list the known ones."""
    with _lock:
        target: Any = _registered.get(name)
    if target is None:
        target = _BUILTIN.get(name)
    if target is None:
        ep = _entry_points().get(name)
        if ep is not None:
            try:
                target = ep.load()
            except Exception as e:  # a broken plugin must name itself
                raise ModelConfigError(f"model provider {name!r} from entry point {ep.value!r} failed to load: "
                                       f"{type(e).__name__}: {e}") from e
    if target is None:
        raise ModelConfigError(f"unknown model provider {name!r}; known providers: "
                               f"{', '.join(list_providers())}. Third-party providers register with "
                               f"webgauge.models.register_provider or the {ENTRY_POINT_GROUP!r} entry-point group")
    return _load(target) if isinstance(target, str) else target


def _open_cache(cache: None | bool | str | Path | ResponseCache) -> ResponseCache | None:
    if cache is None or cache is False:
        return None
    if cache is True:
        return ResponseCache(default_cache_path())
    if isinstance(cache, ResponseCache):
        return cache
    if isinstance(cache, (str, Path)):
        return ResponseCache(cache)
    raise ModelConfigError(f"cache must be a path, a ResponseCache, True (default path) or False, got {cache!r}")


def get_model(spec: str, *, retry: RetryPolicy | None = None, max_retries: int | None = None,
              max_concurrency: int | None = None, timeout: float | None = None,
              cache: None | bool | str | Path | ResponseCache = None,
              meter: UsageMeter | None = None, record: None | str | Path = None,
              **options: Any) -> ManagedModel:
    """Make a model from ``"provider:model"`` plus options.

    Core options (same for every provider): ``retry`` (a :class:`RetryPolicy`) or just
    ``max_retries``; ``max_concurrency`` (requests in flight per provider endpoint);
    ``timeout`` (seconds per attempt, default 120); ``cache`` (a SQLite path, a
    :class:`ResponseCache`, ``True`` for ``~/.cache/webgauge/responses.sqlite``, or
    ``None``/``False`` for no cache: the default); ``meter`` (a shared :class:`UsageMeter`);
    ``record`` (a JSONL path: every answer is appended for replay with ``scripted:PATH``).
    Every other keyword goes to the provider (``base_url``, ``api_key``, ...).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ModelConfigError("model spec must be a string like 'openai:gpt-4o-mini' or 'random'")
    name, _, model = spec.strip().partition(":")
    factory = get_provider_factory(name)
    try:
        provider = factory(model, **options)
    except TypeError as e:  # most often an option this provider does not take
        raise ModelConfigError(f"bad options for model provider {name!r} ({sorted(options)}): {e}") from e
    if max_retries is not None:
        retry = dataclasses.replace(retry or RetryPolicy(), max_retries=max_retries)
    return ManagedModel(provider, retry=retry, max_concurrency=max_concurrency, timeout=timeout,
                        cache=_open_cache(cache), meter=meter,
                        recorder=ReplayRecorder(record) if record is not None else None)
