"""Capturing a Playwright page into a :class:`Snapshot` without touching the page."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import struct
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import lru_cache
from importlib import resources
from typing import Any

from .profile import RenderProfile
from .settle import (
    SETTLE_TIMEOUT,
    STABLE_FRAMES,
    SettleReport,
    _settle_js,
    now_arg,
    now_report,
    probe_layout,
    settle,
    settled_now,
)
from .snapshot import Element, Snapshot, element_id

__all__ = ["capture_page", "screenshot_page", "settle", "png_size", "expected_png_size", "consistency_problems",
           "freeze_animations", "thaw_animations", "MAX_FULL_PAGE_HEIGHT", "CAPTURE_ATTEMPTS"]


@lru_cache(maxsize=1)
def _capture_js() -> str:
    return resources.files(__package__).joinpath("capture.js").read_text()


@lru_cache(maxsize=1)
def _freeze_js() -> str:
    return resources.files(__package__).joinpath("freeze.js").read_text()


async def freeze_animations(page: Any) -> Any:
    """Freeze every animation and transition of ``page`` at a fixed point for a capture (see
    ``freeze.js``: finite ones finished, endless ones cancelled (as Playwright's screenshots do); ones
    that start meanwhile
    frozen as they start). Returns a handle; :func:`thaw_animations` lifts the freeze."""
    return await page.evaluate_handle(_freeze_js(), {})


async def thaw_animations(handle: Any) -> None:
    """Lift a :func:`freeze_animations` freeze (the endless animations play again from their start)."""
    with contextlib.suppress(Exception):  # a page that navigated away has nothing left to thaw
        await handle.evaluate("(f) => f.stop()")
    with contextlib.suppress(Exception):
        await handle.dispose()


@lru_cache(maxsize=1)
def _capture_and_probe_js() -> str:
    """The element table and, right after it in the same task, the layout probe (one round trip)."""
    return (f"async (opts) => [({_capture_js().strip()})(opts), "
            f"await ({_settle_js().strip()})({{probe: true, budgetMs: 0}})]")


async def screenshot_page(page: Any, profile: RenderProfile, *, full_page: bool = False,
                          clip: tuple[float, float, float, float] | None = None, timeout: float = 20.0) -> bytes:
    """PNG bytes with animations frozen (``clip`` in page CSS px).

    The caret is left as is: Playwright's ``caret="hide"`` leaves an empty ``style``
    attribute on inputs, a mark the page could see.
    """
    kwargs = dict(type="png", full_page=full_page and clip is None, timeout=timeout * 1000, caret="initial",
                  animations="disabled" if profile.disable_animations else "allow", scale="device")
    if clip is not None:
        x, y, w, h = clip
        kwargs["clip"] = {"x": x, "y": y, "width": max(1.0, w), "height": max(1.0, h)}
        kwargs["full_page"] = True  # clip coordinates are relative to the page, not the viewport
    png: bytes = await page.screenshot(**kwargs)
    return png


#: Pages taller than this (CSS px) get a viewport screenshot instead of a full-page one, with a warning.
MAX_FULL_PAGE_HEIGHT = 12000
#: Captures taken before a snapshot is given up as inconsistent (PNG, size and boxes disagree).
CAPTURE_ATTEMPTS = 3
#: Seconds a capture taken at once (``capture_page``'s ``verify``) may take before the page is settled first.
AT_ONCE_TIMEOUT = 3.0


def png_size(png: bytes) -> tuple[int, int]:
    """``(width, height)`` in pixels from a PNG's header."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or len(png) < 24:
        raise ValueError("not a PNG")
    return struct.unpack(">II", png[16:24])


def expected_png_size(snap: Snapshot) -> tuple[int, int]:
    """The pixel size a snapshot's PNG must have: the page size (full page) or the viewport,
    times the device scale factor."""
    w, h = snap.page_size if snap.full_page else snap.viewport
    return (round(w * snap.device_scale_factor), round(h * snap.device_scale_factor))


def consistency_problems(snap: Snapshot) -> list[str]:
    """Why a snapshot's PNG contradicts its geometry (empty when it does not, or has no PNG)."""
    if not snap.png:
        return []
    got, want = png_size(snap.png), expected_png_size(snap)
    tol = 0 if float(snap.device_scale_factor).is_integer() else 1
    if abs(got[0] - want[0]) > tol or abs(got[1] - want[1]) > tol:
        what, (w, h) = ("page size", snap.page_size) if snap.full_page else ("viewport", snap.viewport)
        return [f"PNG is {got[0]}x{got[1]} px but the {what} {int(w)}x{int(h)} x {snap.device_scale_factor:g} "
                f"is {want[0]}x{want[1]}"]
    return []


async def _read(page: Any, profile: RenderProfile, *, full_page: bool, max_elements: int, with_screenshot: bool,
                timeout: float, max_full_page_height: int, before: SettleReport,
                viewport_screenshot: Callable[[dict[str, Any]], Awaitable[bytes]] | None = None,
                before_screenshot: Callable[[], Awaitable[None]] | None = None,
                full_page_screenshot: Callable[[dict[str, Any], tuple[int, int]], Awaitable[bytes]] | None = None,
                id_salt: str = "", fresh_layout: bool = False) -> tuple[Snapshot, list[str]]:
    """One screenshot + element table in the settled state ``before``; returns the snapshot and
    the problems found (the page changed between the settle, the screenshot and the table).
    ``fresh_layout``: a full page's table is read from a layout built afresh (see capture.js)."""
    warnings: list[str] = []
    png = b""
    # every animation and transition stands still at a fixed point while the screenshot and the
    # element table are taken (an endless spinner in its own style, a fade finished), so two captures of the
    # same page agree however the machine's load timed them
    # (a viewport capture of a page with nothing running skips it: nothing starts there unasked, where a
    # full-page screenshot resizes the view and can start what watches it)
    running = before.view.get("running", 1) if before.view else 1
    frozen = (await freeze_animations(page)
              if with_screenshot and profile.disable_animations and (full_page or running) else None)
    if frozen is not None:
        # the frozen page is the state captured: the screenshot and the table are checked against it
        # (an endless animation's element, left out of the settle's layout signature while it ran,
        # now stands in its own style)
        now = await probe_layout(page)
        before = replace(before, size=(int(now["size"][0]), int(now["size"][1])), sig=int(now["sig"]),
                         view={**before.view, "running": 0} if before.view else before.view)
    try:
        return await _read_frozen(page, profile, full_page=full_page, max_elements=max_elements,
                                  with_screenshot=with_screenshot, timeout=timeout,
                                  max_full_page_height=max_full_page_height, before=before,
                                  viewport_screenshot=viewport_screenshot, before_screenshot=before_screenshot,
                                  full_page_screenshot=full_page_screenshot, id_salt=id_salt,
                                  fresh_layout=fresh_layout, warnings=warnings, png=png)
    finally:
        if frozen is not None:
            await thaw_animations(frozen)


async def _read_frozen(page: Any, profile: RenderProfile, *, full_page: bool, max_elements: int,
                       with_screenshot: bool, timeout: float, max_full_page_height: int, before: SettleReport,
                       viewport_screenshot: Callable[[dict[str, Any]], Awaitable[bytes]] | None,
                       before_screenshot: Callable[[], Awaitable[None]] | None,
                       full_page_screenshot: Callable[[dict[str, Any], tuple[int, int]], Awaitable[bytes]] | None,
                       id_salt: str, fresh_layout: bool, warnings: list[str], png: bytes) -> tuple[Snapshot, list[str]]:
    if before_screenshot is not None:
        await before_screenshot()
    shot = None
    if with_screenshot:
        if full_page and before.size[1] > max_full_page_height:
            warnings.append(
                f"page is {before.size[1]} px tall (over {max_full_page_height}): captured the viewport only")
            full_page = False
        if viewport_screenshot is not None and not full_page:
            # A CDP screenshot waits for the compositor's next frame; the element table is read-only
            # and runs on the page's main thread meanwhile (the frame is drawn after it, from the same
            # DOM). The probe at the table's end still checks that nothing moved since the settle.
            shot = asyncio.ensure_future(viewport_screenshot(before.view))
        elif full_page_screenshot is not None and full_page:
            png = await full_page_screenshot(before.view, before.size)
        else:
            png = await screenshot_page(page, profile, full_page=full_page, timeout=timeout)
    try:
        # the table comes back while the screenshot still waits for its frame: parsed meanwhile
        data, elements, after = await _element_table(page, max_elements, id_salt, profile.is_mobile,
                                                     fresh_layout=fresh_layout and full_page)
    except BaseException:
        await _cancel(shot)  # no screenshot left running behind the table's error
        raise
    if shot is not None:
        png = await shot
    return _snapshot(page, profile, data, elements, png, full_page=full_page, before=before, after=after,
                     warnings=warnings, max_elements=max_elements)


async def _element_table(page: Any, max_elements: int, id_salt: str, mobile: bool = False,
                         fresh_layout: bool = False) -> tuple[dict[str, Any], list[Element], dict[str, Any]]:
    """The element table (its raw data and elements) and the layout probe taken right after it.
    ``mobile``: the page is emulated on a phone, whose view of a page wider than its screen is the
    visual viewport (see capture.js)."""
    raw_table, after = await page.evaluate(_capture_and_probe_js(), {"maxElements": max_elements, "mobile": mobile,
                                                                     "freshLayout": fresh_layout})
    data = json.loads(raw_table)
    elements: list[Element] = []
    for raw in data["elements"]:
        path = raw.pop("path")
        parent_path = raw.pop("parent_path")
        x, y, w, h = (float(v) for v in raw.pop("box"))
        elements.append(Element(
            id=element_id(path, id_salt), path=path,
            parent=element_id(parent_path, id_salt) if parent_path else None, box=(x, y, w, h), **raw))
    return data, elements, after


async def _cancel(*jobs: asyncio.Future[Any] | None) -> None:
    for job in jobs:
        if job is not None and not job.done():
            job.cancel()
        if job is not None:
            with contextlib.suppress(BaseException):
                await job


def _snapshot(page: Any, profile: RenderProfile, data: dict[str, Any], elements: list[Element], png: bytes, *,
              full_page: bool, before: SettleReport, after: dict[str, Any], warnings: list[str],
              max_elements: int) -> tuple[Snapshot, list[str]]:
    """The snapshot of an element table and screenshot, and the problems found against the settled
    state ``before`` (the page changed between it, the screenshot and the table's probe ``after``)."""
    if data["truncated"]:
        warnings.append(f"element table truncated at {max_elements} of {data['total']} elements")
    if data.get("ready_state") != "complete":
        warnings.append("load event did not fire before the capture; captured after DOMContentLoaded")
    vw, vh = data["viewport"]
    snap = Snapshot(
        url=page.url, viewport=(int(vw), int(vh)), device_scale_factor=profile.device_scale_factor,
        scroll=(float(data["scroll"][0]), float(data["scroll"][1])), png=png,
        png_sha256=hashlib.sha256(png).hexdigest() if png else "", full_page=full_page,
        elements=elements, aria="", title=data.get("title", ""), page_size=tuple(data["page_size"]),
        warnings=warnings, truncated=bool(data["truncated"]))
    problems = consistency_problems(snap)
    size_after = tuple(after["size"])
    if tuple(snap.page_size) != tuple(before.size) or size_after != tuple(before.size):
        problems.append(f"page size changed during the capture: {tuple(before.size)} when settled, "
                        f"{tuple(snap.page_size)} in the element table, {size_after} after it")
    if int(after["sig"]) != before.sig:
        problems.append("element boxes changed between the settle and the end of the capture")
    return snap, problems


async def capture_page(page: Any, profile: RenderProfile, *, full_page: bool = False, max_elements: int = 20000,
                       with_aria: bool = True, with_screenshot: bool = True, timeout: float = 20.0,
                       max_full_page_height: int = MAX_FULL_PAGE_HEIGHT, settle_timeout: float = SETTLE_TIMEOUT,
                       pending: Callable[[], list[str]] | None = None, attempts: int = CAPTURE_ATTEMPTS,
                       viewport_screenshot: Callable[[dict[str, Any]], Awaitable[bytes]] | None = None,
                       stable_frames: int = STABLE_FRAMES, quiet_ms: int = 0,
                       before_screenshot: Callable[[], Awaitable[None]] | None = None,
                       settle_in: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]] | None = None,
                       full_page_screenshot: Callable[[dict[str, Any], tuple[int, int]],
                                                      Awaitable[bytes]] | None = None,
                       id_salt: str = "",
                       verify: Callable[[int], Awaitable[list[str]]] | None = None,
                       settle_armed_in: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]] | None = None,
                       settle_loaded_in: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]] | None = None,
                       fresh_layout: bool = False) -> Snapshot:
    """Screenshot, element table and aria snapshot of ``page``, all in one settled state.

    The page is settled first (see :mod:`webgauge.browser.settle`), then the screenshot is
    taken (animations frozen) and the elements are read in one read-only script. The snapshot
    is consistent: a full-page PNG is ``page_size x device_scale_factor`` (a viewport PNG the
    viewport's), and the page size and element boxes are the same before and after. When they
    disagree the page is settled and captured again, up to ``attempts`` times.

    A page that does not settle within ``settle_timeout``, or stays inconsistent, is returned
    with ``settled=False`` and the reason in ``warnings`` (``unsettled: ...``); callers that
    need a reproducible capture reject it (``LivePage(require_settled=True)`` raises).

    ``viewport_screenshot`` (a coroutine function of the settle report's ``view``, returning PNG
    bytes) replaces Playwright's viewport screenshot (``LivePage.viewport_png``: CDP, the same
    pixels). ``stable_frames`` and ``quiet_ms`` are passed to :func:`settle` (the arena settles
    on fewer frames plus a DOM-mutation quiet period); ``before_screenshot`` runs after the
    settle, right before the screenshot (the arena arms its change watch there); ``settle_in`` runs
    the settle script (see :func:`settle`'s ``run_js``: the arena's change watch world).
    ``full_page_screenshot`` (a coroutine function of the settle report's ``view`` and page
    ``size``) replaces Playwright's full-page screenshot (``LivePage.full_page_png``: CDP, the
    same pixels). ``id_salt`` salts the element ids (:func:`~webgauge.browser.snapshot.element_id`).
    ``fresh_layout`` (Chromium's headless shell) reads a full page's element table from a layout built
    afresh after the screenshot: there a full-page screenshot sends the tab's preferences again, which
    re-lays the text out, and an inline box Blink gave a box of its own keeps it (page 1223's span:
    20 px tall, then 17), so the table would depend on the captures taken before it.

    ``verify(quiet_ms)`` (with ``settle_armed_in``, which arms a change watch and then runs the settle
    script in its world in one round trip, and a viewport screenshot) lets a page that is already
    still skip the settle's frame: when :func:`settled_now` finds fonts, images and animations done,
    the capture is taken at once, and kept only if ``verify`` (called after it) reports no change
    since the arm up to the end of the ``quiet_ms`` quiet period; else the page is settled and
    captured as above. The snapshot kept shows a state that held, unchanged, from the last mutation
    to the end of the quiet period and a frame beyond (the screenshot's), which is what the settle
    waits for; it only comes sooner.

    ``settle_loaded_in`` (with ``verify``), for the first capture of a document whose change watch armed
    itself at the document's load (:meth:`~webgauge.browser.cdp.ChangeWatch.check_armed_at_load`),
    goes one round trip further: the screenshot (of the unscrolled viewport), the element table and
    the settle check are sent at once, with no arm before them, since the load event armed the watch
    before the browser reported it. The capture is kept when the check finds the page still,
    unscrolled and armed at its load, and ``verify`` finds no change since; else it is taken as above.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    unsettled: list[str] = []
    snap = None
    late = ""
    if (verify is not None and settle_armed_in is not None and viewport_screenshot is not None and not full_page
            and with_screenshot):
        limit = min(AT_ONCE_TIMEOUT, max(0.5, (deadline - loop.time()) / 4))
        # a request in flight (a client-rendered page fetching its data): its answer may change the
        # page, so it is waited for first, as the settle would (requests to the own origin are
        # answered in milliseconds; one still pending after the limit leaves it to the settle)
        wait_until = loop.time() + limit
        while pending and pending() and loop.time() < wait_until:
            await asyncio.sleep(0.005)
        if not (pending and pending()):
            try:
                quick = None
                if settle_loaded_in is not None:
                    quick = await asyncio.wait_for(_capture_loaded(
                        page, profile, max_elements=max_elements, viewport_screenshot=viewport_screenshot,
                        settle_loaded_in=settle_loaded_in, id_salt=id_salt, quiet_ms=quiet_ms, verify=verify,
                        pending=pending), limit)
                if quick is None:
                    quick = await asyncio.wait_for(_capture_now(
                        page, profile, max_elements=max_elements, timeout=limit,
                        max_full_page_height=max_full_page_height, viewport_screenshot=viewport_screenshot,
                        settle_armed_in=settle_armed_in, id_salt=id_salt, quiet_ms=quiet_ms, verify=verify,
                        pending=pending), limit)
            except asyncio.TimeoutError:  # settled and captured below; said in the snapshot's warnings
                quick, late = None, f"a capture taken at once did not finish within {limit:.1f}s"
            if quick is not None:
                return await _with_aria(page, quick, with_aria, deadline)
    for attempt in range(1, max(1, attempts) + 1):
        budget = max(0.5, min(settle_timeout, (deadline - loop.time()) * 0.5))  # the rest is for the capture
        report = await settle(page, timeout=budget, pending=pending, stable_frames=stable_frames, quiet_ms=quiet_ms,
                              run_js=settle_in)
        if not report.settled:  # measure where it stands, to check the capture against that
            now = await probe_layout(page)
            report.size, report.sig = (int(now["size"][0]), int(now["size"][1])), int(now["sig"])
        snap, problems = await _read(page, profile, full_page=full_page, max_elements=max_elements,
                                     with_screenshot=with_screenshot, timeout=max(1.0, deadline - loop.time()),
                                     max_full_page_height=max_full_page_height, before=report,
                                     viewport_screenshot=viewport_screenshot, before_screenshot=before_screenshot,
                                     full_page_screenshot=full_page_screenshot, id_salt=id_salt,
                                     fresh_layout=fresh_layout)
        if not report.settled:
            unsettled = report.reasons + problems
            break
        if not problems:
            unsettled = []  # an earlier attempt's disagreement is resolved
            break
        unsettled = [f"inconsistent capture after {attempt} attempt(s): " + "; ".join(problems)]
        if deadline - loop.time() < 1.5:
            break
    assert snap is not None
    if late:
        snap.warnings.append(late)
    if unsettled:
        snap.settled = False
        snap.warnings = ["unsettled: " + r for r in unsettled] + snap.warnings
    return await _with_aria(page, snap, with_aria, deadline)


async def _with_aria(page: Any, snap: Snapshot, with_aria: bool, deadline: float) -> Snapshot:
    if with_aria:
        left = deadline - asyncio.get_running_loop().time()
        try:
            snap.aria = await page.locator("body").aria_snapshot(timeout=min(10.0, max(1.0, left)) * 1000)
        except Exception as exc:  # a huge or stuck page: keep the rest of the capture
            snap.warnings.append(f"aria snapshot unavailable: {str(exc).splitlines()[0][:200]}")
    return snap


async def _capture_now(page: Any, profile: RenderProfile, *, max_elements: int, timeout: float,
                       max_full_page_height: int, viewport_screenshot: Callable[[dict[str, Any]], Awaitable[bytes]],
                       settle_armed_in: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]],
                       id_salt: str, quiet_ms: int, verify: Callable[[int], Awaitable[list[str]]],
                       pending: Callable[[], list[str]] | None = None) -> Snapshot | None:
    """A viewport capture of a page that is still now, taken without waiting for a frame, kept when
    ``verify`` finds no change from the watch's arm to the end of the quiet period; None: settle first."""
    # armed with the check, in one round trip: a change from here on is seen
    now = await settled_now(page, quiet_ms=quiet_ms, run_js=settle_armed_in)
    if not now.settled:
        return None
    snap, problems = await _read(page, profile, full_page=False, max_elements=max_elements, with_screenshot=True,
                                 timeout=timeout, max_full_page_height=max_full_page_height, before=now,
                                 viewport_screenshot=viewport_screenshot, id_salt=id_salt)
    return await _kept(snap, problems, verify, quiet_ms, pending)


