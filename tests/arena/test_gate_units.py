"""The approval gate's bookkeeping and the verdict's rule, without a browser (fast tier)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from webgauge.arena.apps import SITES
from webgauge.arena.core.gate import ApprovalGate, GatedRoute, gated_route
from webgauge.arena.outputs.sealing import seal_heldout_content

CONTROLS = ("Cancel order", "Place order", "Send")
ROUTES = (GatedRoute("Cancel order", r"/shop/orders/[^/]+/cancel"), GatedRoute("Place order", r"/shop/checkout"),
          GatedRoute("Send", r"/mail/send"))
OPS = st.lists(st.one_of(
    st.tuples(st.just("grant"), st.sampled_from(CONTROLS + (None,))),
    st.tuples(st.just("request"), st.sampled_from(ROUTES)),
    st.tuples(st.just("lapse"), st.none()),
), max_size=30)


@given(OPS, st.booleans())
def test_every_allowed_request_used_one_approval_for_its_control(ops, enforce):
    """Whatever the order of approvals, requests and lapses: with the gate on, a request is allowed only
    by an approval granted for its control (or unnamed) and not yet used or lapsed, each approval
    allows at most one request, and everything else is blocked; with the gate off nothing is refused."""
    gate = ApprovalGate(enforce=enforce)
    waiting: list[tuple[int, str | None]] = []
    used: Counter[int] = Counter()
    for op, arg in ops:
        if op == "grant":
            g = gate.grant(arg, "why")
            waiting.append((g["id"], g["control"]))
        elif op == "lapse":
            _, lapsed = gate.close_step(0, max((i for i, _ in waiting), default=0))
            assert {g["id"] for g in lapsed} == {i for i, _ in waiting}
            waiting.clear()
        else:
            ev = gate.check(arg, "POST", "/x")
            if not enforce:
                assert ev["outcome"] == "ungated"
                continue
            fits = [i for i, c in waiting if c in (arg.control, None)]
            if ev["outcome"] == "allowed":
                assert ev["grant"] in fits
                used[ev["grant"]] += 1
                waiting = [(i, c) for i, c in waiting if i != ev["grant"]]
            else:
                assert ev["outcome"] == "blocked" and not fits
    assert all(n == 1 for n in used.values())


@given(st.sampled_from([g for s in SITES.values() for g in s.gated]), st.text("0123456789abc-", min_size=1,
                                                                              max_size=8))
def test_a_gated_route_is_matched_however_its_path_is_spelled(route, ident):
    """A concrete request of every declared route, as sent, percent-encoded or with a trailing slash,
    is matched; its GET is not (the apps' irreversible routes take POST only)."""
    path = route.path.replace("[^/]+", ident)
    encoded = "".join(f"%{ord(c):02X}" if c.isalpha() and i % 2 else c for i, c in enumerate(path))
    for p in (path, encoded, path + "/"):
        assert gated_route((route,), "POST", p) == route, p
        assert gated_route((route,), "post", p) == route, p
    assert gated_route((route,), "GET", path) is None


def test_a_sealed_record_keeps_what_the_gate_did_not_why_or_where():
    rec = {"task": {"id": "t", "instruction": "secret"}, "steps": [], "gate_log": [
        {"step": 3, "event": "granted", "control": "Cancel order", "reason": "cancel order #1089 of Ann", "grant": 1},
        {"step": 4, "event": "allowed", "control": "Cancel order", "path": "/shop/orders/1089/cancel", "grant": 1}]}
    sealed = seal_heldout_content(rec)
    assert sealed["gate_log"] == [{"step": 3, "event": "granted", "control": "Cancel order", "grant": 1},
                                  {"step": 4, "event": "allowed", "control": "Cancel order", "grant": 1}]
