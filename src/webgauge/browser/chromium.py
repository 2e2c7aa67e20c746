"""Finding the system Chromium and the flags it is launched with."""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from functools import lru_cache
from pathlib import Path

from .errors import ChromiumNotFound

__all__ = ["find_chromium", "chromium_version", "LAUNCH_FLAGS", "ENV_VAR", "HEADLESS_SHELL",
           "installed_headless_shell", "is_headless_shell", "browser_label"]

ENV_VAR = "WEBGAUGE_CHROMIUM"

#: Chromium features turned off: Playwright's own list (it passes them in a --disable-features
#: switch that ours replaces), then ours (no translate bar, no hint or media-router traffic).
DISABLED_FEATURES = (
    # Playwright 1.65's (chromiumSwitches.ts): PaintHolding among them, which otherwise holds a
    # same-origin navigation's first paint back
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding", "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin", "OptimizationHints",
    "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch", "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
    # ours
    "Translate", "InterestFeedContentSuggestions",
    # (RenderDocument stays on: off, navigations cost less CPU, but Playwright's screenshot of a page
    # whose load never fires waits out its time limit, and the arena's captures at once stop matching
    # settled ones; docs/performance.md, "Launch flags")
)

#: Flags that keep Chromium quiet, offline and deterministic on a headless machine.
LAUNCH_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-default-apps",
    "--disable-domain-reliability",
    # One --disable-features switch counts, the last: this one follows Playwright's, so it names
    # Playwright's features too (its 1.65 list; tests/browser/test_capture.py checks the launched
    # command line) and ours.
    "--disable-features=" + ",".join(DISABLED_FEATURES),
    "--font-render-hinting=none",
    "--force-color-profile=srgb",
    "--disable-lcd-text",
    "--no-default-browser-check",
    "--metrics-recording-only",
    "--password-store=basic",
    # lazy images load like eager ones: a full-page capture never depends on scroll history or timing
    "--blink-settings=lazyLoadEnabled=false",
)

_CANDIDATES = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/lib/chromium/chromium",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/snap/bin/chromium",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)

#: Chromium's headless shell (Debian: ``chromium-headless-shell``, the same engine and version as
#: ``chromium``, without the browser's UI layer; Playwright's default for headless runs). Every
#: headless launch takes it when installed: a navigation with its capture costs about 27% less CPU
#: and 20% less time (docs/performance.md, "Headless shell"); the full browser runs without it, or
#: with ``Browser.launch(headless_shell=False)``.
HEADLESS_SHELL = ("/usr/bin/chromium-headless-shell", "/usr/lib/chromium/chromium-headless-shell",
                  "chromium-headless-shell")

#: How to install the headless shell (the warning below and ``webgauge doctor`` give it).
SHELL_FIX = "Install it with `sudo apt-get install -y chromium-headless-shell` (`make bootstrap` does)."

_FIX = (
    "Install it with `sudo apt-get install -y chromium` (Debian/Ubuntu; `make demo` and "
    "`make test` do this for you), or point webgauge at a Chromium/Chrome binary with "
    f"`--chromium PATH` or the environment variable {ENV_VAR}=PATH."
)


def find_chromium(executable: str | os.PathLike[str] | None = None, *, headless_shell: bool = False) -> str:
    """Return the path of the Chromium to launch.

    Order: the explicit ``executable`` argument (a CLI ``--chromium`` option), the
    ``WEBGAUGE_CHROMIUM`` environment variable, then (``headless_shell``) Chromium's headless
    shell when installed (:data:`HEADLESS_SHELL`; else the full browser, with a warning naming
    the package), then well-known system locations and ``PATH``. Raises
    :class:`ChromiumNotFound` naming the fix when none is usable.
    """
    for source, value in (("--chromium", executable), (ENV_VAR, os.environ.get(ENV_VAR))):
        if value:
            path = Path(value).expanduser()
            if path.is_file() and os.access(path, os.X_OK):
                return str(path)
            raise ChromiumNotFound(f"{source} points at {str(value)!r}, which is not an executable file. {_FIX}")
    if headless_shell:
        shell = installed_headless_shell()
        if shell:
            return shell
        _warn_no_shell()
    for cand in _CANDIDATES:
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    raise ChromiumNotFound(f"No Chromium found on this machine. {_FIX}")


def installed_headless_shell() -> str | None:
    """The path of Chromium's headless shell (:data:`HEADLESS_SHELL`), or None when it is not installed."""
    for cand in HEADLESS_SHELL:
        found = cand if os.path.isabs(cand) else shutil.which(cand)
        if found and os.path.isfile(found) and os.access(found, os.X_OK):
            return found
    return None


def is_headless_shell(executable: str | os.PathLike[str]) -> bool:
    """Whether ``executable`` is Chromium's headless shell (Debian's ``chromium-headless-shell``,
    Playwright's ``chrome-headless-shell``), by its file name."""
    name = Path(executable).name.lower()
    return "headless-shell" in name or "headless_shell" in name


@lru_cache(maxsize=1)
def _warn_no_shell() -> None:
    warnings.warn("Chromium's headless shell is not installed: webgauge runs on the full browser, about "
                  f"20% slower. {SHELL_FIX}", RuntimeWarning, stacklevel=3)


def browser_label(executable: str | None = None, *, headless_shell: bool = True) -> str:
    """Which browser runs, for a run's record: the binary's name and the version it prints
    (``chromium-headless-shell: Chromium 156.0.8078.114``); the error text when there is none."""
    try:
        exe = find_chromium(executable, headless_shell=headless_shell)
        return f"{Path(exe).name}: {chromium_version(exe)}"
    except Exception as exc:  # noqa: BLE001 - recorded, not hidden
        return f"error: {type(exc).__name__}: {exc}"


@lru_cache(maxsize=8)
def chromium_version(executable: str | None = None) -> str:
    """The version string Chromium prints (e.g. ``Chromium 156.0.8078.108``)."""
    exe = find_chromium(executable)
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    return (out.stdout or out.stderr).strip()
