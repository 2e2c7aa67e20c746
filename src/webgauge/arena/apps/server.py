"""One server process for all arena apps, plus a control API on a separate loopback port.

The app port serves every site under ``/e/<episode id>/...``: each episode has its own
in-memory SQLite database, so episodes run in parallel without seeing one another. The
control port (reset, read state, set flags, set the clock, write log, approvals) is for the
harness only; the agent's browser is confined to the app origin by offline routing, so it
cannot reach it.

Every app request is asked of the episode's approval gate (:mod:`~webgauge.arena.core.gate`)
before its handler runs: a request on a route an app declares irreversible (``Site.gated``) is
refused with 403 unless the gate is off or an approval for that control is waiting (used up by
this request). The gate sees requests, not inputs, so no key, pointer, drag or form path
reaches an irreversible change around it.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..core.gate import ApprovalGate, GatedRoute, gated_route, refusal
from . import SITES, build_seed
from .common import Request, Response
from .db import EpisodeDB, TemplateCache, combine_table_hashes, encode_rows

__all__ = ["ArenaServer", "Episode", "encode_state", "ControlRefusal"]


class ControlRefusal(Exception):
    """A control request refused with an HTTP status other than 400/404 (403 no lease, 409 no free slot)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def encode_state(state: dict) -> dict:
    """A state dump as JSON-safe data (bytes become ``{"__bytes__": hex}``)."""

    return {t: encode_rows(rows) for t, rows in state.items()}


@dataclass
class Episode:
    """One isolated app world: its database and the log of write requests it received."""

    id: str
    db: EpisodeDB
    writes: list[dict] = field(default_factory=list)
    inflight: int = 0  # app requests being handled right now (the env settles when this is 0)
    gate: ApprovalGate = field(default_factory=ApprovalGate)  # approvals and gated requests of this episode
    _count_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def track(self, delta: int) -> None:
        with self._count_lock:
            self.inflight += delta

    def reset(self, seed: int | None = None) -> None:
        with self.db.lock:
            self.db.reset(seed)
            self.writes.clear()
            self.gate.reset()


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True


