"""Shared fixtures: a real system Chromium and the real pages from ../shared."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import pytest_asyncio
from hypothesis import settings

FAST_TIER_ENV = "WEBGAUGE_TEST_TIER"

# Hypothesis: no per-example deadline (three workers share two cores, so wall time per example is
# noise), and the example database kept out of the tree. CI derandomizes, so a landing run is
# reproducible; locally each run explores new examples.
settings.register_profile("webgauge", deadline=None, database=None, print_blob=True,
                          derandomize=bool(os.environ.get("CI")))
settings.load_profile("webgauge")


def pytest_configure(config: pytest.Config) -> None:
    """In the fast tier (``make test-fast``) Chromium is replaced by a stand-in that fails naming the
    missing ``browser`` mark, so a browser test that escaped the mark cannot slow the tier down unseen."""
    if os.environ.get(FAST_TIER_ENV) == "fast":
        os.environ["WEBGAUGE_CHROMIUM"] = str(Path(__file__).parent / "tier" / "chromium")


#: Folders whose session fixtures build something slow (a benchmark, an instance set): under
#: pytest-xdist their tests share one worker, so it is built once.
_ONE_WORKER_FOLDERS = {"understand", "design2code"}


def _scope_of(nodeid: str) -> str:
    """The unit of work one pytest-xdist worker takes whole: the test's file, or its folder for a
    folder of :data:`_ONE_WORKER_FOLDERS` (its module and session fixtures are then made once)."""
    path = nodeid.split("::", 1)[0]
    parts = path.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "tests" and parts[1] in _ONE_WORKER_FOLDERS else path


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``realapps`` need an installed real app: they run only when ``-m`` names the mark
    (``make test-realapps``, ``pytest -m realapps``), wherever they live."""
    if "realapps" in (config.option.markexpr or ""):
        return
    dropped = [i for i in items if i.get_closest_marker("realapps")]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if not i.get_closest_marker("realapps")]


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """With ``--dist loadgroup`` (``make test``) each test file goes whole to one worker, and each
    folder of :data:`_ONE_WORKER_FOLDERS` too. A scheduler of our own, not ``xdist_group`` marks:
    pytest-xdist 3.8 groups by a suffix it writes into ``item._nodeid``, which pytest 9 no longer
    reads, so under pytest 9 the marks split every file across both workers."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FileOrFolderScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _scope_of(nodeid)

    return FileOrFolderScheduling(config, log)


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


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def arena_browser(browser):
    """The arena's browser: the session's one, Chromium's headless shell as the arena runner launches
    it (the arena test folders make it their ``browser``)."""
    return browser


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
