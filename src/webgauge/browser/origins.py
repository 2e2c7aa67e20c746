"""Origins: the scheme, host and port a page may reach, and whether a URL is on loopback."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def origin_of(url: str) -> str:
    """``scheme://host:port`` of a URL (ports made explicit)."""
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443, "ws": 80, "wss": 443}.get(parts.scheme, 0)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}:{port}"


def is_loopback_url(url: str) -> bool:
    """True when the URL's host is on this machine (127.0.0.0/8, ::1 or localhost)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


