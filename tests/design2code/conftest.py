"""Fixtures for the design2code tests: one small built instance set shared by the session, made
with the session's one Chromium (the ``browser`` fixture of tests/conftest.py).
"""

from pathlib import Path

import pytest
import pytest_asyncio


@pytest.fixture(scope="session")
def real_pages() -> Path:
    """The real-page corpus; a missing corpus fails the test with CorpusMissing naming WEBGAUGE_SHARED."""
    from webgauge.pages import require_real_pages

    return require_real_pages()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def instances(browser, tmp_path_factory, real_pages):
    """One synthetic 2-page instance (seed 5) and one real page, built once at a 960x600
    viewport (fewer pixels per page on this small machine; scoring reuses the instance's)."""
    from webgauge.browser import RenderProfile
    from webgauge.design2code.dataset import build_instances

    root = tmp_path_factory.mktemp("d2c-instances")
    insts, failures = await build_instances(root, synthetic=1, seed=5, pages_per_site=2, real=real_pages,
                                            real_limit=1, browser=browser, progress=False,
                                            profile=RenderProfile(width=960, height=600))
    assert failures == []
    return root, {i.kind: i for i in insts}
