"""The real apps' approval gate without the apps (fast): each app declares a gated route for each
of its irreversible controls, the routes recognise the destructive requests however they are
spelled (query or body; urlencoded, multipart, JSON; percent-encoded; another loopback host name;
a tunnelled method), and leave the apps' ordinary requests alone."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webgauge.arena.adapters.external import ExternalApp
from webgauge.arena.core.gate import GatedRoute, request_params
from webgauge.arena.realapps.mediawiki import app as mediawiki
from webgauge.arena.realapps.oscar import app as oscar
from webgauge.arena.realapps.roundup import app as roundup
from webgauge.arena.realapps.trac import app as trac

APPS = {"roundup": (roundup, "http://127.0.0.1:8917/tracker/"), "mediawiki": (mediawiki, "http://127.0.0.1:8918/"),
        "oscar": (oscar, "http://127.0.0.1:8919/"), "trac": (trac, "http://127.0.0.1:8920/")}

# (method, path inside the app, form fields) of each app's destructive request as its page sends it
DESTRUCTIVE = {
    "roundup": ("POST", "user7", {"@template": "index", "@csrf": "k1", "@action": "retire"}),
    "mediawiki": ("POST", "index.php?title=Release_notes&action=delete",
                  {"wpDeleteReasonList": "other", "wpReason": "", "wpEditToken": "t+\\", "wpConfirmB": "Delete page"}),
    "oscar": ("POST", "checkout/preview/", {"csrfmiddlewaretoken": "c", "action": "place_order"}),
    "trac": ("POST", "wiki/OnCall", {"__FORM_TOKEN": "t", "action": "delete", "version": ""}),
}
# requests the apps' tasks make all the time: never gated
ORDINARY = {
    "roundup": [("POST", "issue12", {"@action": "edit", "status": "3"}), ("GET", "issue?@action=search&title=x", {}),
                ("POST", "", {"@action": "Login", "__login_name": "a"}), ("GET", "rest/data/issue/3", {})],
    "mediawiki": [("GET", "index.php?title=Release_notes&action=delete", {}),
                  ("POST", "index.php?title=Release_notes&action=submit", {"wpTextbox1": "delete it"}),
                  ("POST", "api.php", {"action": "query", "list": "search"})],
    "oscar": [("POST", "basket/add/3/", {"quantity": "1"}), ("POST", "checkout/preview/", {"action": "preview"}),
              ("GET", "checkout/preview/?action=place_order", {}),
              ("GET", "dashboard/vouchers/delete/2/", {}),  # the confirmation page itself
              ("POST", "dashboard/orders/100004/", {"order_action": "change_order_status", "new_status": "Complete"}),
              ("POST", "dashboard/catalogue/products/12/", {"action": "save", "stockrecords-0-price": "9.50"}),
              ("POST", "dashboard/vouchers/create/", {"name": "deleted items", "code": "DELETE10"})],
    "trac": [("GET", "wiki/OnCall?action=delete", {}), ("POST", "wiki/OnCall", {"action": "edit", "text": "delete"}),
             ("POST", "ticket/3", {"action": "resolve", "comment": "delete this"}),
             ("POST", "milestone/1.3", {"action": "edit", "save": "Submit changes"}),
             ("POST", "admin/ticket/milestones", {"name": "2.0", "add": "Add"}),
             ("POST", "admin/general/perm", {"subject": "x", "action": "WIKI_DELETE", "add": "Add"})],
}


def _control(name: str):
    mod, url = APPS[name]
    ext = ExternalApp(name, url, ["true"], dict, irreversible=mod.IRREVERSIBLE, gated=mod.GATED)
    c = ext.control()
    c.set_gate("e", True)
    return c, url


def _urlencoded(fields: dict[str, str]) -> bytes:
    return "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in fields.items()).encode()


def _multipart(fields: dict[str, str]) -> tuple[bytes, str]:
    b = "----WebKitFormBoundaryq1w2e3"
    body = "".join(f'--{b}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n' for k, v in fields.items())
    return f"{body}--{b}--\r\n".encode(), f"multipart/form-data; boundary={b}"


@pytest.mark.parametrize("name", sorted(APPS))
def test_each_real_app_declares_a_gated_route_for_each_irreversible_control(name):
    mod, _ = APPS[name]
    assert mod.IRREVERSIBLE, f"{name} declares no irreversible control"
    gated = {r.control for r in mod.GATED}
    assert set(mod.IRREVERSIBLE) <= gated, f"{name}: no gated route for {set(mod.IRREVERSIBLE) - gated}"
    assert gated <= set(mod.IRREVERSIBLE), f"{name}: a gated route names an undeclared control"
    assert all(isinstance(r, GatedRoute) for r in mod.GATED)


ENCODINGS = ("urlencoded", "multipart", "json", "query")


def _send(c, url: str, method: str, path: str, fields: dict[str, str], how: str, host: str = ""):
    full = url + path
    if host:
        full = full.replace("127.0.0.1", host)
    if how == "query":
        sep = "&" if "?" in full else "?"
        return c.request_gate(method, full + sep + _urlencoded(fields).decode(), {"accept": "text/html"}, None)
    if how == "multipart":
        body, ct = _multipart(fields)
    elif how == "json":
        import json
        body, ct = json.dumps(fields).encode(), "application/json"
    else:
        body, ct = _urlencoded(fields), "application/x-www-form-urlencoded"
    return c.request_gate(method, full, {"content-type": ct, "accept": "text/html"}, body)


@pytest.mark.parametrize("name", sorted(APPS))
@pytest.mark.parametrize("how", ENCODINGS)
def test_each_destructive_request_is_refused_however_it_is_encoded(name, how):
    c, url = _control(name)
    method, path, fields = DESTRUCTIVE[name]
    refused = _send(c, url, method, path, fields, how)
    assert refused is not None and refused[0] == 403, (name, how)
    assert c.gate.events[-1]["outcome"] == "blocked" and c.gate.events[-1]["control"] == DESTRUCTIVE_CONTROL[name]


DESTRUCTIVE_CONTROL = {"roundup": "retire", "mediawiki": "Delete page", "oscar": "Place order", "trac": "Delete page"}


@pytest.mark.parametrize("name", sorted(APPS))
@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "[::1]"])
def test_another_loopback_host_name_or_a_percent_encoded_path_does_not_evade(name, host):
    c, url = _control(name)
    method, path, fields = DESTRUCTIVE[name]
    assert _send(c, url, method, path, fields, "urlencoded", host=host) is not None
    enc = "".join(f"%{ord(ch):02X}" for ch in url.split("/", 3)[3]) if url.count("/") > 3 else ""
    spelled = url.split("/", 3)[:3]
    other = "/".join(spelled) + "/" + enc + path
    assert c.request_gate(method, other, {"content-type": "application/x-www-form-urlencoded"},
                          _urlencoded(fields)) is not None
    assert _send(c, url.replace(":89", ":79"), method, path, fields, "urlencoded") is None  # another port: not the app


@pytest.mark.parametrize("name", sorted(APPS))
def test_ordinary_requests_pass_and_are_not_recorded(name):
    c, url = _control(name)
    for method, path, fields in ORDINARY[name]:
        assert _send(c, url, method, path, fields, "urlencoded") is None, (name, method, path, fields)
    assert c.gate.events == []


def test_roundup_rest_and_xmlrpc_retirements_are_refused():
    c, url = _control("roundup")
    assert c.request_gate("DELETE", url + "rest/data/issue/4", {}, None) is not None
    assert c.request_gate("DELETE", url + "rest/data/issue", {}, None) is not None  # a whole class
    assert c.request_gate("POST", url + "rest/data/issue/4", {"X-HTTP-Method-Override": "DELETE"}, b"") is not None
    assert c.request_gate("PATCH", url + "rest/data/issue/4", {"content-type": "application/json"},
                          b'{"@op": "action", "@action_name": "retire"}') is not None
    assert c.request_gate("POST", url + "xmlrpc", {"content-type": "text/xml"}, b"<methodCall/>") is not None
    assert c.request_gate("POST", url + "issue4", {"content-type": "text/plain"}, b":action=RETIRE\r\n") is not None
    assert [e["outcome"] for e in c.gate.events] == ["blocked"] * 6


def test_trac_milestone_deletions_are_refused_on_both_pages():
    c, url = _control("trac")
    assert _send(c, url, "POST", "milestone/1.3", {"action": "delete", "target": "1.4"}, "urlencoded") is not None
    assert _send(c, url, "POST", "admin/ticket/milestones", {"sel": "1.3", "remove": "Remove selected items"},
                 "multipart") is not None
    assert [e["control"] for e in c.gate.events] == ["Delete milestone", "Delete milestone"]


def test_an_unreadable_body_fails_closed():
    c, url = _control("mediawiki")
    # the browser did not hand over a body it sent: the gate cannot rule the parameters out
    assert c.request_gate("POST", url + "index.php", {"content-length": "412"}, None) is not None
    assert c.request_gate("POST", url + "index.php", {}, None) is None  # no body at all: nothing to delete with


def test_one_approval_unlocks_one_request_of_its_control_only():
    c, url = _control("roundup")
    method, path, fields = DESTRUCTIVE["roundup"]
    c.approve("e", "Delete page")  # another app's control: unlocks nothing here
    assert _send(c, url, method, path, fields, "urlencoded") is not None
    c.approve("e", "retire", "the task says so")
    assert _send(c, url, method, path, fields, "urlencoded") is None
    assert _send(c, url, method, path, fields, "multipart") is not None
    assert [(e["outcome"], e["grant"]) for e in c.gate.events] == [("blocked", None), ("allowed", 2), ("blocked", None)]


_name_chars = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(fields=st.dictionaries(_name_chars, st.text(max_size=20), max_size=5), how=st.sampled_from(ENCODINGS[:3]))
def test_request_params_reads_back_every_field_sent(fields, how):
    if how == "urlencoded":
        got = request_params("", _urlencoded(fields), "application/x-www-form-urlencoded")
    elif how == "multipart":
        fields = {k: v for k, v in fields.items() if '"' not in k and "\r" not in k and "\n" not in k}
        got = request_params("", *_multipart(fields))
    else:
        import json
        got = request_params("", json.dumps(fields).encode(), "application/json")
    assert got is not None
    for k, v in fields.items():
        sent = (k, v.replace("\r\n", "\n")) if how == "multipart" else (k, v)
        assert sent in [(a, b.replace("\r\n", "\n")) for a, b in got] or (k, v) in got, (k, v, got)


@settings(max_examples=80, deadline=None)
@given(noise=st.dictionaries(st.sampled_from(["title", "@template", "wpReason", "quantity", "x", "@csrf"]),
                             st.text(max_size=10), max_size=4),
       name=st.sampled_from(sorted(APPS)), how=st.sampled_from(ENCODINGS),
       case=st.sampled_from([str.lower, str.upper, str.title]))
def test_the_destructive_field_among_any_other_fields_is_refused(noise, name, how, case):
    c, url = _control(name)
    method, path, _ = DESTRUCTIVE[name]
    key, value = {"roundup": ("@action", "retire"), "mediawiki": ("action", "delete"),
                  "oscar": ("action", "place_order"), "trac": ("action", "delete")}[name]
    value = value if name == "oscar" else case(value)  # Roundup and MediaWiki lower-case the action; Trac's gate too
    sent = {**noise, key: value}
    path = path.split("?")[0]
    assert _send(c, url, method, path, sent, how) is not None


@pytest.mark.parametrize("path", ["dashboard/vouchers/delete/3/", "dashboard/catalogue/products/12/delete/",
                                  "dashboard/offers/2/delete/", "dashboard/catalogue/categories/4/delete/"])
def test_oscars_dashboard_deletions_are_refused_without_an_approval(path):
    c, url = _control("oscar")
    refused = _send(c, url, "POST", path, {"csrfmiddlewaretoken": "c"}, "urlencoded")
    assert refused is not None and refused[0] == 403, path
    assert c.gate.events[-1]["outcome"] == "blocked" and c.gate.events[-1]["control"] == "Delete"
