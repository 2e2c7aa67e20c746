"""Tasks that act as an account start at its sign-in link: the episode opens signed in, the
link names neither user nor password, a wrong or foreign token signs nobody in, and a reset
signs the browser out again."""

from __future__ import annotations

import http.cookiejar
import urllib.error
import urllib.parse
import urllib.request

import pytest

from webgauge.arena.apps.admin import signin_path as admin_signin
from webgauge.arena.apps.forum import signin_path as forum_signin
from webgauge.arena.tasks import build_tasks

SIGNED_IN = ["admin.set_role", "admin.flag_email", "admin.count_status", "wiki.owner_to_admin", "cal.cancel_team_day",
             "forum.carry_solution", "forum.wiki_reply", "forum.moderate", "forum.attach_file", "forum.upvote_solution"]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _client():
    jar = http.cookiejar.CookieJar()
    return urllib.request.build_opener(urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(jar),
                                       _NoRedirect()), jar


def _get(opener, url):
    try:
        with opener.open(urllib.request.Request(url)) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def test_signed_in_tasks_start_at_a_link_that_names_no_secret():
    for t in build_tasks((0, 5), families=SIGNED_IN):
        app = "admin" if t.family.startswith(("admin", "wiki", "cal")) else "forum"
        assert t.start_url.startswith(f"/{app}/signin/"), t.id
        assert "password" not in t.instruction.lower() and "signed in" in t.instruction.lower(), t.instruction


@pytest.mark.parametrize("app", ["admin", "forum"])
def test_a_signin_link_starts_a_session_and_reset_ends_it(arena, control, app):
    ep = control.create(seed=2)
    base = arena.episode_url(ep["id"], "")
    state, _ = control.state(ep["id"])
    if app == "admin":
        acct = state["admin_accounts"][0]
        path, table, home, who = admin_signin(acct["username"], acct["password"], "/wiki/"), "admin_sessions", \
            "/admin/users", acct["username"]
    else:
        acct = next(u for u in state["forum_users"] if u["role"] == "member")
        path, table, home, who = forum_signin(acct["username"], acct["password"], "/wiki/"), "forum_sessions", \
            "/forum/", acct["name"]
    assert acct["username"] not in path and acct["password"] not in path
    web, jar = _client()
    # a forged token, and a real one for a password that is not the account's: nobody signs in
    bad = path.replace(path.split("/")[3].split("?")[0], "0" * 24)
    forged = (admin_signin if app == "admin" else forum_signin)(acct["username"], acct["password"] + "x")
    for p in (bad, forged):
        status, _, body = _get(web, base + p)
        assert status == 200 and b"not valid" in body and not list(jar)
    assert not control.state(ep["id"])[0][table]
    # the real link: a session, a cookie, and on to the page asked for
    status, hdrs, _ = _get(web, base + path)
    assert status == 303 and hdrs["Location"].endswith("/wiki/") and f"wg_{app}=" in hdrs["Set-Cookie"]
    assert len(control.state(ep["id"])[0][table]) == 1
    status, _, body = _get(web, base + home)
    assert status == 200 and who.encode() in body
    # a next that leaves the episode is not followed
    status, hdrs, _ = _get(web, base + path.split("?")[0] + "?" + urllib.parse.urlencode({"next": "//evil.test/x"}))
    assert status == 303 and "evil" not in hdrs["Location"]
    # reset: the seed holds no session, so the cookie signs nobody in any more
    control.reset(ep["id"])
    status, hdrs, body = _get(web, base + home)
    assert list(jar) and (status == 303 or who.encode() not in body)
    control.delete(ep["id"])
