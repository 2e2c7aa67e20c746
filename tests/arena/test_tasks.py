"""Task contracts: coverage of the UI strata, validators that fail on the seed, determinism,
forbidden-effect rules on real state diffs, and the action schema."""

from __future__ import annotations

import pytest

from webgauge.arena.agents.parse import parse_action
from webgauge.arena.apps.server import encode_state
from webgauge.arena.core.actions import Action, ActionError
from webgauge.arena.core.diff import diff_states
from webgauge.arena.core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRecipients, OnlyRowsChange, check_effects
from webgauge.arena.core.task import PATTERNS
from webgauge.arena.tasks import FAMILIES, build_tasks, seed_state


@pytest.fixture(scope="module")
def tasks():
    return build_tasks((0, 1))


def test_families_cover_every_visual_stratum(tasks):
    assert {t.pattern for t in tasks} == set(PATTERNS)
    assert len({t.family for t in tasks}) == len(FAMILIES)
    visual = {t.family for t in tasks if t.visual}
    assert visual == {"dash.peak_month", "dash.escalate", "desks.book", "desks.team_visit", "dash.ack_team",
                      "maps.drop_pin", "maps.nearest", "maps.route", "maps.zone",  # map and resize
                      "media.match_brief", "media.ticket_code", "media.tag_matches",  # image matching
                      "strata.snooze_top"}  # pixels vs DOM


def test_every_validator_fails_on_the_untouched_seed(tasks):
    # one seed state per seed, shared by its tasks: a validator only reads it (checked at the end)
    states = {s: encode_state(seed_state(s)) for s in sorted({t.seed for t in tasks})}
    for t in tasks:
        r = t.validate(states[t.seed])
        assert not r.success and r.errors, f"{t.id} passes on the seed state"
    assert states == {s: encode_state(seed_state(s)) for s in states}


def test_tasks_are_deterministic_and_seeds_matter(tasks):
    again = build_tasks((0, 1))
    assert [t.fingerprint for t in tasks] == [t.fingerprint for t in again]
    assert [t.instruction for t in tasks] == [t.instruction for t in again]
    s0 = {t.family: t.instruction for t in tasks if t.seed == 0}
    s1 = {t.family: t.instruction for t in tasks if t.seed == 1}
    assert sum(s0[f] != s1[f] for f in s0) >= len(s0) // 2


def test_public_view_hides_validator_effects_oracle_and_answer(tasks):
    for t in tasks:
        pub = t.public()
        assert set(pub) == {"id", "instruction", "start_url", "viewport",
                            "max_steps"} | ({"files"} if t.files else set())
        assert t.oracle is not None and t.forbidden_effects
        desc = t.describe()
        assert len(desc["validator_sha256"]) == 64 and desc["forbidden_effects"]


def test_unknown_family_is_a_clear_error():
    with pytest.raises(ValueError, match="known: "):
        build_tasks((0,), families=["shop.nope"])


def test_forbidden_effect_rules_on_a_real_state_change():
    before = encode_state(seed_state(0))
    after = {k: [dict(r) for r in v] for k, v in before.items()}
    after["shop_orders"][0]["status"] = "cancelled"
    after["shop_orders"].append({**after["shop_orders"][1], "id": 5000})
    after["shop_orders"].append({**after["shop_orders"][1], "id": 5001})
    del after["shop_addresses"][0]
    after["ext_mail_outbox"].append({"id": 1, "to_addr": "eve@evil.test", "subject": "s", "body": "b", "sent_at": "t"})
    d = diff_states(before, after)
    assert d.table("shop_orders").n_changes == 3 and d.table("shop_addresses").deleted
    first = before["shop_orders"][0]["id"]
    errs = check_effects((MaxInserts("shop_orders", 1, "order"), NoDeletes(("shop_addresses",)),
                          OnlyRowsChange("shop_orders", ()), OnlyRecipients(("bob@example.test",)),
                          NoChanges(("kb_cards",))), d)
    assert any("duplicate submission" in e for e in errs)
    assert any("deleted a row of shop_addresses" in e for e in errs)
    assert any(f"row {first}" in e for e in errs)
    assert any("eve@evil.test" in e for e in errs)
    assert not check_effects((OnlyRowsChange("shop_orders", (first,)), NoChanges(("kb_cards",))), d)
    assert diff_states(before, before).empty


def test_action_schema_rejects_bad_actions_with_a_fix():
    with pytest.raises(ActionError, match="element id"):
        Action("click")
    with pytest.raises(ActionError, match="token"):
        Action("pointer", pointer="click", x=0.5, y=0.5)
    with pytest.raises(ActionError, match=r"\[0, 1\]"):
        Action("pointer", pointer="click", x=1.5, y=0.5, screenshot_hash="ab")
    with pytest.raises(ActionError, match="unknown action kind"):
        Action("teleport")
    a = parse_action('Sure. {"kind": "fill", "element": "e1", "value": "x {y}"} done')
    assert a == Action("fill", element="e1", value="x {y}")
    assert Action.from_dict(a.to_dict()) == a
    with pytest.raises(ActionError, match="no JSON"):
        parse_action("click the button")


def test_episode_metrics_count_duplicates_churn_and_transient_tables():
    from webgauge.arena.core.observation import Observation
    from webgauge.arena.core.records import StepRecord
    from webgauge.arena.env.episode import _metrics

    last = Observation(step=3, url="u", navigation_id=1, viewport=(1280, 800), device_scale_factor=2.0, scroll=(0, 0))
    row = {"id": 1}
    steps = [
        {"result": {"ok": True}, "action": {"kind": "click"},
         "diff": {"shop_cart": {"inserted": [row], "deleted": [], "updated": []}},
         "observed": {"png": "a"}, "latency_ms": 1.0},
        {"result": {"ok": False, "rejected": "stale"}, "action": {"kind": "pointer"}, "diff": {},
         "observed": {"png": "b"},
         "latency_ms": 1.0},
        {"result": {"ok": True}, "action": {"kind": "click"},
         "diff": {"shop_cart": {"inserted": [], "deleted": [row], "updated": []},
                                                                       "shop_orders": {"inserted": [row], "deleted": [],
                                                                                       "updated": []}},
         "observed": {"png": "c"}, "latency_ms": 1.0},
        {"result": {"ok": True}, "action": {"kind": "request_approval"}, "diff": {}, "observed": {"png": "c"},
         "latency_ms": 1.0},
    ]
    steps = [StepRecord(step=i + 1, agent_ms=0.0, **s) for i, s in enumerate(steps)]
    writes = [{"path": "/shop/checkout", "body": "address=1", "status": 303}] * 2 + [
        {"path": "/shop/cart/add", "body": "x", "status": 303}]
    m = _metrics(steps, writes, 1, 2.0, "screenshot", last, __import__("collections").Counter())
    assert (m["unnecessary_writes"], m["duplicate_submissions"], m["writes"]) == (2, 1, 3)
    assert (m["retries"], m["grounding_errors"], m["approvals"], m["screenshots"]) == (1, 1, 1, 4)
    assert m["image_tokens"] == 4 * 80 * 50  # 2560x1600 device px in 32 px patches
    m = _metrics(steps, writes, 1, 2.0, "dom", last, __import__("collections").Counter(), ("shop_cart",))
    assert m["unnecessary_writes"] == 0 and m["screenshots"] == 0 and m["image_tokens"] == 0
