"""Where pages come from: files, folders, loopback URLs, and (in :mod:`.synthetic`)
the seeded synthetic page generator."""

from .capture import CaptureResult, capture_pages
from .corpus import CorpusMissing, real_pages_dir, require_real_pages
from .server import StaticServer
from .source import HTML_SUFFIXES, PageRef, load_pages, serve_pages

__all__ = ["PageRef", "load_pages", "serve_pages", "StaticServer", "capture_pages", "CaptureResult", "HTML_SUFFIXES",
           "real_pages_dir", "require_real_pages", "CorpusMissing"]
