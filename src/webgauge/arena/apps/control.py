"""The harness side of the control API: a small HTTP client (stdlib, no proxies, one kept-alive
connection per thread), and an in-process client for a server running in the same process (no
HTTP round trip).

Only the harness holds a control client; agents never see the control URL.
"""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any
from urllib.parse import urlsplit

__all__ = ["ControlClient", "LocalControlClient", "ControlError", "KeptAliveHTTP", "json_call"]


class ControlError(RuntimeError):
    """The control API refused a request (the message says why)."""


class KeptAliveHTTP:
    """Requests to one base URL, each calling thread on its own kept-alive HTTP/1.1 connection
    (stdlib, no proxies): a connection, a server thread and a name lookup per request cost three
    times the request itself. A kept-alive connection the server closed is noticed before any
    answer and the request sent once more on a new one. Pickles without its connections."""

    def __init__(self, url: str, timeout: float) -> None:
        u = urlsplit(url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError(f"URL {url!r}: expected http://HOST:PORT[/PATH]")
        self.timeout = timeout
        self._scheme, self._host, self._port, self._prefix = u.scheme, u.hostname, u.port, u.path.rstrip("/")
        self._local = threading.local()

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_local": None}  # connections stay with the process that opened them

    def __setstate__(self, d: dict) -> None:
        self.__dict__.update(d)
        self._local = threading.local()

    def request(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> tuple[int, bytes]:
        """``(status, body)`` of one request."""
        for attempt in (0, 1):
            conn = getattr(self._local, "conn", None)
            reused = conn is not None
            if conn is None:
                cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
                conn = self._local.conn = cls(self._host, self._port, timeout=self.timeout)
            try:
                conn.request(method, self._prefix + path, body=body, headers=headers)
                resp = conn.getresponse()
                return resp.status, resp.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                conn.close()
                self._local.conn = None
                if reused and attempt == 0:
                    continue
                raise
            except BaseException:
                conn.close()  # a timeout or an error mid-answer: the connection's state is unknown
                self._local.conn = None
                raise
        raise AssertionError("unreachable")


def json_call(transport: KeptAliveHTTP, method: str, path: str, payload: dict | None,
              headers: dict[str, str] | None = None) -> Any:
    """One JSON request; an HTTP error answer raises :class:`ControlError` naming it."""
    data = json.dumps(payload).encode() if payload is not None else None
    status, body = transport.request(method, path, data,
                                {**({"Content-Type": "application/json"} if data is not None else {}),
                                 **(headers or {})})
    if status >= 400:
        raise ControlError(f"{method} {path}: HTTP {status}: {body.decode('utf-8', 'replace')}")
    return json.loads(body)


class ControlClient:
    in_process = False

    def __init__(self, control_url: str, timeout: float = 10.0) -> None:
        self.url = control_url.rstrip("/")
        self.timeout = timeout
        self._http = KeptAliveHTTP(self.url, timeout)
        # per episode: the last state read and its tables' hashes (the next read asks only for the rest)
        self._held: dict[str, tuple[dict, dict[str, str]]] = {}

    def _call(self, method: str, path: str, payload: dict | None = None) -> Any:
        return json_call(self._http, method, path, payload)

    def create(self, seed: int, episode_id: str | None = None) -> dict:
        """A new episode at ``seed``: ``{"id", "base_url", "seed_hash"}``."""
        return self._call("POST", "/episodes", {"seed": seed, **({"id": episode_id} if episode_id else {})})

    def reset(self, eid: str, seed: int | None = None) -> dict:
        return self._call("POST", f"/episodes/{eid}/reset", {} if seed is None else {"seed": seed})

    def state(self, eid: str) -> tuple[dict, str]:
        """``(state, hash)``: every table as row dicts (bytes as ``{"__bytes__": hex}``). The server
        sends only the tables whose hash differs from the last read of this episode; the others
        are that read's row lists, the same objects (treat them as read-only), so a diff of two
        reads skips them without comparing rows."""
        held_state, held_hashes = self._held.get(eid, ({}, {}))
        r = self._call("POST", f"/episodes/{eid}/state", {"have": held_hashes})
        sent = r["state"]
        state = {t: sent[t] if t in sent else held_state[t] for t in r["tables"]}
        self._held[eid] = (state, r["tables"])
        return dict(state), r["hash"]

    def inflight(self, eid: str) -> int:
        """How many app requests of this episode the server is handling right now."""
        return self._call("GET", f"/episodes/{eid}/inflight")["inflight"]

    def hash(self, eid: str, fresh: bool = False) -> str:
        """The state hash (``fresh``: every table re-read, not taken from the change-tracked caches)."""
        if fresh:
            return self._call("POST", f"/episodes/{eid}/hash", {"fresh": True})["hash"]
        return self._call("GET", f"/episodes/{eid}/hash")["hash"]

    def writes(self, eid: str) -> list[dict]:
        return self._call("GET", f"/episodes/{eid}/writes")["writes"]

    def set_flags(self, eid: str, **flags: Any) -> dict:
        return self._call("POST", f"/episodes/{eid}/flags", flags)["flags"]

    def set_clock(self, eid: str, now: str) -> str:
        return self._call("POST", f"/episodes/{eid}/clock", {"now": now})["now"]

    def set_gate(self, eid: str, enforce: bool) -> bool:
        """Make the episode's approval gate refuse unapproved irreversible requests (or only record them)."""
        return self._call("POST", f"/episodes/{eid}/gate", {"enforce": bool(enforce)})["enforce"]

    def approve(self, eid: str, control: str | None, reason: str = "") -> dict:
        """Record one approval for ``control`` (None: the first gated control used): ``{"id", "control", "reason"}``."""
        return self._call("POST", f"/episodes/{eid}/approvals", {"control": control, "reason": reason})

    def close_step(self, eid: str, since: int = 0, lapse_through: int | None = None) -> dict:
        """``{"events": gated requests after number since, "lapsed": unused approvals numbered up to
        lapse_through}``."""
        return self._call("POST", f"/episodes/{eid}/step", {"since": since, "lapse_through": lapse_through})

    def gate(self, eid: str) -> dict:
        """The gate's state: ``{"enforce", "events", "waiting"}``."""
        return self._call("GET", f"/episodes/{eid}/gate")

    def delete(self, eid: str) -> None:
        self._held.pop(eid, None)
        self._call("DELETE", f"/episodes/{eid}")

    def health(self) -> dict:
        return self._call("GET", "/health")


class LocalControlClient(ControlClient):
    """The same API called directly on an :class:`~webgauge.arena.apps.server.ArenaServer` in this process.

    It goes through the server's one dispatcher and a JSON round trip, so callers get exactly
    what the HTTP API returns (same types, same errors), without a socket. The state read skips
    the round trip (it is already JSON-safe data): its tables not written since the last read
    are the very lists the last read returned, so a state read costs what changed, not the
    state's size. Treat states as read-only.
    """

    in_process = True

    def __init__(self, server) -> None:
        super().__init__(server.control_url)
        self._server = server

    def state(self, eid: str) -> tuple[dict, str]:
        r = self._dispatch("GET", f"/episodes/{eid}/state", None)
        return dict(r["state"]), r["hash"]

    def _call(self, method: str, path: str, payload: dict | None = None) -> Any:
        return json.loads(json.dumps(self._dispatch(method, path, payload)))

    def _dispatch(self, method: str, path: str, payload: dict | None) -> Any:
        try:
            return self._server.control(method, path.strip("/").split("/"), payload or {})
        except KeyError as exc:
            raise ControlError(
                f"{method} {path}: HTTP 404: {json.dumps({'error': str(exc).strip(chr(39) + chr(34))})}") from None
        except (ValueError, TypeError) as exc:
            raise ControlError(f"{method} {path}: HTTP 400: {json.dumps({'error': str(exc)})}") from None
