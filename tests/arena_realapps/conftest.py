"""Real-app tests run only when asked for with ``-m realapps`` (they need
``webgauge arena apps install roundup`` first); the default test run deselects them
(tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def roundup_server():
    from webgauge.arena.realapps.roundup import app as roundup

    roundup.SPEC.require()  # a clear error naming the install command when it is missing
    with roundup.RoundupServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def mediawiki_server():
    from webgauge.arena.realapps.mediawiki import app as mediawiki

    mediawiki.SPEC.require()
    with mediawiki.MediaWikiServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def oscar_server():
    from webgauge.arena.realapps.oscar import app as oscar

    oscar.SPEC.require()
    with oscar.OscarServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def trac_server():
    from webgauge.arena.realapps.trac import app as trac

    trac.SPEC.require()
    with trac.TracServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def spirit_server():
    from webgauge.arena.realapps.spirit import app as spirit

    spirit.SPEC.require()
    with spirit.SpiritServer() as srv:
        yield srv


@pytest.fixture(scope="session")
def browser(arena_browser):
    """The arena's tests run on the arena's browser (Chromium's headless shell; tests/conftest.py)."""
    return arena_browser