class ArenaServer:
    """Start with ``with ArenaServer() as srv`` (or ``start()``/``close()``)."""

    def __init__(self, host: str = "127.0.0.1", app_port: int = 0, control_port: int = 0) -> None:
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(f"host {host!r}: the arena only serves on loopback; use 127.0.0.1")
        self.host = host
        self.templates = TemplateCache(build_seed)
        self.episodes: dict[str, Episode] = {}
        self._lock = threading.Lock()
        self._app = _Quiet((host, app_port), _app_handler(self))
        self._control = _Quiet((host, control_port), _control_handler(self))
        self._threads: list[threading.Thread] = []

    @property
    def app_url(self) -> str:
        return f"http://{self.host}:{self._app.server_address[1]}"

    @property
    def control_url(self) -> str:
        return f"http://{self.host}:{self._control.server_address[1]}"

    def start(self) -> ArenaServer:
        for srv in (self._app, self._control):
            t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def close(self) -> None:
        for srv in (self._app, self._control):
            srv.shutdown()
            srv.server_close()
        for t in self._threads:
            t.join(timeout=5)
        with self._lock:
            for ep in self.episodes.values():
                ep.db.close()
            self.episodes.clear()
        self.templates.close()

    def __enter__(self) -> ArenaServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- episodes (the control API calls these) ---------------------------
    def create_episode(self, seed: int, episode_id: str | None = None) -> Episode:
        eid = episode_id or secrets.token_hex(6)
        if not eid.replace("-", "").isalnum():
            raise ValueError(f"episode id {eid!r}: use letters, digits and '-' only")
        with self._lock:
            if eid in self.episodes:
                raise ValueError(f"episode {eid!r} exists; delete it first or choose another id")
            ep = Episode(eid, EpisodeDB(self.templates, seed))
            self.episodes[eid] = ep
        return ep

    def episode(self, eid: str) -> Episode:
        try:
            return self.episodes[eid]
        except KeyError:
            raise KeyError(f"no episode {eid!r}") from None

    def delete_episode(self, eid: str) -> None:
        with self._lock:
            ep = self.episodes.pop(eid, None)
        if ep is not None:
            ep.db.close()

    def client(self):
        """A control client that calls this server in-process (no HTTP round trip)."""
        from .control import LocalControlClient

        return LocalControlClient(self)

    def episode_url(self, eid: str, path: str = "/") -> str:
        return f"{self.app_url}/e/{eid}{path}"

    def control(self, m: str, segs: list[str], p: dict, headers: dict[str, str] | None = None) -> Any:
        """The control API's one dispatcher (HTTP handler and in-process client share it);
        ``headers`` (lower-cased names) are the HTTP request's, for subclasses that check them."""
        server = self
        if segs == ["health"]:
            return {"ok": True, "episodes": len(server.episodes)}
        if segs == ["episodes"] and m == "POST":
            ep = server.create_episode(int(p["seed"]), p.get("id"))
            return {"id": ep.id, "base_url": server.episode_url(ep.id, ""),
                    "seed_hash": server.templates.seed_hash(ep.db.seed)}
        if len(segs) < 2 or segs[0] != "episodes":
            raise KeyError(f"no control endpoint /{'/'.join(segs)}")
        ep = server.episode(segs[1])
        op = segs[2] if len(segs) > 2 else ""
        if op == "" and m == "DELETE":
            server.delete_episode(ep.id)
            return {"deleted": ep.id}
        if op == "reset" and m == "POST":
            t0 = time.perf_counter()
            ep.reset(p.get("seed"))
            return {"hash": ep.db.hash(), "seed_hash": server.templates.seed_hash(ep.db.seed),
                    "ms": (time.perf_counter() - t0) * 1000}
        if op == "state" and m == "GET":
            st, h = ep.db.snapshot()
            return {"state": st, "hash": h}
        if op == "state" and m == "POST":  # {"have": {table: hash}}: only the tables the client lacks
            st, hashes = ep.db.snapshot_tables()
            have = p.get("have") or {}
            return {"state": {t: rows for t, rows in st.items() if have.get(t) != hashes[t]},
                    "tables": hashes, "hash": combine_table_hashes(hashes)}
        if op == "hash" and m in ("GET", "POST"):  # POST {"fresh": true}: re-read every table
            return {"hash": ep.db.hash(fresh=bool(p.get("fresh")))}
        if op == "inflight" and m == "GET":
            return {"inflight": ep.inflight}
        if op == "writes" and m == "GET":
            with ep.db.lock:
                return {"writes": list(ep.writes)}
        if op == "flags" and m == "POST":
            ep.db.run(lambda c: [c.execute("INSERT OR REPLACE INTO meta_flags VALUES(?,?)", (str(k), str(v)))
                                 for k, v in p.items()])
            return {"flags": dict(ep.db.run(lambda c: c.execute("SELECT name,value FROM meta_flags").fetchall()))}
        if op == "gate" and m == "POST":  # {"enforce": bool}: refuse unapproved irreversible requests (or not)
            ep.gate.enforce = bool(p.get("enforce"))
            return {"enforce": ep.gate.enforce}
        if op == "gate" and m == "GET":
            return {"enforce": ep.gate.enforce, "events": list(ep.gate.events), "waiting": ep.gate.waiting}
        if op == "approvals" and m == "POST":  # {"control": name or null, "reason": text}: one approval
            control = p.get("control")
            if control is not None and not isinstance(control, str):
                raise ValueError("control must be a control's accessible name (a string) or null")
            return ep.gate.grant(control, str(p.get("reason") or ""))
        if op == "step" and m == "POST":  # {"since": n, "lapse_through": id}: gated requests, lapsed approvals
            through = p.get("lapse_through")
            events, lapsed = ep.gate.close_step(int(p.get("since") or 0), None if through is None else int(through))
            return {"events": events, "lapsed": lapsed}
        if op == "clock" and m == "POST":
            ep.db.run(lambda c: c.execute("UPDATE meta_clock SET now=?", (str(p["now"]),)))
            return {"now": str(p["now"])}
        raise KeyError(f"no control endpoint {m} /{'/'.join(segs)}")


def _send(h: BaseHTTPRequestHandler, resp: Response) -> None:
    h.send_response(resp.status)
    h.send_header("Content-Type", resp.content_type)
    h.send_header("Content-Length", str(len(resp.body)))
    h.send_header("Cache-Control", "no-store")
    for k, v in resp.headers.items():
        h.send_header(k, v)
    h.end_headers()
    if h.command != "HEAD":
        h.wfile.write(resp.body)


def _read_body(h: BaseHTTPRequestHandler) -> bytes:
    n = int(h.headers.get("Content-Length") or 0)
    return h.rfile.read(n) if n else b""


