"""The browser layer: the only code in webgauge that talks to Playwright.

It launches the system Chromium, renders pages under a fixed :class:`RenderProfile`,
keeps them offline (every non-loopback request is blocked and recorded) and captures
:class:`Snapshot` values: screenshot, element table, aria snapshot and geometry.
"""

from .capture import consistency_problems
from .chromium import ENV_VAR, LAUNCH_FLAGS, chromium_version, find_chromium
from .errors import BrowserError, ChromiumNotFound, ElementNotFound, NotInteractable, PageError
from .page_actions import VIEW_OFFSET_JS
from .profile import DEFAULT_PROFILE, RenderProfile
from .session import Browser, LivePage, is_loopback_url, origin_of
from .settle import SettleReport
from .snapshot import Element, Snapshot, element_id

__all__ = [
    "Browser", "LivePage", "RenderProfile", "DEFAULT_PROFILE", "Snapshot", "Element", "element_id",
    "BrowserError", "ChromiumNotFound", "ElementNotFound", "NotInteractable", "PageError",
    "find_chromium", "chromium_version", "LAUNCH_FLAGS", "ENV_VAR", "is_loopback_url", "origin_of",
    "SettleReport", "consistency_problems", "VIEW_OFFSET_JS",
]
