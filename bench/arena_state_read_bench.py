"""State read over HTTP, as a step makes it (a write, then a read and a diff against the last
read): the whole state each time (``GET /episodes/{id}/state``) against the tables whose hash
changed since the client's last read (``ControlClient.state``), interleaved rounds.

    python bench/arena_state_read_bench.py [N]      # N write-read-diff cycles per side and round [40]

Prints medians (ms per cycle) and the ratio.
"""
import statistics
import sys
import time
import urllib.request

from webgauge.arena.apps.control import ControlClient
from webgauge.arena.apps.server import ArenaServer
from webgauge.arena.core.diff import diff_states

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def write(base: str, i: int) -> None:
    req = urllib.request.Request(base + "/shop/addresses", method="POST",
                                 data=f"label=L{i}&name=N&street=1+Z&city=Q&zip=11111".encode())
    with OPENER.open(req) as r:
        r.read()


def main(n: int = 40, rounds: int = 3) -> None:
    with ArenaServer() as srv:
        client = ControlClient(srv.control_url)
        ep = client.create(seed=0)
        eid, base = ep["id"], ep["base_url"]
        def full():  # the control API's whole-state read, through the client's own HTTP call
            return client._call("GET", f"/episodes/{eid}/state")["state"]

        times: dict[str, list[float]] = {"whole state": [], "changed tables": []}
        reads = {"whole state": full, "changed tables": lambda: client.state(eid)[0]}
        n_tables = len(full())
        for _ in range(rounds):
            for name, read in reads.items():
                last = read()
                for i in range(n):
                    write(base, i)
                    t0 = time.perf_counter()
                    now = read()
                    d = diff_states(last, now)
                    times[name].append((time.perf_counter() - t0) * 1000)
                    assert d.table("shop_addresses").inserted, "the write was not seen"
                    last = now
                client.reset(eid)
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"one episode of seed 0 ({n_tables} tables), {rounds} rounds of {n} write-read-diff cycles")
        for k, v in med.items():
            print(f"  {k:15s} median {v:7.2f} ms")
        print(f"  ratio whole/changed: {med['whole state'] / med['changed tables']:.1f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
