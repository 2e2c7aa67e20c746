"""A Ray cluster of several nodes on this machine, every node on 127.0.0.1 (for the cluster tests).

Each node is its own ``ray start --block`` process in its own session, with its own temp dir, CPUs and
a custom resource naming it (``wg_node_<name>``), so a node can be killed whole (``kill_node``: SIGKILL
to its process group, as a machine that vanishes) and the cluster is always taken down by process
group -- never with ``ray stop``, which would stop every Ray on the machine.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
OBJECT_STORE_BYTES = 80 * 1024 * 1024  # Ray's minimum is 75 MiB; the machine is shared


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LoopbackCluster:
    """``with LoopbackCluster() as c: c.add_node("w1")`` -- a head (``c.address``) plus nodes, stopped on exit."""

    def __init__(self, head_cpus: int = 1) -> None:
        # short: Ray's Unix sockets live under the temp dirs (paths are limited to ~107 characters)
        self.root = Path(tempfile.mkdtemp(prefix="wgc-", dir="/tmp"))
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.nodes: dict[str, subprocess.Popen] = {}
        self.head_cpus = head_cpus
        # Ray's token authentication, with a token of this cluster's own (not the machine's ~/.ray one):
        # every node and every driver of this cluster gets it through the environment (driver_env)
        self.auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}

    def __enter__(self) -> LoopbackCluster:
        try:
            self._start("head", self.head_cpus, head=True)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _start(self, name: str, num_cpus: int, head: bool = False) -> None:
        temp = self.root / name
        temp.mkdir()
        common = [f"--num-cpus={num_cpus}", f"--resources={json.dumps({f'wg_node_{name}': 1})}",
                  f"--object-store-memory={OBJECT_STORE_BYTES}", "--disable-usage-stats", f"--temp-dir={temp}",
                  "--block"]
        env = self.driver_env()
        if head:
            # the documented switch: a head that keeps 127.0.0.1 as its address (and so binds only there)
            env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
            cmd = [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--node-ip-address=127.0.0.1",
                   f"--port={self.port}", "--include-dashboard=false", *common]
        else:
            cmd = [sys.executable, str(HERE / "ray_node.py"), "start", f"--address={self.address}", *common]
        log = open(self.root / f"{name}.log", "wb")
        self.nodes[name] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                            start_new_session=True)
        log.close()

    def driver_env(self) -> dict[str, str]:
        """The environment of a process that joins this cluster (a node or a driver): the cluster's token,
        and the test handlers and webgauge's source importable (actors import handlers by path)."""
        path = [str(HERE), str(HERE.parents[1] / "src"), *filter(None, os.environ.get("PYTHONPATH", "").split(":"))]
        return {**os.environ, **self.auth, "PYTHONPATH": os.pathsep.join(path)}

    def wait(self, *names: str) -> list[dict]:
        """Wait until the named nodes are up; the alive nodes (``id``, ``ip``, ``resources``), all on 127.0.0.1."""
        out = subprocess.run([sys.executable, str(HERE / "ray_driver.py"), "wait", self.address, *names],
                             env=self.driver_env(), capture_output=True, text=True, timeout=420)
        assert out.returncode == 0, out.stderr[-3000:] + self.log("head")[-2000:]
        nodes = json.loads(out.stdout.strip().splitlines()[-1])
        assert all(node["ip"] == "127.0.0.1" for node in nodes), nodes
        return nodes

    def node_id(self, nodes: list[dict], name: str) -> str:
        """The first 8 hex digits of the node ``name``'s id (what the run's ``worker`` column ends with)."""
        return next(n["id"][:8] for n in nodes if f"wg_node_{name}" in n["resources"])

    def add_node(self, name: str, num_cpus: int = 1) -> None:
        self._start(name, num_cpus)

    def log(self, name: str) -> str:
        return (self.root / f"{name}.log").read_text(errors="replace")

    def pids(self, name: str) -> list[int]:
        """Every live process of a node: its ``ray start`` process group and their descendants (browsers
        may start in groups of their own)."""
        pgid = self.nodes[name].pid
        group = []
        for p in psutil.process_iter():
            try:
                if os.getpgid(p.pid) == pgid:
                    group.append(p)
            except (OSError, psutil.Error):
                pass
        out = {p.pid for p in group}
        for p in group:
            try:
                out.update(c.pid for c in p.children(recursive=True))
            except psutil.Error:
                pass
        return sorted(out)

    def kill_node(self, name: str) -> None:
        """SIGKILL a node's whole process group: raylet, object store, workers, agents, browsers."""
        pids = self.pids(name)
        proc = self.nodes.pop(name)
        _kill_all(proc.pid, pids)
        proc.wait(10)

    def stop(self) -> None:
        """Stop every node by process group (SIGTERM, then SIGKILL), then remove the temp dirs."""
        for proc in self.nodes.values():
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 5
        for name, proc in list(self.nodes.items()):
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            _kill_all(proc.pid, self.pids(name))
            if proc.poll() is None:
                proc.wait(10)
        self.nodes.clear()
        shutil.rmtree(self.root, ignore_errors=True)


def _kill_all(pgid: int, pids: list[int]) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
