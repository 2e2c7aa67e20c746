"""Starting and joining Ray so that nothing it opens listens beyond loopback.

Ray binds a node's gRPC servers (GCS, raylet, object manager, every worker's core worker) to
127.0.0.1 only when the node's address is exactly ``127.0.0.1``; any other address makes them
listen on every interface. Left to itself, Ray also turns ``127.0.0.1`` (given as a node address
or in a cluster address) into the machine's network address, unless clusters are switched off
with ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, which Ray reads once, when it is imported. So:

- :func:`init_ray` with no address starts a one-node Ray whose node address is 127.0.0.1, in a
  private temporary directory, with the switch in effect while Ray starts (the processes it
  starts inherit it), and checks afterwards that the node really is on loopback;
- with an address on loopback (``127.0.0.1:6379``, ``localhost:6379``) it joins that cluster as
  a driver on loopback, the same way;
- any other address is a real cluster, joined as Ray does by default.
"""

from __future__ import annotations

import contextlib
import importlib
import ipaddress
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["LOOPBACK", "RayHandle", "init_ray", "is_loopback_address", "loopback_resolution"]

LOOPBACK = "127.0.0.1"
_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def is_loopback_address(address: str) -> bool:
    """Whether a Ray address (``host:port``, ``ray://host:port``, ``[::1]:port``) names this machine's loopback."""
    rest = address.split("://", 1)[-1]
    if rest.startswith("["):
        host = rest[1:].split("]", 1)[0]
    else:
        host = rest.rsplit(":", 1)[0] if rest.count(":") == 1 else rest
    if host.lower() == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(ip.is_loopback or (mapped is not None and mapped.is_loopback))


@contextlib.contextmanager
def loopback_resolution() -> Iterator[None]:
    """While inside, Ray keeps ``127.0.0.1`` as an address instead of replacing it with the machine's.

    Sets ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` in the environment (for the processes Ray starts) and
    in Ray's constants (read once when Ray was imported), and puts both back afterwards.
    """
    constants: Any = importlib.import_module("ray._private.ray_constants")
    old_env, old_flag = os.environ.get(_SWITCH), constants.ENABLE_RAY_CLUSTER
    os.environ[_SWITCH] = "0"
    constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = old_flag
        if old_env is None:
            os.environ.pop(_SWITCH, None)
        else:
            os.environ[_SWITCH] = old_env


@dataclass
class RayHandle:
    """What :func:`init_ray` did: whether it started Ray here, and the temp dir to remove at shutdown."""

    started: bool
    temp_dir: str | None = None

    def shutdown(self, ray: Any) -> None:
        """Shut Ray down if it was started here (a joined cluster is only disconnected), then remove its temp dir."""
        if self.started:
            ray.shutdown()
        if self.temp_dir:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = None


def init_ray(ray: Any, address: str | None, **kwargs: Any) -> RayHandle:
    """Start a loopback Ray (``address=None``) or join the cluster at ``address``.

    ``kwargs`` go to ``ray.init`` (``num_cpus``, ``log_to_driver``, ...). A started Ray runs without a
    dashboard, in a short private temp dir (Ray's Unix sockets live there, and their paths are
    limited to ~107 characters) unless ``_temp_dir`` is given. Raises ``RuntimeError`` (after
    shutting Ray down) if a started Ray is not on loopback.
    """
    if address is None:
        handle = RayHandle(started=True)
        if "_temp_dir" not in kwargs:
            handle.temp_dir = kwargs["_temp_dir"] = tempfile.mkdtemp(prefix="wgray-", dir=_short_tmp())
        kwargs.setdefault("include_dashboard", False)
        try:
            with loopback_resolution():
                ray.init(_node_ip_address=LOOPBACK, **kwargs)
            node_ip = ray.util.get_node_ip_address()
            if node_ip != LOOPBACK:
                raise RuntimeError(f"Ray started on {node_ip}, not on {LOOPBACK}: its services would listen beyond "
                                   "loopback; this Ray version is not supported (use a Ray of webgauge[ray])")
        except BaseException:
            handle.shutdown(ray)  # leave no half-started Ray processes behind
            raise
        return handle
    if is_loopback_address(address):
        with loopback_resolution():
            ray.init(address=address, **kwargs)
    else:
        ray.init(address=address, **kwargs)
    return RayHandle(started=False)


def _short_tmp() -> str:
    """``$TMPDIR`` if short enough for Ray's Unix socket paths, else ``/tmp``."""
    tmp = tempfile.gettempdir()
    return tmp if len(tmp) <= 40 else "/tmp"
