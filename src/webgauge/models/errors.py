"""Errors raised by models, split by what the core should do with them.

Providers raise :class:`TransientError` for failures worth retrying (429, 5xx, timeouts,
dropped connections, malformed bodies) and :class:`PermanentError` for those that will
fail the same way again (400, 401, 403, 404, 422). The core retries the first kind and
raises :class:`RetriesExhausted` when it gives up; every one is a :class:`ModelError`, so
a suite can record ``type(e).__name__`` and ``str(e)`` per item and go on.
"""

from __future__ import annotations

__all__ = [
    "ModelError",
    "TransientError",
    "PermanentError",
    "RetriesExhausted",
    "MissingDependency",
    "ModelConfigError",
    "NoScriptedAnswer",
]


class ModelError(Exception):
    """Base class of every model failure. ``status`` is the HTTP status when there was one."""

    def __init__(self, message: str, *, status: int | None = None, kind: str = "error") -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind

    def to_dict(self) -> dict:
        """JSON-able record of the failure, for per-item error records in a run."""
        out = {"type": type(self).__name__, "kind": self.kind, "status": self.status, "message": str(self)}
        attempts = getattr(self, "attempts", None)
        if attempts is not None:
            out["attempts"] = attempts
        return out


class TransientError(ModelError):
    """A failure that may pass: retried by the core. ``retry_after`` is the server's hint (s)."""

    def __init__(self, message: str, *, status: int | None = None, kind: str = "transient",
                 retry_after: float | None = None) -> None:
        super().__init__(message, status=status, kind=kind)
        self.retry_after = retry_after


class PermanentError(ModelError):
    """A failure that will repeat (bad request, auth, unknown model): not retried."""

    def __init__(self, message: str, *, status: int | None = None, kind: str = "permanent") -> None:
        super().__init__(message, status=status, kind=kind)


class RetriesExhausted(ModelError):
    """The core gave up after ``attempts`` attempts; ``last_error`` is the final failure."""

    def __init__(self, message: str, *, attempts: int, last_error: ModelError) -> None:
        super().__init__(message, status=last_error.status, kind=last_error.kind)
        self.attempts = attempts
        self.last_error = last_error


class MissingDependency(ModelError, ImportError):
    """A provider's optional package is not installed; the message names the pip extra."""

    def __init__(self, provider: str, package: str, extra: str) -> None:
        super().__init__(
            f"the {provider!r} model provider needs the {package!r} package, which is not installed: "
            f"pip install 'webgauge[{extra}]'", kind="missing_dependency")
        self.provider = provider
        self.package = package
        self.extra = extra


class ModelConfigError(ModelError, ValueError):
    """A model was asked for with bad options (unknown provider, missing model name, ...)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="config")


class NoScriptedAnswer(PermanentError):
    """The scripted provider has no answer for this call."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="no_scripted_answer")
