"""Keep the task's viewport after BrowserGym's screenshot.

BrowserGym 0.14.3 takes its screenshot through a CDP session of its own: it overrides the
device metrics, captures, "restores" them and detaches. With current Chromium the detach
drops the page's viewport emulation altogether, so from the first observation on the page
lays out at the headless window's size (780x493 CSS px here) instead of the task's viewport,
and responsive layouts switch (a phone task shows the desktop page). After each screenshot
this wrapper re-applies the viewport Playwright holds for the page, before and after each
screenshot, when the page's size no longer matches it, through a CDP session of its own that
stays attached (so no detach drops it); with a Chromium that keeps the emulation it does nothing.
"""

from __future__ import annotations

__all__ = ["install"]

_SIZE_JS = "() => [window.innerWidth, window.innerHeight]"
# the size once the next frame has been laid out (a detach's resize has reached the page by then)
_SIZE_NEXT_FRAME_JS = ("() => new Promise((r) => { const s = () => r([window.innerWidth, window.innerHeight]); "
                       "requestAnimationFrame(s); setTimeout(s, 100); })")


def install() -> bool:
    """Wrap ``browsergym.core.env.extract_screenshot`` once; True when this call installed it."""
    from browsergym.core import env as bgym_env

    original = bgym_env.extract_screenshot
    if getattr(original, "_webgauge_viewport_fix", False):
        return False

    def keep_viewport(page, next_frame: bool = False) -> None:
        vp = page.viewport_size
        if not vp:
            return
        try:
            w, h = page.evaluate(_SIZE_NEXT_FRAME_JS if next_frame else _SIZE_JS)
            if (int(w), int(h)) == (vp["width"], vp["height"]):
                return
            cdp = getattr(page, "_webgauge_cdp", None)
            if cdp is None:
                cdp = page.context.new_cdp_session(page)
                page._webgauge_cdp = cdp  # kept attached for the page's life
            cdp.send("Emulation.setDeviceMetricsOverride", {"width": vp["width"], "height": vp["height"],
                                                            "deviceScaleFactor": 0, "mobile": False})
        except Exception:  # a page closing or navigating: the next observation checks again
            pass

    def extract_screenshot(page, *args, **kwargs):
        # before: a tab the last action opened, or a page whose emulation an earlier detach dropped, is
        # shot at the task's size; after: the screenshot session's detach drops the emulation, and the
        # page's size follows at its next frame, so it is read there
        keep_viewport(page)
        img = original(page, *args, **kwargs)
        keep_viewport(page, next_frame=True)
        return img

    extract_screenshot._webgauge_viewport_fix = True
    bgym_env.extract_screenshot = extract_screenshot
    return True
