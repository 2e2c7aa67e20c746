"""Variants, held-out slices, approval policies and trap detection without a browser."""

from __future__ import annotations

import json
import urllib.request

import pytest

from webgauge.arena.apps.server import encode_state
from webgauge.arena.core.diff import diff_states
from webgauge.arena.env.approval import DESTRUCTIVE_FAMILIES, get_policy
from webgauge.arena.replay import final_state
from webgauge.arena.tasks import build_tasks, seed_state
from webgauge.arena.tasks.heldout import heldout_seeds, load_secret, make_slices, secret_commitment
from webgauge.arena.variants import COHORTS, FORM_FACTORS, VARIANTS, apply_variant, get_variant, variant_names
from webgauge.arena.variants.traps import TRAPS, TrapServer, lure_words

SECRET = b"unit-test-secret-0123456789abcdef"


def test_variant_task_keeps_intent_validator_and_rules():
    base = next(t for t in build_tasks((0,)) if t.family == "shop.cancel_order")
    for name in variant_names():
        if name == "base" or not get_variant(name).applies_to(base):
            continue
        v = get_variant(name).apply(base)
        assert v.validate is base.validate and v.describe()["validator_sha256"] == base.describe()["validator_sha256"]
        assert (v.instruction, v.forbidden_effects, v.start_url, v.family) == \
            (base.instruction, base.forbidden_effects, base.start_url, base.family)
        assert v.variant == name and v.id == f"{base.id}~{name}" and v.fingerprint != base.fingerprint
        assert v.max_steps == base.max_steps + get_variant(name).extra_steps
        assert v.params["base_task"] == base.id and v.public()["id"] == v.id
        assert "validate" not in json.dumps(v.public()) and base.instruction == v.public()["instruction"]
    with pytest.raises(ValueError, match="already the variant"):
        get_variant("popup.cookie").apply(get_variant("perturb.color").apply(base))


def test_cohorts_cover_four_form_factors_at_three_scale_factors():
    assert len(COHORTS) == 12
    seen = {(v.viewport.width, v.viewport.height, v.viewport.device_scale_factor) for v in COHORTS.values()}
    assert seen == {(w, h, float(d)) for (w, h) in FORM_FACTORS.values() for d in (1, 2, 3)}
    tasks = build_tasks((0,))
    responsive = [t for t in tasks if t.pattern in ("responsive", "resize")]  # their viewport is the task
    assert responsive and not any(COHORTS["cohort.mobile@3x"].applies_to(t) for t in responsive)
    out = apply_variant(tasks, ["base", "cohort.tablet@2x"])
    assert len(out) == len(tasks) + len(tasks) - len(responsive)
    assert {t.viewport.device_scale_factor for t in out if t.variant == "cohort.tablet@2x"} == {2.0}


def test_catalogue_names_every_kind_and_rejects_unknown_names():
    kinds = {v.kind for v in VARIANTS.values()} | {TRAPS[n].kind for n in TRAPS}
    assert kinds == {"base", "cohort", "perturb", "popup", "slow", "late", "stale", "trap"}
    assert set(variant_names("trap")) == {"trap.decoy", "trap.ad", "trap.frame", "trap.download", "trap.hidden"}
    with pytest.raises(KeyError, match="known: base"):
        get_variant("popup.nope")
    d = get_variant("cohort.mobile@3x").describe()
    assert d["viewport"] == {"width": 390, "height": 844, "device_scale_factor": 3.0}


