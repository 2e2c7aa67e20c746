"""Adapters that run arena tasks on apps the arena does not host."""

from .external import ExternalApp, ExternalControl, ResetError

__all__ = ["ExternalApp", "ExternalControl", "ResetError"]
