"""A real-app episode (Roundup's own server, real Chromium, the oracle) listens only on loopback: every
socket its process tree listens on while it runs is on 127.0.0.0/8 or ::1. Run with ``-m realapps``
after ``webgauge arena apps install roundup``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

RUN = Path(__file__).resolve().parents[1] / "run"
if str(RUN) not in sys.path:
    sys.path.insert(0, str(RUN))

from sockets import is_loopback, watch  # noqa: E402


@pytest.mark.realapps
@pytest.mark.browser
@pytest.mark.slow
def test_a_roundup_episode_listens_only_on_loopback():
    from webgauge.arena.realapps.roundup import app as roundup

    roundup.SPEC.require()
    proc = subprocess.Popen([sys.executable, str(RUN / "realapp_episode.py"), "roundup.close", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        seen, names = watch(proc, 600)
    finally:
        if proc.poll() is None:
            proc.kill()
    out, err = proc.communicate()
    assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
    result = json.loads(out.decode().strip().splitlines()[-1])
    assert result["success"] is True
    wide = sorted(str(x) for x in seen if not is_loopback(x.ip))
    assert not wide, "listening beyond loopback:\n" + "\n".join(wide)
    # Roundup's server and Chromium were seen (else the check above proves nothing)
    assert any(x.port == result["port"] for x in seen), sorted(map(str, seen))
    assert any("chrom" in n for n in names), sorted(names)