def test_heldout_slice_is_secret_new_and_reproducible(monkeypatch):
    seeds = heldout_seeds(SECRET, 3)
    assert seeds == heldout_seeds(SECRET, 3) and len(set(seeds)) == 3
    assert not set(seeds) & {0, 1} and seeds != heldout_seeds(SECRET + b"x", 3)
    sl = make_slices(SECRET, n_heldout=1, families=["shop.buy_variant", "mail.forward"])
    assert [t.family for t in sl.public] == ["shop.buy_variant", "mail.forward"] * 2
    for t in sl.heldout:
        assert str(t.params["source_id"].rsplit(".s", 1)[1]) not in t.id  # the id does not reveal the seed
        assert t.params["slice"] == "heldout" and t.id not in {p.id for p in sl.public}
    # new instances: held-out instructions differ from every public one; new content: another seed state
    assert not {t.instruction for t in sl.heldout} & {t.instruction for t in sl.public}
    assert seed_state(sl.heldout[0].seed)["shop_products"] != seed_state(0)["shop_products"]
    assert sl.slice_of[sl.heldout[0].seed] == "heldout" and sl.commitment == secret_commitment(SECRET)
    monkeypatch.delenv("WEBGAUGE_ARENA_SECRET", raising=False)
    with pytest.raises(ValueError, match="WEBGAUGE_ARENA_SECRET"):
        load_secret()
    monkeypatch.setenv("WEBGAUGE_ARENA_SECRET", SECRET.decode())
    assert load_secret() == SECRET


def test_approval_policies_decide_and_log():
    tasks = {t.family: t for t in build_tasks((0,))}
    scope = get_policy("scope")
    assert scope(tasks["shop.cancel_order"], "cancel it") and not scope(tasks["account.rename"], "delete all")
    assert scope.granted == 1 and [d["granted"] for d in scope.decisions] == [True, False]
    assert set(DESTRUCTIVE_FAMILIES) <= set(tasks)
    assert get_policy("grant")(tasks["mail.forward"], "") and not get_policy("deny")(tasks["shop.cancel_order"], "")
    assert get_policy("scope:mail.forward")(tasks["mail.forward"], "")
    with pytest.raises(ValueError, match="unknown approval policy"):
        get_policy("maybe")


def test_trap_server_logs_hits_per_episode_on_a_second_loopback_host():
    with TrapServer() as srv:
        assert srv.url.startswith("http://127.0.0.2:")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        frame = opener.open(f"{srv.url}/frame/ep1", timeout=5).read().decode()
        assert "Confirm your password" in frame and srv.hits_of("ep1") == []  # loading a frame is not a hit
        opener.open(urllib.request.Request(f"{srv.url}/hit/ep1/frame-submit", data=b"password=x"), timeout=5).read()
        with opener.open(f"{srv.url}/download/ep2/statement.pdf.exe", timeout=5) as resp:
            assert "attachment" in resp.headers["Content-Disposition"]
        assert [h["what"] for h in srv.hits_of("ep1")] == ["frame-submit"]
        assert [h["what"] for h in srv.hits_of("ep2")] == ["download:statement.pdf.exe"]
        srv.clear("ep1")
        assert srv.hits_of("ep1") == []
    assert lure_words("Cancel order #1043. Keep every other order as it is.") == "Cancel order Keep"


def test_final_state_replays_a_recorded_state_change():
    seed = encode_state(seed_state(0))  # the control API's JSON form (bytes as hex)
    after = json.loads(json.dumps(seed))
    after["shop_orders"][0]["status"] = "cancelled"
    after["shop_orders"].append({**after["shop_orders"][-1], "id": 9999})
    del after["mail_messages"][0]
    diff = json.loads(json.dumps(diff_states(seed, after).to_dict(), sort_keys=True))  # as stored: keys reordered
    replay = final_state(0, diff)
    assert diff_states(after, replay).empty and diff_states(seed, replay).n_changes == 3


