"""Shared fixtures: a real system Chromium and the real pages from ../shared."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import pytest_asyncio

FAST_TIER_ENV = "WEBGAUGE_TEST_TIER"


def pytest_configure(config: pytest.Config) -> None:
    """In the fast tier (``make test-fast``) Chromium is replaced by a stand-in that fails naming the
    missing ``browser`` mark, so a browser test that escaped the mark cannot slow the tier down unseen."""
    if os.environ.get(FAST_TIER_ENV) == "fast":
        os.environ["WEBGAUGE_CHROMIUM"] = str(Path(__file__).parent / "tier" / "chromium")


#: Folders whose session fixtures build something slow (a benchmark, an instance set): under
#: pytest-xdist their tests share one worker, so it is built once.
_ONE_WORKER_FOLDERS = {"understand", "design2code"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist with ``--dist loadgroup`` (``make test``), each test file runs on one worker
    (its module fixtures, such as an arena server and its worlds, are made once) and so does each
    folder of :data:`_ONE_WORKER_FOLDERS`; each worker has its own Chromium."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        parts = item.path.relative_to(config.rootpath).parts
        folder = parts[1] if len(parts) > 2 and parts[0] == "tests" else ""
        item.add_marker(pytest.mark.xdist_group(folder if folder in _ONE_WORKER_FOLDERS else "/".join(parts)))


@pytest.fixture
def real_pages_dir() -> Path:
    """The real-page corpus, found by the one locator; a missing corpus fails and names WEBGAUGE_SHARED."""
    from webgauge.pages import CorpusMissing, require_real_pages

    try:
        return require_real_pages()
    except CorpusMissing as exc:
        pytest.fail(str(exc))


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser():
    """One real Chromium for the session (launching one per test cost about a second each on two
    cores): every page is its own browser context, and an env keeps its own page pool, so a test
    sees nothing of another's pages. A test that needs other launch flags launches its own."""
    from webgauge.browser import Browser

    async with Browser.launch() as b:
        yield b


@pytest.fixture
def cpu_hog():
    """A process burning one core beside the test (it stops by itself after 300 s, and is killed
    when the test ends): captures must stay identical on a busy machine."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c",
                             "import time\nend = time.time() + 300\nwhile time.time() < end: pass"])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture
def child_pids():
    """``child_pids(pid)``: the pids of a process's children, from /proc (Linux; none once it is gone)."""

    def children(pid: int) -> list[int]:
        try:
            return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            return []

    return children


@pytest.fixture
def require_module():
    """``require_module(name, extra)``: import an optional dependency a test needs, or fail naming the
    extra that provides it (never skip)."""
    import importlib

    def require(name: str, extra: str):
        try:
            return importlib.import_module(name)
        except ImportError as exc:
            pytest.fail(f"{name} is missing ({exc}); install it with `pip install -e .[{extra}]` "
                        "(or `make bootstrap`)", pytrace=False)

    return require
