"""The forum app and its families in real Chromium: the oracle solves every family (each at one
of seeds 0 and 1) with no forbidden effect, a log-in cookie and an uploaded attachment are both undone by
reset, and every validator fails on the untouched seed."""

from __future__ import annotations

import asyncio
import http.cookiejar
import urllib.error
import urllib.request

import pytest

from webgauge.arena.apps import ASGI_APPS
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.apps.server import encode_state
from webgauge.arena.core.actions import Action, ActionError
from webgauge.arena.core.answers import with_answer
from webgauge.arena.env import ArenaEnv, EnvOptions
from webgauge.arena.tasks import FAMILIES, build_tasks, seed_state

FORUM = [k for k in FAMILIES if k.startswith("forum.")]


def test_forum_declares_its_irreversible_controls_and_families():
    app = next(a for a in ASGI_APPS if a.name == "forum")
    assert set(app.irreversible) == {"Lock thread", "Delete post"} and app.renders == "client"
    assert len(FORUM) >= 6


def test_every_forum_validator_fails_on_the_seed():
    seeds = {s: encode_state(seed_state(s)) for s in (0, 1, 2)}
    for t in build_tasks(tuple(seeds), families=FORUM):
        seed = seeds[t.seed]
        assert not t.validate(with_answer(seed, None)).success, t.id
        if t.answer is not None:
            assert not t.validate(with_answer(seed, "I don't know")).success, t.id


def _opener():
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    jar = http.cookiejar.CookieJar()
    return urllib.request.build_opener(urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(jar),
                                       NoRedirect()), jar


