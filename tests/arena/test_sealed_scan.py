"""Sealed held-out records: nothing of the held-out world survives in any stored file of a run.

The live test plays real held-out episodes (oracle, heuristic and a screenshot-mode model that
types, navigates and answers with held-out text) in Chromium, then scans every file of the run
directory (records, plan, spec, blobs) for every string of the held-out world: its stored names,
titles, slugs, emails, the instruction, the answer, the seed, in plain, URL-encoded and slug form.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote_plus, unquote_plus

import pytest

from webgauge.arena.core.records import EpisodeRecord, StepRecord
from webgauge.arena.outputs.scoring import load_episodes
from webgauge.arena.outputs.sealing import SEALED, seal_heldout_content
from webgauge.arena.runner import run_arena
from webgauge.arena.tasks import seed_state
from webgauge.arena.tasks.heldout import make_slices
from webgauge.arena.tasks.leakage import content_values, public_vocabulary

SECRET = b"sealed-scan-test-secret-0123456789abcdef"
MARK = "Zorvalnex Quillberg"


def _norm(text: str) -> str:
    return " " + re.sub(r"[^0-9a-z]+", " ", unquote_plus(text).lower()) + " "


def _leaks(root: Path, needles: set[str]) -> dict[str, list[str]]:
    """``file -> needles found`` over every file under ``root`` (text, JSON lines and binary blobs)."""
    wanted = {n: _norm(n) for n in needles if len(_norm(n).strip()) >= 4}
    found: dict[str, list[str]] = {}
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        text = _norm(f.read_bytes().decode("utf-8", errors="ignore"))
        words = set(text.split())
        hits = [n for n, w in wanted.items() if set(w.split()) <= words and w in text]
        if hits:
            found[str(f.relative_to(root))] = sorted(hits)
    return found


def test_a_sealed_record_keeps_no_string_of_any_field():
    """Allow-list sealing: a record whose every text field holds the marker comes out without it."""
    obs = {"mode": "screenshot", "step": 1, "url": f"/shop/?q={quote_plus(MARK)}", "title": MARK,
           "tabs": [f"/wiki/p/{MARK}"], "active_tab": 0, "last_result": {"target": MARK}, "token": MARK,
           "screenshot_hash": "ab" * 32,
           "png": "cd" * 32, "dom": "ef" * 32, "capture_warnings": [MARK], "approval": MARK, "new_field": MARK,
           "viewport": [1280, 800], "scroll": [0, 120]}
    step = StepRecord(step=1, observed=obs, action={"kind": "fill", "element": "e5", "value": MARK, "url": MARK},
                      result={"ok": False, "kind": "fill", "rejected": "stale", "target": {"name": MARK}, "msg": MARK},
                      diff={"shop_cart": {"inserted": [{"name": MARK}], "deleted": [], "updated": []}},
                      latency_ms=3.0, agent_ms=1.0, thought=MARK, raw=MARK, usage={"input_tokens": 5, "note": MARK},
                      after=dict(obs), timings_ms={"action": 2.0})
    task = {"id": "shop.buy_variant.habc", "instruction": MARK, "seed": 2 ** 70, "start_url": "/shop/",
            "viewport": {"width": 1280}, "max_steps": 9, "params": {"slice": "heldout", "instruction_hmac": "00",
                                                                    "source_id": MARK}, "files": [MARK],
            "forbidden_effects": [MARK], "forbidden_effects_public": ["a rule (sealed)"], "extra": MARK}
    rec = EpisodeRecord(task=task, task_id="shop.buy_variant.habc", base_task_id="shop.buy_variant.habc",
                        family="shop.buy_variant", variant="base", variant_kind="base", slice="heldout",
                        pattern="similar_options", seed=2 ** 70, visual=False, repeat=0, agent="m", agent_kind="model",
                        model="scripted", obs_mode="screenshot", success=False, forbidden=False,
                        validator_errors=[MARK], forbidden_violations=[MARK], error=f"environment error: {MARK}",
                        done_answer=MARK, final_diff={"x": MARK}, steps=[step], usage={"input_tokens": 5, "m": MARK},
                        variant_events={"events": {"popup": 1}, "text_map": MARK},
                        attack={"attacked": True, "url": MARK},
                        approval_decisions=[{"granted": True, "action": MARK}])
    sealed = seal_heldout_content(rec.to_json())
    text = json.dumps(sealed)
    assert "zorvalnex" not in _norm(text), text
    back = EpisodeRecord.from_json(sealed)  # still a valid record the reports read
    s = back.steps[0]
    assert s.kind == "fill" and s.result == {"ok": False, "kind": "fill", "rejected": "stale"}
    assert s.observed["n_tabs"] == 1 and s.observed["scroll"] == [0, 120] and "url" not in s.observed
    assert s.diff == {"shop_cart": {"n_changes": 1}} and back.done_answer == SEALED and back.attacked is False
    assert back.error.startswith("environment error") and back.attack == {"attacked": True}


@pytest.mark.browser
def test_a_sealed_heldout_run_stores_no_string_of_its_world(tmp_path):
    sl = make_slices(SECRET, public_seeds=(0,), n_heldout=1, families=["wiki.lookup", "shop.promo_tab"])
    held = sl.heldout
    seed = held[0].seed
    lookup = next(t for t in held if t.family == "wiki.lookup")
    state = seed_state(seed)
    page = next(p for p in state["wiki_pages"] if f"'{p['title']}'" in lookup.instruction)
    script = [{"answer": json.dumps({"kind": "type_text", "value": page["title"]})},
              {"answer": json.dumps({"kind": "goto", "url": f"/wiki/p/{page['slug']}"})},
              {"answer": json.dumps({"kind": "done", "answer": lookup.answer})}]
    model = {"kind": "model", "model": "scripted", "obs_mode": "screenshot", "model_options": {"answers": script * 2}}
    run_dir = tmp_path / "run"
    summary = run_arena(run_dir, held, [{"kind": "oracle"}, {"kind": "heuristic"}, model], slices=sl.slice_of,
                        workers=1, progress=False, time_limit_s=120.0)
    assert summary.done + summary.failed == 6

    eps = load_episodes(run_dir)
    oracle = [r for r in eps.records if r.agent_kind == "oracle"]
    assert len(oracle) == 2 and all(r.success for r in oracle), eps.failures  # the held-out world is solvable
    assert all(r.task["instruction"] == SEALED and r.slice == "heldout" for r in eps.records)
    scripted = [r for r in eps.records if r.agent_kind == "model"]
    assert scripted and scripted[0].done_answer == SEALED and scripted[0].n_steps == 3  # it typed, went and answered

    needles = content_values(state, public_vocabulary(range(8)))
    needles |= {t.instruction for t in held} | {t.answer for t in held if t.answer} | {str(seed)}
    needles |= {t.params["source_id"] for t in held} | {p["slug"] for p in state["wiki_pages"]}
    assert page["title"] in needles and page["slug"] in needles and len(needles) > 1000
    assert not _leaks(run_dir, needles)
    # the scan can fail: a run that keeps held-out content holds the world's strings
    kept = tmp_path / "kept"
    run_arena(kept, [lookup], [{"kind": "oracle"}], slices=sl.slice_of, workers=1, progress=False,
              time_limit_s=120.0, keep_heldout_content=True)
    leaks = _leaks(kept, needles)
    assert any(page["slug"] in hits and str(seed) in hits for hits in leaks.values()), leaks
