"""What the parts of a live page share: :class:`~webgauge.browser.session.LivePage` is
:class:`~webgauge.browser.page_actions.PageActions`, :class:`~webgauge.browser.page_capture.PageCapture`
and :class:`~webgauge.browser.page_reuse.PageReuse` over one state, which ``LivePage.__init__`` sets.

:class:`PageState` declares that state once (annotations only, nothing at run time) and, for type
checkers, the methods one part calls on another, so each part reads as a typed class of its own.
Playwright objects (pages, contexts, CDP sessions, requests) are ``Any``: Playwright is imported
lazily and only here, in the browser layer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .profile import RenderProfile

if TYPE_CHECKING:
    from .cdp import ChangeWatch
    from .errors import PageError

__all__ = ["PageState"]


class PageState:
    """The attributes of a live page (set in ``LivePage.__init__``) and the cross-part methods."""

    _ctx: Any  # the Playwright browser context
    _stand_ins: dict[str, tuple[bytes, str]]
    stood_in_requests: list[str]
    fast_screenshots: bool
    fast_actions: bool
    reject_blocked: bool
    fast_full_page: bool
    capture_at_once: bool
    captures_at_once: int
    captures_at_load: int  # of those, taken with no arm first (the watch armed itself at the document's load)
    _checked_at_load: bool  # the last capture's check found the watch armed at the load (until its verify)
    headless_shell: bool  # the browser is Chromium's headless shell
    _cdp: dict[Any, Any]  # Playwright page -> CDP session
    _metrics: dict[Any, tuple[int, int, float, bool]]  # CDP session -> the metrics its emulation mirrors
    _watches: dict[Any, ChangeWatch]  # Playwright page -> ChangeWatch
    _tracking_sessions: set[Any]
    _tab_navs: dict[Any, int]
    _origins_seen: set[str]
    _last_cleared: set[str]
    _init_scripts: int
    profile: RenderProfile
    _allowed: set[str]
    max_tabs: int
    dialog_policy: str | Callable[..., Any]
    _pages: list[Any]
    _active: int
    _paths: dict[str, str]
    id_salt: str
    blocked_requests: list[dict[str, Any]]
    dialogs: list[dict[str, Any]]
    popups: list[dict[str, Any]]
    downloads: list[dict[str, Any]]
    file_choosers: list[Any]
    warnings: list[str]
    navigation_id: int
    _cleared: bool
    _scripts_off: bool
    late_cookies_cleared: int
    crashed: bool
    _delays: list[tuple[str, float]]
    _closed: bool
    require_settled: bool
    settle_timeout: float
    timeout: float | None
    _inflight: dict[Any, tuple[Any, str]]

    if TYPE_CHECKING:
        @property
        def _page(self) -> Any: ...

        def _live_tab(self) -> Any: ...

        def _safe_url(self) -> str | None: ...

        def _as_page_error(self, exc: Exception, url: str | None) -> PageError: ...

        def pending_requests(self) -> list[str]: ...

        async def cdp(self, page: Any = None) -> Any: ...

        async def evaluate(self, js: str, arg: Any = None, *, timeout: float | None = None) -> Any: ...
