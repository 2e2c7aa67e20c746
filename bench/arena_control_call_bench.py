"""One control-API call over HTTP (``GET /episodes/{id}/inflight``, which a step's settle makes at
least once): a new connection per call (``urllib``, as the client did before) against the
client's kept-alive connection (``ControlClient``), interleaved rounds. Wall and CPU of this
process, which holds both the client and the server's handler threads.

    python bench/arena_control_call_bench.py [N]     # N calls per side and round [500]

Prints medians (ms per call) and the ratios.
"""
import json
import resource
import statistics
import sys
import time
import urllib.request

from webgauge.arena.apps.control import ControlClient
from webgauge.arena.apps.server import ArenaServer

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(n: int = 500, rounds: int = 5) -> None:
    with ArenaServer() as srv:
        client = ControlClient(srv.control_url)
        eid = client.create(seed=0)["id"]
        url = f"{srv.control_url}/episodes/{eid}/inflight"

        def per_call() -> int:
            with OPENER.open(url, timeout=10) as r:
                return json.loads(r.read())["inflight"]

        sides = {"connection per call": per_call, "kept-alive": lambda: client.inflight(eid)}
        wall: dict[str, list[float]] = {k: [] for k in sides}
        cpu: dict[str, list[float]] = {k: [] for k in sides}
        for _ in range(rounds):
            for name, call in sides.items():
                t0, c0 = time.perf_counter(), cpu_s()
                for _ in range(n):
                    assert call() == 0
                wall[name].append((time.perf_counter() - t0) * 1000 / n)
                cpu[name].append((cpu_s() - c0) * 1000 / n)
    print(f"control call, {rounds} rounds of {n} (median ms per call)")
    print(f"{'':22} {'wall':>7} {'CPU':>7}")
    for name in sides:
        print(f"{name:22} {statistics.median(wall[name]):7.3f} {statistics.median(cpu[name]):7.3f}")
    a, b = sides
    print(f"{'ratio':22} {statistics.median(wall[a]) / statistics.median(wall[b]):6.1f}x "
          f"{statistics.median(cpu[a]) / statistics.median(cpu[b]):6.1f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
