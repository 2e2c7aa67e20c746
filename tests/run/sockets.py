"""What a process tree listens on: every TCP socket in LISTEN and every bound, unconnected UDP socket.

Read from the kernel's socket tables (``psutil.net_connections``, i.e. ``/proc/net/{tcp,tcp6,udp,udp6}``
matched to each process's open file descriptors), sampled while the tree runs, so sockets opened and
closed during a run are seen too.
"""

from __future__ import annotations

import ipaddress
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

import psutil


@dataclass(frozen=True)
class Listener:
    pid: int
    name: str
    proto: str  # "tcp" | "udp"
    ip: str
    port: int

    def __str__(self) -> str:
        return f"{self.name} (pid {self.pid}) {self.proto} {self.ip}:{self.port}"


def is_loopback(ip: str) -> bool:
    """127.0.0.0/8, ::1, and IPv4-mapped loopback (``::ffff:127.0.0.1``, how an IPv6 socket shows a v4 bind)."""
    addr = ipaddress.ip_address(ip.split("%", 1)[0])
    mapped = getattr(addr, "ipv4_mapped", None)
    return addr.is_loopback or (mapped is not None and mapped.is_loopback)


def tree(root: int, extra: set[int] | None = None) -> set[int]:
    """``root`` and every live descendant (plus ``extra`` pids and their descendants)."""
    pids: set[int] = set()
    for pid in {root} | (extra or set()):
        try:
            p = psutil.Process(pid)
            pids.add(pid)
            pids.update(c.pid for c in p.children(recursive=True))
        except psutil.Error:
            pass
    return pids


def listeners(pids: set[int]) -> set[Listener]:
    """The listening sockets of these processes right now."""
    out: set[Listener] = set()
    for c in psutil.net_connections(kind="inet"):
        if c.pid not in pids or not c.laddr:
            continue
        tcp_listen = c.type == 1 and c.status == psutil.CONN_LISTEN  # SOCK_STREAM
        udp_bound = c.type == 2 and not c.raddr  # SOCK_DGRAM
        if tcp_listen or udp_bound:
            try:
                name = psutil.Process(c.pid).name()
            except psutil.Error:
                name = "?"
            out.add(Listener(c.pid, name, "tcp" if c.type == 1 else "udp", c.laddr.ip, c.laddr.port))
    return out


def watch(proc: subprocess.Popen, timeout: float, every: float = 0.2,
          also: Callable[[], set[int]] | None = None) -> tuple[set[Listener], set[str]]:
    """Sample the sockets of ``proc``'s process tree (and of the trees of the pids ``also()`` names at each
    sample) until it exits; returns (listeners, process names seen)."""
    seen: set[Listener] = set()
    names: set[str] = set()
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        if time.monotonic() > deadline:
            proc.kill()
            raise TimeoutError(f"{proc.args} did not finish within {timeout:.0f}s")
        pids = tree(proc.pid, also() if also else None)
        for pid in pids:
            try:
                names.add(psutil.Process(pid).name())
            except psutil.Error:
                pass
        seen |= listeners(pids)
        time.sleep(every)
    return seen, names
