"""Everything that speaks another ecosystem's language, built on the arena's core and env.

``gym_env`` (the Gymnasium face and the registered ids), ``bgym`` (BrowserGym action strings),
``bgym_env`` (BrowserGym-style observations and episodes) and ``external`` (arena tasks on apps
the arena does not host).
"""

from .external import ExternalApp, ExternalControl, ResetError

__all__ = ["ExternalApp", "ExternalControl", "ResetError"]