async def _kept(snap: Snapshot, problems: list[str], verify: Callable[[int], Awaitable[list[str]]], quiet_ms: int,
                pending: Callable[[], list[str]] | None) -> Snapshot | None:
    """A capture taken at once, if it is kept: consistent, no change from the watch's arm to the end of
    the quiet period (``verify``), and no request of the page in flight; else None."""
    if problems or await verify(quiet_ms):
        return None
    if pending and pending():  # a request started during the capture: its answer may change the page
        return None
    return snap


#: The view of a document as it loads, unscrolled and unzoomed (no animation running): the clip of
#: a screenshot sent before the page is asked (:func:`_capture_loaded`; kept only if the page says so).
_UNSCROLLED: dict[str, Any] = {"running": 0, "vv": [0, 0, 1]}


async def _capture_loaded(page: Any, profile: RenderProfile, *, max_elements: int,
                          viewport_screenshot: Callable[[dict[str, Any]], Awaitable[bytes]],
                          settle_loaded_in: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]],
                          id_salt: str, quiet_ms: int, verify: Callable[[int], Awaitable[list[str]]],
                          pending: Callable[[], list[str]] | None = None) -> Snapshot | None:
    """A viewport capture of a document whose change watch armed itself at its load: screenshot,
    element table and settle check sent at once (no arm first: the load came before the browser told
    of it, and so before the screenshot's frame), kept when the check finds the page still, unscrolled
    and armed at its load, and ``verify`` finds no change since the load to the end of the quiet
    period; None: capture it with an arm of its own (:func:`_capture_now`)."""
    shot = asyncio.ensure_future(viewport_screenshot(_UNSCROLLED))
    check = asyncio.ensure_future(settle_loaded_in(_settle_js(), now_arg(quiet_ms, tracker=True)))
    try:
        data, elements, after = await _element_table(page, max_elements, id_salt, profile.is_mobile)
        res = await check
        png = await shot
    except BaseException:
        await _cancel(shot, check)
        raise
    now = now_report(res)
    vv = now.view.get("vv") if now.view else None
    if not (res.get("armed_at_load") and now.settled and vv is not None
            and [float(v) for v in vv] == [0.0, 0.0, 1.0]):
        return None
    snap, problems = _snapshot(page, profile, data, elements, png, full_page=False, before=now, after=after,
                               warnings=[], max_elements=max_elements)
    return await _kept(snap, problems, verify, quiet_ms, pending)
