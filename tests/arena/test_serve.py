"""``webgauge arena serve``: the /v1 control API of the real CLI's service (a child process on
loopback), its leases and refusals, held-out tasks by secret, and the same verdicts as the
in-process path for the same oracle episode."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from webgauge.arena.adapters.serve import API_VERSION, judge, task_for, verdict_reply
from webgauge.arena.adapters.serve_client import ServiceControl, ServiceProcess
from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.apps.server import ArenaServer
from webgauge.arena.env import ArenaEnv
from webgauge.arena.env.episode import play
from webgauge.arena.registry import REAL_FAMILIES, all_family_names
from webgauge.arena.tasks import build_tasks, seed_state
from webgauge.arena.tasks.heldout import make_slices

SECRET = "serve-test-secret-0123456789abcdef"


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    # an empty apps home: the real-app families are listed, and resetting to one names the install command
    apps = tmp_path_factory.mktemp("apps-home")
    with ServiceProcess(slots=2, env={"WEBGAUGE_APPS_HOME": str(apps)}) as svc:
        yield svc.url


def call(url: str, method: str, path: str, payload: dict | None = None, lease: str | None = None) -> tuple[int, dict]:
    data = json.dumps(payload).encode() if payload is not None else None
    req = urllib.request.Request(url + path, data=data, method=method,
                                 headers={"Content-Type": "application/json",
                                          **({"X-Webgauge-Lease": lease} if lease else {})})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_version_families_and_refusals(service):
    st, v = call(service, "GET", "/v1/version")
    assert st == 200 and v["version"] == API_VERSION and v["api"] == "webgauge-arena" and v["slots"] == 2
    st, fams = call(service, "GET", "/v1/families")
    names = [f["family"] for f in fams["families"]]
    assert names == sorted(all_family_names()) and len(names) == v["families"]
    assert {f["family"] for f in fams["families"] if f["app"] is None} == {t.family for t in build_tasks((0,))}
    assert {f["app"] for f in fams["families"]} == {None, *REAL_FAMILIES}
    assert fams["apps"] == {a: {"installed": False, "install": f"webgauge arena apps install {a}"}
                            for a in REAL_FAMILIES}
    st, err = call(service, "GET", "/episodes/x/state")  # the unleased in-process routes are not served
    assert st == 404 and "/v1" in err["error"]
    (s1, a), (s2, b) = call(service, "POST", "/v1/slots"), call(service, "POST", "/v1/slots")
    assert s1 == s2 == 200 and {a["slot"], b["slot"]} == {0, 1} and a["lease"] != b["lease"]
    st, err = call(service, "POST", "/v1/slots")
    assert st == 409 and "--slots" in err["error"]
    i = a["slot"]
    for lease in (None, b["lease"]):  # no lease, another slot's lease
        st, err = call(service, "POST", f"/v1/slots/{i}/reset", {"family": "account.rename", "seed": 0}, lease)
        assert st == 403 and "X-Webgauge-Lease" in err["error"]
    st, err = call(service, "POST", f"/v1/slots/{i}/validate", {"answer": None}, a["lease"])
    assert st == 400 and "reset" in err["error"]
    st, err = call(service, "POST", f"/v1/slots/{i}/reset", {"family": "no.such", "seed": 0}, a["lease"])
    assert st == 404 and "/v1/families" in err["error"]
    st, err = call(service, "POST", f"/v1/slots/{i}/reset", {"family": "account.rename", "seed": 2 ** 64 + 5},
                   a["lease"])
    assert st == 400 and "heldout" in err["error"]
    st, err = call(service, "POST", f"/v1/slots/{i}/reset", {"family": "account.rename", "heldout": 0}, a["lease"])
    assert st == 400 and "--secret" in err["error"]
    for family in ("roundup.close", "mediawiki.census", "oscar.photo"):  # a real app that is not installed here
        st, err = call(service, "POST", f"/v1/slots/{i}/reset", {"family": family, "seed": 0}, a["lease"])
        app = family.split(".")[0]
        assert st == 409 and err["error"] == (f"real app {app!r} is not installed; run: "
                                              f"webgauge arena apps install {app}"), err
    st, _ = call(service, "POST", f"/v1/slots/{i}/reset", {"family": "account.rename", "seed": 0}, a["lease"])
    assert st == 200  # the refused reset left the slot usable
    for r in (a, b):
        assert call(service, "DELETE", f"/v1/slots/{r['slot']}", None, r["lease"])[0] == 200
    st, again = call(service, "POST", "/v1/slots")
    assert st == 200
    call(service, "DELETE", f"/v1/slots/{again['slot']}", None, again["lease"])


def test_untouched_world_fails_and_answer_is_judged(service):
    """Doing nothing scores 0; a wrong answer scores 0; the expected answer alone solves a lookup task."""
    task = next(t for t in build_tasks((0,)) if t.family == "wiki.lookup")
    st, r = call(service, "POST", "/v1/slots")
    lease, i = r["lease"], r["slot"]
    try:
        st, reset = call(service, "POST", f"/v1/slots/{i}/reset", {"family": task.family, "seed": 0}, lease)
        assert reset["goal"] == task.instruction and reset["task_id"] == task.id and reset["hash"] == reset["seed_hash"]
        assert reset["start_url"].endswith(task.start_url) and "answer" not in json.dumps(reset).lower().replace(
            task.instruction.lower(), "")
        for answer in (None, "I do not know"):
            st, v = call(service, "POST", f"/v1/slots/{i}/validate", {"answer": answer}, lease)
            assert st == 200 and v["reward"] == 0.0 and v["errors"]
            assert v == verdict_reply(judge(task, seed_state(0), seed_state(0), answer))
        st, v = call(service, "POST", f"/v1/slots/{i}/validate", {"answer": str(task.answer)}, lease)
        assert v["reward"] == 1.0 and v["success"] and not v["errors"]
        st, tr = call(service, "GET", f"/v1/slots/{i}/trace", None, lease)
        assert [e["answer"] for e in tr["trace"] if e["event"] == "validate"] == ["I do not know", str(task.answer)]
    finally:
        call(service, "DELETE", f"/v1/slots/{i}", None, lease)


def test_a_final_verdict_is_sealed_wrong_then_right_stays_wrong(service):
    """A final validate ends the lease's episode: every later validate, final or not, with the right
    answer or not, returns that first verdict and judges nothing again, until the next reset."""
    task = next(t for t in build_tasks((0,)) if t.family == "wiki.lookup")
    st, r = call(service, "POST", "/v1/slots")
    lease, i = r["lease"], r["slot"]
    try:
        call(service, "POST", f"/v1/slots/{i}/reset", {"family": task.family, "seed": 0}, lease)
        st, first = call(service, "POST", f"/v1/slots/{i}/validate", {"answer": "7 days", "final": True}, lease)
        assert st == 200 and first["reward"] == 0.0 and first["final"] is True
        for final in (True, False):
            st, again = call(service, "POST", f"/v1/slots/{i}/validate", {"answer": str(task.answer), "final": final},
                             lease)
            assert st == 200 and again == first
        st, tr = call(service, "GET", f"/v1/slots/{i}/trace", None, lease)
        assert [e["answer"] for e in tr["trace"] if e["event"] == "validate"] == ["7 days"]  # never judged again
        call(service, "POST", f"/v1/slots/{i}/reset", {"family": task.family, "seed": 0}, lease)  # a new episode
        st, v = call(service, "POST", f"/v1/slots/{i}/validate", {"answer": str(task.answer), "final": True}, lease)
        assert v["reward"] == 1.0
    finally:
        call(service, "DELETE", f"/v1/slots/{i}", None, lease)


FAMILIES = ("account.rename", "shop.buy_variant", "admin.count_status", "forum.attach_file")


@pytest.mark.browser
async def test_oracle_verdicts_agree_in_process_and_via_service(browser, service):
    """The same oracle episode judged in-process (`arena run`'s path) and by the service."""
    tasks = [t for t in build_tasks((0,)) if t.family in FAMILIES]
    assert len(tasks) == len(FAMILIES)
    local = {}
    with ArenaServer() as srv:
        env = ArenaEnv(browser, srv.app_url, srv.client())
        try:
            for t in tasks:
                rec, _ = await play(env, OracleAgent(t), t, keep_dom=False)
                local[t.family] = (rec.success, rec.forbidden, rec.done_answer)
        finally:
            await env.close()
    ctl = ServiceControl(service)
    env = ArenaEnv(browser, ctl.app_url, ctl)
    try:
        for t in tasks:
            ctl.family = t.family
            rec, _ = await play(env, OracleAgent(t), t, keep_dom=False)
            verdict = ctl.validate(env.done_answer)
            trace = ctl.trace()
            assert ctl.last_reset["task_id"] == t.id
            assert (rec.success, rec.forbidden, rec.done_answer) == local[t.family], t.family
            assert verdict["reward"] == (1.0 if local[t.family][0] and not local[t.family][1] else 0.0), t.family
            assert verdict["reward"] == 1.0, (t.family, verdict)  # the oracle solves these: agreement is not on zeros
            changed = [e for e in trace["trace"] if e.get("diff")]
            assert changed, t.family  # the trace holds the episode's state changes (a sign-in link's session at least)
            if t.answer is None:  # a task judged on state wrote through the app; an answer task may only read
                assert trace["writes"], t.family
            effects = ctl.effects()
            assert effects["forbidden_violations"] == [] and len(effects["rules"]) == len(t.forbidden_effects)
    finally:
        await env.close()
    assert ctl.slot is None  # env.close released the slot


def test_heldout_by_secret_never_leaves_the_service():
    family = "account.rename"
    want = make_slices(SECRET.encode(), n_heldout=1, families=[family]).heldout[0]
    with ServiceProcess(slots=1, env={"WEBGAUGE_ARENA_SECRET": SECRET}) as svc:
        st, v = call(svc.url, "GET", "/v1/version")
        assert v["heldout"] is True
        st, r = call(svc.url, "POST", "/v1/slots")
        lease, i = r["lease"], r["slot"]
        st, reset = call(svc.url, "POST", f"/v1/slots/{i}/reset", {"family": family, "heldout": 0}, lease)
        assert st == 200 and reset["task_id"] == want.id and reset["goal"] == want.instruction
        assert reset["seed"] is None and reset["slice"] == "heldout" and ".s" not in reset["task_id"]
        st, verdict = call(svc.url, "POST", f"/v1/slots/{i}/validate", {"answer": None}, lease)
        assert verdict == {"reward": 0.0, "success": False, "errors": 1, "forbidden_violations": 0, "sealed": True,
                           "final": False}
        blob = json.dumps([v, reset, verdict])
        assert SECRET not in blob and str(want.seed) not in blob
        # the public task of the same family is another task
        st, pub = call(svc.url, "POST", f"/v1/slots/{i}/reset", {"family": family, "seed": 0}, lease)
        assert pub["goal"] == task_for(family, 0).instruction != want.instruction


def test_a_dead_clients_lease_is_reclaimed_after_the_timeout():
    import time

    from webgauge.arena.adapters.serve import ArenaService

    with ArenaService(1, lease_timeout=1.0) as svc:
        st, a = call(svc.control_url, "POST", "/v1/slots")
        assert st == 200
        assert call(svc.control_url, "POST", "/v1/slots")[0] == 409  # held, and used just now
        time.sleep(1.3)
        st, b = call(svc.control_url, "POST", "/v1/slots")
        assert st == 200 and b["slot"] == a["slot"] and b["lease"] != a["lease"]
        st, err = call(svc.control_url, "POST", f"/v1/slots/{a['slot']}/reset", {"family": "account.rename"},
                       a["lease"])
        assert st == 403  # the old lease is gone


def test_the_service_client_sends_every_call_of_a_thread_on_one_connection(connection_counter):
    """ServiceControl keeps one connection per calling thread, as the control client does: a
    lease, a reset and state reads, and an error answer, on one connection the service accepted."""
    from webgauge.arena.adapters.serve import ArenaService
    from webgauge.arena.apps.control import ControlError

    with ArenaService(1) as svc, connection_counter(svc) as accepted:
        ctl = ServiceControl(svc.control_url)
        eid = ctl.create(0)["id"]
        ctl.family = "account.rename"
        assert ctl.reset(eid, 0)["task_id"] == "account.rename.s0"
        first, h = ctl.state(eid)
        assert ctl.state(eid)[1] == h and first
        ctl.family = "no.such_family"
        with pytest.raises(ControlError, match="HTTP 4"):
            ctl.reset(eid, 0)
        assert ctl.state(eid)[1] == h
        assert len(accepted) == 1, accepted


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("when", ["after_a_request", "at_its_first_line"])
def test_the_service_stops_at_once_on_sigint_or_sigterm_even_when_started_with_sigint_ignored(sig, when):
    """A non-interactive shell starts background jobs with SIGINT ignored, and Python then raises no
    KeyboardInterrupt: the service installs its own handlers, so Ctrl-C and SIGTERM both stop it,
    also when they come as soon as it prints its first line (its handlers are in place before)."""
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-m", "webgauge.cli.main", "arena", "serve", "--slots", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        lines = [proc.stdout.readline()]
        assert lines[0].startswith("apps:"), f"the service did not start: {proc.stderr.read()[-2000:]}"
        # its handlers are in place when it prints its first line: the mask of signals it catches says so
        caught = int(next(x for x in Path(f"/proc/{proc.pid}/status").read_text().splitlines()
                          if x.startswith("SigCgt:")).split()[1], 16)
        assert (caught >> (getattr(signal, sig) - 1)) & 1, f"{sig} not caught yet when the service printed its address"
        if when == "after_a_request":
            while not any(line.startswith("control API:") for line in lines):
                line = proc.stdout.readline()
                assert line, f"the service did not start: {proc.stderr.read()[-2000:]}"
                lines.append(line)
            url = next(line for line in lines if line.startswith("control API:")).split()[2]
            assert call(url, "GET", "/v1/version")[0] == 200
        t0 = time.monotonic()
        proc.send_signal(getattr(signal, sig))
        out, _ = proc.communicate(timeout=8)
        assert proc.returncode == 0 and "stopped" in out and time.monotonic() - t0 < 5, (proc.returncode, out)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
