"""Nothing webgauge starts listens beyond loopback: the sockets of a run's whole process tree (the driver,
its workers or Ray's GCS, raylet, agents and actors, Chromium, the arena's app servers), sampled while
the run goes, are all on 127.0.0.0/8 or ::1. The real-app run is in tests/arena_realapps."""

from __future__ import annotations

import ipaddress
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webgauge.run import RunStore
from webgauge.run.ray_loopback import is_loopback_address

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from sockets import Listener, is_loopback, watch  # noqa: E402

RUN_TIMEOUT = 600.0


def webgauge_cli() -> list[str]:
    exe = shutil.which("webgauge", path=str(Path(sys.executable).parent))
    assert exe, f"the webgauge command is not installed beside {sys.executable}; run `pip install -e .`"
    return [exe]


def assert_loopback_only(seen: set[Listener], names: set[str], must_see: set[str]) -> None:
    wide = sorted(str(x) for x in seen if not is_loopback(x.ip))
    assert not wide, "listening beyond loopback:\n" + "\n".join(wide)
    # the sampler saw the processes and sockets it had to see (else the check above proves nothing)
    assert seen, "no listening socket was seen at all"
    missing = {m for m in must_see if not any(m in n for n in names | {x.name for x in seen})}
    assert not missing, f"never saw processes {missing} (saw {sorted(names)})"


@given(st.ip_addresses())
def test_loopback_means_127_slash_8_and_colon_colon_1(ip):
    expected = ip in ipaddress.ip_network("127.0.0.0/8") or ip == ipaddress.ip_address("::1") or (
        ip.version == 6 and ip.ipv4_mapped is not None and ip.ipv4_mapped in ipaddress.ip_network("127.0.0.0/8"))
    assert is_loopback(str(ip)) == expected
    host = f"[{ip}]" if ip.version == 6 else str(ip)
    assert is_loopback_address(f"{host}:6379") == expected
    assert is_loopback_address(f"ray://{host}:10001") == expected


@pytest.mark.parametrize("address", ["localhost:6379", "LOCALHOST:1", "127.0.0.1:6379", "127.3.4.5:1"])
def test_loopback_ray_addresses(address):
    assert is_loopback_address(address)


@pytest.mark.parametrize("address", ["10.0.0.5:6379", "head.example:6379", "ray://head:10001", "0.0.0.0:6379",
                                     "auto", "[::]:6379", "192.0.2.2:6379"])
def test_other_ray_addresses_are_not_loopback(address):
    assert not is_loopback_address(address)


def _arena_run(tmp_path: Path, *extra: str) -> tuple[set[Listener], set[str]]:
    out = tmp_path / "run"
    cmd = [*webgauge_cli(), "arena", "run", "--agent", "oracle", "--family", "shop.buy_variant", "--seeds", "0",
           "--out", str(out), "--no-report", "--workers", "1", *extra]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        seen, names = watch(proc, RUN_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    log = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
    assert proc.returncode == 0, log[-3000:]
    assert RunStore(out).counts() == {"ok": 1, "error": 0}, log[-3000:]
    return seen, names


@pytest.mark.browser
@pytest.mark.slow
def test_a_local_arena_run_listens_only_on_loopback(tmp_path):
    seen, names = _arena_run(tmp_path)
    assert_loopback_only(seen, names, must_see={"chromium", "webgauge"})


@pytest.mark.browser
@pytest.mark.slow
def test_a_local_ray_run_listens_only_on_loopback(tmp_path):
    seen, names = _arena_run(tmp_path, "--executor", "ray")
    assert_loopback_only(seen, names, must_see={"gcs_server", "raylet", "chromium", "_ItemActor"})
    assert {x.name for x in seen} >= {"gcs_server", "raylet"}  # Ray's own servers were seen listening