def _cookies(header: str) -> dict[str, str]:
    from http.cookies import SimpleCookie

    jar = SimpleCookie()
    try:
        jar.load(header)
    except Exception:  # a malformed Cookie header is ignored like a browser-less client's
        return {}
    return {k: m.value for k, m in jar.items()}


def _index(req: Request) -> Response:
    links = "".join(f'<li><a href="{req.url(s.prefix + "/")}">{s.title}</a></li>' for s in SITES.values())
    return Response(body=f"<!doctype html><title>Apps</title><h1>Apps</h1><ul>{links}</ul>".encode())


def _refusal(route: GatedRoute, headers: dict[str, str]) -> Response:
    """What a refused irreversible request gets: 403, as JSON for a script's request, else a page."""
    status, body, ctype = refusal(route.control, headers)
    return Response(status, body, ctype)


def _app_handler(server: ArenaServer) -> type[BaseHTTPRequestHandler]:
    routes = [r for site in SITES.values() for r in site.routes]
    gated = tuple(g for site in SITES.values() for g in site.gated)

    class AppHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # TCP_NODELAY: headers and body are two writes; Nagle held the body ~40 ms

        def log_message(self, *args: Any) -> None:  # quiet: the trace records what matters
            pass

        def _handle(self) -> None:
            parts = urlsplit(self.path)
            segs = parts.path.split("/", 3)  # ["", "e", eid, rest]
            body = _read_body(self)
            if len(segs) < 3 or segs[1] != "e" or segs[2] not in server.episodes:
                _send(self, Response(404, b"unknown episode", "text/plain"))
                return
            ep = server.episodes[segs[2]]
            ep.track(+1)
            try:
                self._serve(ep, parts, segs, body)
            finally:
                ep.track(-1)

        def _serve(self, ep: Episode, parts, segs: list[str], body: bytes) -> None:
            path = "/" + (segs[3] if len(segs) > 3 else "")
            ctype = self.headers.get("Content-Type", "")
            form = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True) if "urlencoded" in ctype else {}
            query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
            handler: Callable[[Request], Response] | None
            handler, params = (_index, {}) if path == "/" else (None, {})
            for r in routes:
                m = r.pattern.match(path)
                if m and r.method == self.command.replace("HEAD", "GET"):
                    handler, params = r.handler, m.groupdict()
                    break
            if handler is None:
                _send(self, Response(404, f"no page at {path}".encode(), "text/plain"))
                return

            headers = {k.lower(): v for k, v in self.headers.items()}
            route = gated_route(gated, self.command, path)
            refused = route is not None and ep.gate.check(route, self.command, path)["outcome"] == "blocked"

            def run(conn):
                req = Request(self.command, path, query, form, body, _cookies(headers.get("cookie", "")),
                              f"/e/{ep.id}", conn, params, headers)
                return handler(req)

            try:
                resp = _refusal(route, headers) if refused and route is not None else ep.db.run(run)
            except Exception as exc:  # a bad request must not kill the server
                resp = Response(400, f"bad request: {type(exc).__name__}: {exc}".encode(), "text/plain")
            if self.command == "POST":
                with ep.db.lock:
                    ep.writes.append({"method": "POST", "path": path, "body": body.decode("utf-8", "replace")[:2000],
                                      "status": resp.status, "t": time.time()})
            _send(self, resp)

        do_GET = do_POST = do_HEAD = _handle

    return AppHandler


def _control_handler(server: ArenaServer) -> type[BaseHTTPRequestHandler]:
    class ControlHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # TCP_NODELAY: headers and body are two writes; Nagle held the body ~40 ms

        def log_message(self, *args: Any) -> None:
            pass

        def _json(self, data: Any, status: int = 200) -> None:
            _send(self, Response(status, json.dumps(data).encode(), "application/json"))

        def _handle(self) -> None:
            body = _read_body(self)
            try:
                payload = json.loads(body) if body else {}
                self._json(self._dispatch(urlsplit(self.path).path.strip("/").split("/"), payload))
            except ControlRefusal as exc:
                self._json({"error": str(exc)}, exc.status)
            except KeyError as exc:
                self._json({"error": str(exc).strip("'\"")}, 404)
            except (ValueError, TypeError) as exc:
                self._json({"error": str(exc)}, 400)

        def _dispatch(self, segs: list[str], p: dict) -> Any:
            return server.control(self.command, segs, p, {k.lower(): v for k, v in self.headers.items()})

        do_GET = do_POST = do_DELETE = _handle

    return ControlHandler