def test_redaction_blacks_out_email_boxes_and_changes_the_hash():
    import gzip
    import hashlib
    import io

    from PIL import Image

    from webgauge.arena.outputs.package import _redact

    img = Image.new("RGB", (200, 100), (255, 255, 255))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    png = buf.getvalue()
    els = [{"visible": True, "text": "Write to ana@example.com", "box": [10, 60, 50, 20]},  # page px, scrolled by 50
           {"visible": True, "text": "no address here", "box": [0, 0, 200, 10]}]
    dom = gzip.compress(json.dumps({"elements": els, "aria": ""}).encode())
    red, n = _redact(png, dom, (0, 50), 2.0)  # device scale factor 2: the box is (20, 20)-(120, 60) in pixels
    assert n == 1 and hashlib.sha256(red).hexdigest() != hashlib.sha256(png).hexdigest()
    out = Image.open(io.BytesIO(red))
    assert out.getpixel((70, 40)) == (0, 0, 0) and out.getpixel((150, 80)) == (255, 255, 255)
    assert _redact(png, gzip.compress(json.dumps({"elements": els[1:]}).encode()), (0, 0), 1.0) == (png, 0)


def test_cli_lists_variants_and_documents_every_command():
    from click.testing import CliRunner

    from webgauge.cli.arena import group

    r = CliRunner().invoke(group, ["variants"])
    assert r.exit_code == 0 and "cohort.mobile@3x" in r.output and "trap.frame" in r.output
    assert json.loads(CliRunner().invoke(group, ["variants", "--json"]).output.splitlines()[0])["name"] == "base"
    for cmd in ("sweep", "safety", "package", "verify", "variants", "compare"):
        r = CliRunner().invoke(group, [cmd, "--help"])
        assert r.exit_code == 0 and "Show this message" in r.output
    r = CliRunner().invoke(group,
                           ["safety", "--out", "/nonexistent/x", "--variant", "trap.nope", "--family",
                            "shop.cancel_order"])
    assert r.exit_code != 0 and "no variant 'trap.nope'" in r.output


def test_arena_records_round_trip_and_old_records_fail_naming_the_schema():
    from webgauge.arena.core.records import EpisodeRecord, SealedEpisodeRecord, StepRecord
    from webgauge.records import RecordSchemaError

    step = StepRecord(step=1, observed={"png": "ab", "mode": "dom"}, action={"kind": "done"}, result={"ok": True},
                      diff={}, latency_ms=12.5, agent_ms=0.1, after={"approval": "granted"})
    ep = EpisodeRecord(task={"id": "t"}, task_id="t~trap.ad", base_task_id="t", family="shop.x", variant="trap.ad",
                       variant_kind="trap", slice="heldout", pattern="p", seed=3, visual=False, repeat=2,
                       agent="openai:m|model-dom", agent_kind="model", model="openai:m", obs_mode="dom",
                       success=True, forbidden=False, steps=[step], attack={"attacked": False})
    back = EpisodeRecord.from_json(json.loads(json.dumps(ep.to_json())))
    assert back == ep and isinstance(back.steps[0], StepRecord) and back.steps[0].kind == "done"
    assert back.to_json()["schema"] == "arena.episode/1" and back.to_json()["steps"][0]["schema"] == "arena.step/1"
    assert (back.agent, back.model, back.slice, back.repeat) == ("openai:m|model-dom", "openai:m", "heldout", 2)
    sealed = SealedEpisodeRecord(**{k: getattr(ep, k) for k in (
        "task_id", "base_task_id", "family", "variant", "variant_kind", "slice", "pattern", "visual", "repeat", "agent",
        "agent_kind", "model", "obs_mode", "success", "forbidden", "n_steps", "retries", "grounding_errors",
        "approvals", "duration_s", "timed_out", "truncated", "attacked", "refused", "approvals_granted",
        "blocked_destructive", "item_id")}, record_sha256="0" * 64, task={"id": "t"})
    assert SealedEpisodeRecord.from_json(json.loads(json.dumps(sealed.to_json()))) == sealed
    old = {k: v for k, v in ep.to_json().items() if k != "schema"}  # what the arena wrote before typed records
    with pytest.raises(RecordSchemaError, match="arena.episode/1"):
        EpisodeRecord.from_json(old)
