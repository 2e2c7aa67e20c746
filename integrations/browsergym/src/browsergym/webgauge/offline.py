"""``python -m browsergym.webgauge.offline``: BrowserGym (and AgentLab) ready to run with no download.

    python -m browsergym.webgauge.offline                     # the system Chromium found on PATH
    python -m browsergym.webgauge.offline --chromium /usr/bin/chromium

BrowserGym starts two browsers through Playwright: the page's (``BrowserEnv``) and the chat
window's (``Chat``), both from Playwright's bundled Chromium path, which ``playwright install
chromium`` fills by downloading a build. Offline, this command links that path (for the
Playwright this environment holds, under ``PLAYWRIGHT_BROWSERS_PATH`` or Playwright's default
folder) to the system Chromium, so both browsers start it with no further argument. A real
bundled build already there is left alone.

When BrowserGym's WebArena package is installed (AgentLab installs it, and imports it whatever
the benchmark), importing it downloads NLTK's ``punkt_tab`` unless it is found. This command then
writes an empty ``punkt_tab`` folder into this environment's NLTK data folder, so the import goes
on offline; WebArena's own evaluators, which need the real data (and WebArena's servers), stay
unusable. An existing ``punkt_tab`` is left alone.

Prints one line per change and exits 1 with a one-line reason when no Chromium is found.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

__all__ = ["bundled_chromium_path", "link_chromium", "main", "stub_punkt_tab", "system_chromium"]

MARK = "webgauge-offline-stub"


def system_chromium() -> str | None:
    """The system Chromium on PATH (Debian's ``chromium``, or ``chromium-browser``)."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def bundled_chromium_path() -> Path:
    """Where this environment's Playwright looks for its bundled Chromium executable."""
    import playwright

    data = json.loads((Path(playwright.__file__).parent / "driver" / "package" / "browsers.json").read_text())
    rev = next(b["revision"] for b in data["browsers"] if b["name"] == "chromium")
    base = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(Path.home() / ".cache" / "ms-playwright")
    return Path(base) / f"chromium-{rev}" / "chrome-linux" / "chrome"


def link_chromium(chromium: str) -> str:
    """Link Playwright's bundled Chromium path to ``chromium``; returns what was done."""
    target = bundled_chromium_path()
    if target.exists() and not target.is_symlink():
        return f"{target}: a bundled Chromium is installed there; left as it is"
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink():
        if os.readlink(target) == chromium:
            return f"{target} -> {chromium} (already)"
        target.unlink()
    target.symlink_to(chromium)
    return f"{target} -> {chromium}"


def stub_punkt_tab() -> str | None:
    """An empty NLTK ``punkt_tab`` for BrowserGym's WebArena import (see module docstring), or None
    when that package is not installed."""
    if importlib.util.find_spec("browsergym.webarena") is None:
        return None
    import nltk

    try:
        nltk.data.find("tokenizers/punkt_tab")
        return "nltk punkt_tab: found; left as it is"
    except LookupError:
        pass
    folder = Path(sys.prefix) / "share" / "nltk_data" / "tokenizers" / "punkt_tab"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{MARK}.txt").write_text(
        "Empty on purpose (python -m browsergym.webgauge.offline): importing browsergym.webarena, as AgentLab\n"
        "does, would otherwise download NLTK's punkt_tab. WebArena's evaluators need the real data.\n")
    return f"{folder}: empty placeholder (WebArena's evaluators need the real punkt_tab)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m browsergym.webgauge.offline", description=__doc__.split("\n")[0])
    ap.add_argument("--chromium", help="the Chromium executable to run (default: chromium on PATH)")
    a = ap.parse_args(argv)
    chromium = a.chromium or system_chromium()
    if not chromium or not Path(chromium).is_file():
        print(f"no Chromium at {chromium!r}: install the system's (Debian: apt-get install chromium) "
              "or pass --chromium PATH", file=sys.stderr)
        return 1
    print(f"Playwright's Chromium (page and chat browsers): {link_chromium(os.path.abspath(chromium))}")
    stub = stub_punkt_tab()
    if stub:
        print(stub)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
