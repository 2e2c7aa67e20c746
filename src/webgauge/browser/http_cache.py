"""The HTTP cache that request interception takes away, put back for an app's static sub-resources.

Every page routes all of its requests through Playwright (the arena's approval gate, the offline
rule, slow-load delays), and Chromium turns its own HTTP cache off for a routed context: every
stylesheet, script, font and image is fetched again from the app's server on every page load. A
real app's page pulls 5-25 of them, each a round trip through Python and the app's server (PHP's
``load.php``, Django's static view), so a page load took 1.4-1.9x what it takes with the cache on.

:class:`HttpCache` is a private cache after RFC 9111, kept by the :class:`~webgauge.browser.Browser`
and shared by the pages that ask for it (the arena's episode pages). It stores only what a
browser's own cache would serve without asking the server again:

- ``GET`` requests of the sub-resource kinds ``stylesheet``, ``script``, ``font`` and ``image``
  (never a document, XHR or fetch: those carry the app's state) without a ``Range`` header;
- responses with status 200 whose ``Cache-Control`` has none of ``no-store``, ``no-cache``,
  ``private=`` field lists or ``max-age=0``, no invalid ``max-age`` and no two that disagree (nor
  ``Pragma: no-cache``), whose ``Vary`` is not ``*``;
- for as long as they are fresh: ``max-age``, else ``Expires`` minus ``Date``, else one tenth of
  the time since ``Last-Modified`` (the heuristic of RFC 9111 section 4.2.2, capped at a day);
  a response with none of them is not stored.

An entry is keyed by the URL and the request's values of the headers its ``Vary`` names (Django's
static files vary by ``Cookie``: a sign-in fetches them again). The cache holds at most
``max_bytes`` (least recently used entries go first) and counts its hits and misses.
"""

from __future__ import annotations

import email.utils
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = ["CACHEABLE_KINDS", "CachedResponse", "HttpCache", "freshness_seconds"]

CACHEABLE_KINDS = frozenset({"stylesheet", "script", "font", "image"})
HEURISTIC_CAP_S = 86_400.0  # a heuristic lifetime is at most a day (RFC 9111 suggests a bound)
_WIRE_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"})
_DIRECTIVE = re.compile(r"\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*(?:=\s*(\"[^\"]*\"|[^,]*))?\s*(?:,|$)")


def _directives(value: str) -> dict[str, list[str]]:
    """Each directive of a ``Cache-Control`` value with all the values it was given (a repeated one has several)."""
    out: dict[str, list[str]] = {}
    for m in _DIRECTIVE.finditer(value or ""):
        if m.group(1):
            out.setdefault(m.group(1).lower(), []).append((m.group(2) or "").strip().strip('"'))
    return out


def _date(value: str | None) -> float | None:
    if not value:
        return None
    try:
        d = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return d.timestamp() if d is not None and d.tzinfo is not None else None


def freshness_seconds(method: str, resource_type: str, status: int, request_headers: Mapping[str, str],
                      response_headers: Mapping[str, str], now: float | None = None) -> float:
    """How many seconds this response may be served from the cache without asking the server
    (0: not stored). Header names in both mappings are lower case, as Playwright gives them."""
    if method.upper() != "GET" or resource_type not in CACHEABLE_KINDS or status != 200:
        return 0.0
    if "range" in request_headers or "authorization" in request_headers:
        return 0.0
    cc = _directives(response_headers.get("cache-control", ""))
    if {"no-store", "no-cache"} & cc.keys() or "no-cache" in response_headers.get("pragma", "").lower():
        return 0.0
    if any(cc.get("private", ())):  # private="Set-Cookie": those fields may not be stored
        return 0.0
    if "*" in response_headers.get("vary", ""):
        return 0.0
    if "max-age" in cc:
        # an invalid max-age, or several that disagree, make the response stale (RFC 9111 sections 1.2.2, 4.2.1)
        if len(set(cc["max-age"])) != 1 or not cc["max-age"][0].isdigit():
            return 0.0
        return float(int(cc["max-age"][0]))
    now = time.time() if now is None else now
    served = _date(response_headers.get("date")) or now
    if "expires" in response_headers:
        expires = _date(response_headers["expires"])
        return max(0.0, expires - served) if expires is not None else 0.0
    modified = _date(response_headers.get("last-modified"))
    if modified is not None and modified < served:
        return min(HEURISTIC_CAP_S, (served - modified) / 10)
    return 0.0


_Key = tuple[str, tuple[tuple[str, str], ...]]  # the URL and the request's values of the headers it varies by


@dataclass(frozen=True)
class CachedResponse:
    status: int
    headers: dict[str, str]
    body: bytes
    expires_at: float  # on the monotonic clock


class HttpCache:
    """A private HTTP cache of sub-resources (see the module): ``lookup`` before a request leaves,
    ``store`` after its response came back."""

    def __init__(self, max_bytes: int = 128 << 20, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_bytes = max_bytes
        self._clock = clock
        self._entries: OrderedDict[_Key, CachedResponse] = OrderedDict()
        self._vary: dict[str, tuple[str, ...]] = {}  # url -> the request headers its last stored response varies by
        self.bytes = 0
        self.hits = 0
        self.misses = 0
        self.stored = 0

    def _key(self, url: str, request_headers: Mapping[str, str], vary: tuple[str, ...]) -> _Key:
        return url, tuple((h, request_headers.get(h, "")) for h in vary)

    def lookup(self, method: str, resource_type: str, url: str,
               request_headers: Mapping[str, str]) -> CachedResponse | None:
        """The fresh stored response for this request, or None (counted as a miss when it could have been one)."""
        if method.upper() != "GET" or resource_type not in CACHEABLE_KINDS or "range" in request_headers:
            return None
        key = self._key(url, request_headers, self._vary.get(url, ()))
        entry = self._entries.get(key)
        if entry is not None and entry.expires_at > self._clock():
            self._entries.move_to_end(key)
            self.hits += 1
            return entry
        if entry is not None:
            self._drop(key)
        self.misses += 1
        return None

    def store(self, method: str, resource_type: str, url: str, request_headers: Mapping[str, str], status: int,
              response_headers: Mapping[str, str], body: bytes) -> bool:
        """Keep the response if a browser's cache would (see :func:`freshness_seconds`); True when kept."""
        lifetime = freshness_seconds(method, resource_type, status, request_headers, response_headers)
        if lifetime <= 0 or len(body) > self.max_bytes // 8:
            return False
        vary = tuple(sorted({h.strip().lower() for h in response_headers.get("vary", "").split(",") if h.strip()}
                            - {"accept-encoding"}))
        self._vary[url] = vary
        key = self._key(url, request_headers, vary)
        if key in self._entries:
            self._drop(key)
        # the body is kept decoded (as Playwright gives it): no encoding or length of the wire's bytes
        headers = {k: v for k, v in response_headers.items() if k.lower() not in _WIRE_HEADERS}
        self._entries[key] = CachedResponse(status, headers, body, self._clock() + lifetime)
        self.bytes += len(body)
        self.stored += 1
        while self.bytes > self.max_bytes and self._entries:
            self._drop(next(iter(self._entries)))
        return True

    def _drop(self, key: _Key) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self.bytes -= len(entry.body)

    def clear(self) -> None:
        self._entries.clear()
        self._vary.clear()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._entries)
