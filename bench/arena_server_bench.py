"""Episode server bench: per-request latency of the arena's threaded stdlib server against the
same dispatch on uvicorn (uvloop, httptools), side by side, interleaved rounds.

    python bench/arena_server_bench.py [N]      # N keep-alive requests per URL and round [50]

The uvicorn side serves hand-written sites through the same handlers in a worker thread (they
are synchronous) and awaits the Starlette apps on its own loop with the episode's connection,
as a port of the episode server would. uvicorn is only in the ``bench`` extra (``make bench``
installs it; or ``pip install -e ".[bench]"``). Prints medians (ms) and the ratio.
"""
import asyncio
import http.client
import statistics
import sys
import threading
import time
from urllib.parse import parse_qs

try:
    import uvicorn
except ImportError:
    raise SystemExit(
        "uvicorn is not installed: pip install -e \".[bench]\" (or run `make bench`, which does)") from None
from webgauge.arena.apps import ASGI_APPS, SITES
from webgauge.arena.apps.common import Request
from webgauge.arena.apps.server import ArenaServer, _cookies, _index


def asgi_app(server):
    routes = [r for site in SITES.values() for r in site.routes]
    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                m = await receive()
                if m["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                else:
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        body = b""
        while True:
            m = await receive()
            body += m.get("body", b"")
            if not m.get("more_body"):
                break
        segs = scope["path"].split("/", 3)
        ep = server.episodes.get(segs[2]) if len(segs) > 2 else None
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        path = "/" + (segs[3] if len(segs) > 3 else "")
        method = scope["method"]
        form = parse_qs(body.decode(), keep_blank_values=True) if "urlencoded" in headers.get("content-type",
                                                                                              "") else {}
        query = {k: v[-1] for k, v in parse_qs(scope["query_string"].decode(), keep_blank_values=True).items()}
        native = next((a for a in ASGI_APPS if path == a.prefix or path.startswith(a.prefix + "/")), None)
        if native is not None:  # a Starlette app awaited on this loop, as a real port would serve it
            sc = dict(scope, root_path=f"/e/{ep.id}", state={"conn": ep.db.conn, "base": f"/e/{ep.id}"})
            chunks = [body]
            async def rcv():
                return {"type": "http.request", "body": chunks.pop() if chunks else b"", "more_body": False}
            ep.track(+1)
            with ep.db.lock:
                ep.db.conn.execute("BEGIN")
                try:
                    await native.app(sc, rcv, send)
                finally:
                    ep.db.conn.execute("COMMIT")
            ep.track(-1)
            return
        handler, params = (_index, {}) if path == "/" else (None, {})
        for r in routes:
            mm = r.pattern.match(path)
            if mm and r.method == method.replace("HEAD", "GET"):
                handler, params = r.handler, mm.groupdict()
                break

        def run(conn):
            return handler(Request(method, path, query, form, body, _cookies(headers.get("cookie", "")), f"/e/{ep.id}",
                                   conn, params, headers))
        ep.track(+1)
        try:
            resp = await asyncio.to_thread(ep.db.run, run)  # handlers are sync (asgi sites run their own loop)
        finally:
            ep.track(-1)
        if method == "POST":
            ep.writes.append({"method": "POST", "path": path})
        hdrs = [(b"content-type", resp.content_type.encode()), (b"content-length", str(len(resp.body)).encode()),
                (b"cache-control", b"no-store")] + [(k.encode(), v.encode()) for k, v in resp.headers.items()]
        await send({"type": "http.response.start", "status": resp.status, "headers": hdrs})
        await send({"type": "http.response.body", "body": resp.body})
    return app

def timeit(host, port, reqs, n):
    conn = http.client.HTTPConnection(host, port)
    out = {}
    for name, method, path, body in reqs:
        ts = []
        for _ in range(n):
            t = time.perf_counter()
            conn.request(method, path, body=body,
                         headers={"Content-Type": "application/x-www-form-urlencoded"} if body else {})
            r = conn.getresponse()
            r.read()
            ts.append((time.perf_counter() - t) * 1000)
            assert r.status < 400, (path, r.status)
        out[name] = statistics.median(ts)
    return out

with ArenaServer() as srv:
    eid = srv.client().create(0)["id"]
    reqs = [("GET /shop/ (handler)", "GET", f"/e/{eid}/shop/", None),
            ("GET /mail/ (handler)", "GET", f"/e/{eid}/mail/", None),
            ("GET /wiki/ (Starlette app)", "GET", f"/e/{eid}/wiki/", None),
            ("GET /calendar/ (Starlette app)", "GET", f"/e/{eid}/calendar/", None),
            ("POST /shop/cart/add", "POST", f"/e/{eid}/shop/cart/add", "product=3&size=42&qty=1")]
    cfg = uvicorn.Config(asgi_app(srv), host="127.0.0.1", port=0, log_level="error", loop="uvloop", http="httptools",
                         lifespan="off")
    us = uvicorn.Server(cfg)
    th = threading.Thread(target=us.run, daemon=True)
    th.start()
    while not us.started:
        time.sleep(0.01)
    uport = us.servers[0].sockets[0].getsockname()[1]
    host, port = srv.app_url.split("//")[1].split(":")
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    import os
    print("load average " + " ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores")
    rows = {}
    for _round in range(3):  # interleaved rounds
        a = timeit(host, int(port), reqs, n)
        b = timeit("127.0.0.1", uport, reqs, n)
        for k in a:
            rows.setdefault(k, ([], []))
            rows[k][0].append(a[k])
            rows[k][1].append(b[k])
    print(f"{'request (median ms, keep-alive)':34s}{'threaded stdlib':>16s}{'uvicorn+uvloop':>16s}{'ratio':>8s}")
    for k, (a, b) in rows.items():
        print(f"{k:34s}{statistics.median(a):16.2f}{statistics.median(b):16.2f}{statistics.median(a)/statistics.median(b):7.2f}x")
    us.should_exit = True