def _call(opener, url, data=None, headers=None):
    req = urllib.request.Request(url, data=data, headers=headers or {}, method="POST" if data is not None else "GET")
    try:
        with opener.open(req) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def test_login_cookie_and_uploaded_attachment_are_undone_by_reset(arena, control):
    ep = control.create(seed=5)
    base = arena.episode_url(ep["id"], "")
    state, _ = control.state(ep["id"])
    user = next(u for u in state["forum_users"] if u["role"] == "member")
    tid = next(t["id"] for t in state["forum_threads"] if not t["locked"])
    web, jar = _opener()
    status, _, body = _call(web, base + f"/forum/api/threads/{tid}/reply", b"body=hi",
                            {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 401 and b"Log in first" in body  # starts logged out
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    status, _, body = _call(web, base + "/forum/login", f"username={user['username']}&password=nope".encode(), form)
    assert status == 200 and b"Wrong username or password" in body and not list(jar)
    status, hdrs, _ = _call(web, base + "/forum/login",
                            f"username={user['username']}&password={user['password']}".encode(), form)
    assert status == 303 and "wg_forum=" in hdrs["Set-Cookie"] and "HttpOnly" in hdrs["Set-Cookie"]
    payload = b"line one\nline two\n"
    boundary = "wgboundary42"
    multipart = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"body\"\r\n\r\nsee the log\r\n"
                 f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"run.log\"\r\n"
                 f"Content-Type: text/plain\r\n\r\n").encode() + payload + f"\r\n--{boundary}--\r\n".encode()
    status, _, body = _call(web, base + f"/forum/api/threads/{tid}/reply", multipart,
                            {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert status == 200 and b'"ok":true' in body, body
    after, _ = control.state(ep["id"])
    new = [f for f in after["files"] if f["name"] == "run.log"]
    assert len(new) == 1 and bytes.fromhex(new[0]["content"]["__bytes__"]) == payload
    assert len(after["forum_sessions"]) == 1
    status, _, body = _call(web, base + f"/forum/files/{new[0]['id']}")  # the app reads the stored file back
    assert status == 200 and body == payload
    r = control.reset(ep["id"], 5)
    assert r["hash"] == r["seed_hash"]
    again, _ = control.state(ep["id"])
    assert not again["forum_sessions"] and not [f for f in again["files"] if f["name"] == "run.log"]
    status, _, _ = _call(web, base + f"/forum/api/threads/{tid}/reply", b"body=hi", form)
    assert status == 401  # the browser kept its cookie, but the reset logged it out
    control.delete(ep["id"])


def test_upload_names_a_task_file_never_a_host_path():
    with pytest.raises(ActionError, match="never a host path"):
        Action("upload", element="e1", value="/etc/passwd")
    with pytest.raises(ActionError, match="never a host path"):  # answering a file chooser: a name too
        Action.from_dict({"kind": "upload", "value": "../a.log"})
    # without an element it answers the file chooser a click opened (how screenshot mode uploads)
    assert Action.from_dict({"kind": "upload", "value": "a.log"}).element is None
    t = build_tasks((0,), families=["forum.attach_file"])[0]
    assert t.public()["files"] == [t.files[0][0]]


@pytest.mark.browser
@pytest.mark.parametrize("seed", [0, 1])
async def test_oracle_solves_every_forum_family(browser, arena, seed, tmp_path, oracle_steps, at_public_seeds):
    """Every other forum family at each of seeds 0 and 1; two workers. The upload family (seed 0's)
    also checks that its file was written under the run's folder, landed in the files table, and that
    a reset removes it (and a stray file name is refused in the next episode)."""
    tasks = at_public_seeds(FORUM, seed)
    queue, results, uploads = list(tasks), {}, {}

    async def worker(k):
        env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url),
                       EnvOptions(upload_dir=tmp_path / str(k)))
        try:
            while queue:
                t = queue.pop(0)
                obs, results[t.family] = await oracle_steps(env, t)
                if t.files:
                    name = t.files[0][0]
                    stored = [f for f in env.state["files"] if f["name"] == name]
                    # the finished episode is sealed: a stray file name is tried on a fresh one
                    fresh = await env.reset(t)
                    stray = await env.step(Action("upload", element=fresh.elements[0].id, value="other.log"))
                    uploads[t.family] = (len(stored), bool(list(tmp_path.rglob(name))),
                                         stray.info["result"].get("rejected"),
                                         [f for f in env.state["files"] if f["name"] == name])
        finally:
            await env.close()

    await asyncio.gather(worker(0), worker(1))
    failed = {k: v for k, v in results.items() if not v[0] or v[1] or v[2]}
    assert sorted(results) == sorted(t.family for t in tasks) and not failed, failed
    assert sum(v[3] >= 10 for v in results.values()) >= 2  # with the other seed's half: 4 of the 7 take 10+ actions
    if seed == 0:
        assert uploads["forum.attach_file"] == (1, True, "unknown_file", [])  # stored, under the run, refused, reset
    else:
        assert "forum.attach_file" not in results and not uploads


def test_gym_samples_of_upload_decode_to_a_task_file(arena):
    from webgauge.arena.adapters.gym_env import ArenaGymEnv
    from webgauge.arena.core.actions import ACTION_KINDS
    from webgauge.arena.core.observation import Observation
    from webgauge.browser import Element

    t = build_tasks((0,), families=["forum.attach_file"])[0]
    env = ArenaGymEnv([t], obs_mode="dom", server=arena)
    try:
        env.task = t  # an observation without a browser: decoding reads only the element table
        env._last = Observation(step=0, url="http://127.0.0.1/e/x/forum/t/1", navigation_id=1, viewport=(1280, 800),
                                device_scale_factor=1.0, scroll=(0.0, 0.0), tabs=["u"], screenshot_hash="f" * 64,
                                elements=[Element(id="f1", path="", tag="input", role="button", name="Attach a file",
                                                  text="", box=(0, 0, 90, 20), visible=True, clickable=True, color="",
                                                  background_color="", font_size=14.0, attrs={"type": "file"})])
        env.action_space.seed(1)
        for _ in range(5):
            a = env.decode({**env.action_space.sample(), "kind": ACTION_KINDS.index("upload")})
            assert (a.kind, a.element, a.value) == ("upload", "f1", t.files[0][0])
    finally:
        env.close()


def test_sealed_heldout_records_hide_the_upload_file_names():
    import json

    from webgauge.arena.runner import seal_heldout_content

    t = build_tasks((0,), families=["forum.attach_file"])[0]
    name = t.files[0][0]
    rec = {"task": t.describe(), "steps": [{"action": {"kind": "upload", "element": "e3", "value": name},
                                            "result": {"ok": True, "kind": "upload"}, "thought": "", "raw": ""},
                                           {"action": {"kind": "upload", "value": name},
                                            "observed": {"file_chooser": [name]},
                                            "result": {"ok": True, "kind": "upload"}, "thought": "", "raw": ""}],
           "validator_errors": [], "forbidden_violations": [], "done_answer": None}
    assert name in json.dumps(rec)
    assert name not in json.dumps(seal_heldout_content(rec))
