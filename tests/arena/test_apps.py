"""The ASGI apps (Starlette + Jinja2): real log-in with a session cookie, feature flags, an
upload, each undone by reset; oracles solve their families in real Chromium; answers."""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

from webgauge.arena.apps.control import ControlClient
from webgauge.arena.apps.server import encode_state
from webgauge.arena.core.answers import answer_matches, check_answer, with_answer
from webgauge.arena.env import ArenaEnv
from webgauge.arena.tasks import build_tasks, seed_state

NEW = ["wiki.lookup", "wiki.update_fact", "wiki.owner_to_admin", "admin.set_role", "admin.deactivate_group",
       "admin.delete_user", "admin.flag_email", "admin.count_status", "cal.book", "cal.booking_reference",
       "cal.cancel", "cal.wiki_review"]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _client():
    jar = http.cookiejar.CookieJar()
    return urllib.request.build_opener(urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(jar),
                                       _NoRedirect()), jar


def _call(opener, url, data=None, headers=None):
    req = urllib.request.Request(url, data=data, headers=headers or {}, method="POST" if data is not None else "GET")
    try:
        with opener.open(req) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:  # 303 redirects surface here with _NoRedirect
        return e.code, e.headers, e.read()


def test_login_cookie_flags_and_upload_are_all_undone_by_reset(arena, control):
    ep = control.create(seed=3)
    base = arena.episode_url(ep["id"], "")
    state, _ = control.state(ep["id"])
    acct = state["admin_accounts"][0]
    web, jar = _client()
    status, hdrs, _ = _call(web, base + "/admin/users")
    assert status == 303 and "/admin/login" in hdrs["Location"]  # starts logged out
    status, _, body = _call(web, base + "/admin/login", f"username={acct['username']}&password=nope".encode(),
                            {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 200 and b"Wrong username or password" in body and not list(jar)
    status, hdrs, _ = _call(web, base + "/admin/login",
                            f"username={acct['username']}&password={acct['password']}".encode(),
                            {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 303 and "wg_admin=" in hdrs["Set-Cookie"] and "HttpOnly" in hdrs["Set-Cookie"]
    status, _, body = _call(web, base + "/admin/users")
    assert status == 200 and b"400 users" in body and b"<th>Email</th>" not in body
    # a feature flag changes what renders
    _call(web, base + "/admin/flags/admin_show_email", b"", {"Content-Type": "application/x-www-form-urlencoded"})
    assert b"<th>Email</th>" in _call(web, base + "/admin/users")[2]
    # an upload is stored as a file and read back into rows
    csv = b"name,email,team,role\nZed Upload,zed@up.example,Ops,Viewer\n"
    body = (b"--BOUND\r\nContent-Disposition: form-data; name=\"csv\"; filename=\"people.csv\"\r\n"
            b"Content-Type: text/csv\r\n\r\n" + csv + b"\r\n--BOUND--\r\n")
    status, hdrs, _ = _call(web, base + "/admin/import", body, {"Content-Type": "multipart/form-data; boundary=BOUND"})
    assert status == 303 and "imported=1" in hdrs["Location"]
    after, h_after = control.state(ep["id"])
    assert [f["name"] for f in after["files"] if f["owner"] == "admin_import"] == ["people.csv"]
    assert len(after["admin_users"]) == 401 and after["admin_sessions"]
    assert {f["name"]: f["value"] for f in after["meta_flags"]}["admin_show_email"] == "1"
    # reset: seed hash again, and the browser's cookie no longer logs it in
    r = control.reset(ep["id"])
    assert r["hash"] == r["seed_hash"] != h_after
    status, hdrs, _ = _call(web, base + "/admin/users")
    assert list(jar) and status == 303 and "/admin/login" in hdrs["Location"]
    control.delete(ep["id"])


def test_wiki_api_is_json_paginated_and_searchable(arena, control):
    ep = control.create(seed=0)
    base = arena.episode_url(ep["id"], "")
    web, _ = _client()
    first = json.loads(_call(web, base + "/wiki/api/search?page=1")[2])
    assert first["total"] == 320 and first["pages"] == 32 and len(first["results"]) == 10
    second = json.loads(_call(web, base + "/wiki/api/search?page=2")[2])
    assert not {r["slug"] for r in first["results"]} & {r["slug"] for r in second["results"]}
    title = second["results"][3]["title"]
    hit = json.loads(_call(web, base + "/wiki/api/search?" + urllib.parse.urlencode({"q": title}))[2])
    assert [r["title"] for r in hit["results"]] == [title]
    shell = _call(web, base + "/wiki/")[2]
    assert b"wiki.js" in shell and title.encode() not in shell  # the page itself is rendered by the client
    control.delete(ep["id"])


def test_answers_are_judged_from_the_state_and_the_seed_never_passes():
    assert answer_matches("CC-1022", "It is CC-1022.") and answer_matches("173", "173 days")
    assert answer_matches("a.b@corp.example", "A.B@corp.example") and not answer_matches("CC-1022", "CC-10223")
    assert not answer_matches("12", "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 or 14 perhaps")
    assert check_answer({}, "x") and not check_answer(with_answer({}, "x"), "x")
    for t in build_tasks((0,), families=NEW):
        seed = encode_state(seed_state(0))
        assert not t.validate(with_answer(seed, None)).success, t.id
        if t.answer is not None:
            assert not t.validate(with_answer(seed, "I don't know")).success, t.id


@pytest.mark.browser
async def test_oracle_solves_the_new_app_families(browser, arena, oracle_steps):
    tasks = build_tasks((0,), families=NEW)
    queue, results = list(tasks), {}

    async def worker():
        env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url))
        try:
            while queue:
                t = queue.pop(0)
                _, results[t.family] = await oracle_steps(env, t)
        finally:
            await env.close()

    await asyncio.gather(worker(), worker())
    failed = {k: v for k, v in results.items() if not v[0] or v[1] or v[2]}
    assert len(results) == len(NEW) and not failed, failed
    assert sum(v[3] >= 10 for v in results.values()) >= 3  # the cross-page and multi-row families need 10+ actions
