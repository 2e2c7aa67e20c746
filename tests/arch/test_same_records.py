"""A small arena run gives the same records after a refactor as before it.

Five oracle episodes (five families, seed 0, one env reused across them so reset, the page pool
and context reuse all run) are played in real Chromium against the real apps; each record is
reduced to what the environment decides: the verdict, the validator's and the rules' messages,
the final state change, the done answer, and per step the action and the env's result (target,
rejection, codes). Timings, screenshot and DOM hashes and each step's own state change are left
out (they depend on the machine and its load, not on the environment). ``golden_records.json`` beside this file was
written by the code before the arena's env and browser layers were split
(``python tests/arch/test_same_records.py --write``).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

GOLDEN = Path(__file__).with_name("golden_records.json")
FAMILIES = ("shop.cancel_order", "mail.forward", "account.rename", "board.drag", "wiki.lookup")
_TIMING = {"latency_ms", "agent_ms", "timings_ms", "reset_ms", "env_reset_ms", "duration_s", "step_latency_ms",
           "elapsed_ms", "ms", "settle_ms"}
_BLOBS = {"png", "dom", "screenshot_hash", "token", "screenshot_bytes", "image_tokens"}


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in sorted(value.items()) if k not in _TIMING and k not in _BLOBS}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def reduce(record: dict[str, Any]) -> dict[str, Any]:
    keep = ("task_id", "family", "success", "forbidden", "validator_errors", "forbidden_violations", "error",
            "timed_out", "truncated", "done_answer", "final_diff", "n_steps", "retries", "rejections",
            "grounding_errors", "writes", "unnecessary_writes", "duplicate_submissions", "variant_events")
    out = {k: _clean(record.get(k)) for k in keep}
    # a step's own state change is left out: which step a slow write lands in depends on the
    # machine's load (a save the click sent may be stored during the next step); the episode's
    # whole change (final_diff) does not
    # (nor which step's result lists an irreversible request the approval gate saw, for the same reason)
    out["steps"] = [_clean({"action": s["action"], "result": {k: v for k, v in s["result"].items() if k != "gate"}})
                    for s in record["steps"]]
    return out


async def run_small(browser) -> list[dict[str, Any]]:
    from webgauge.arena import ArenaEnv, ArenaServer, OracleAgent, build_tasks, play

    tasks = {t.family: t for t in build_tasks((0,), families=list(FAMILIES))}
    missing = [f for f in FAMILIES if f not in tasks]
    assert not missing, f"families gone from build_tasks: {missing}"
    out = []
    with ArenaServer() as srv:
        env = ArenaEnv(browser, srv.app_url, srv.client())
        try:
            for fam in FAMILIES:
                rec, _ = await play(env, OracleAgent(tasks[fam]), tasks[fam], keep_dom=False)
                out.append(reduce(rec.to_json()))
        finally:
            await env.close()
    return out


@pytest.mark.timeout(600)
async def test_a_small_run_gives_the_golden_records(browser):
    got = await run_small(browser)
    want = json.loads(GOLDEN.read_text())
    assert [g["task_id"] for g in got] == [w["task_id"] for w in want]
    assert all(g["success"] for g in got)  # the oracle solves each (the golden file is not a record of failures)
    for g, w in zip(got, want, strict=True):
        assert g == w, f"{g['task_id']}: the record differs from the golden one"


if __name__ == "__main__" and "--write" in sys.argv:
    async def _main() -> None:
        from webgauge.browser import Browser

        async with Browser.launch() as b:
            GOLDEN.write_text(json.dumps(await run_small(b), indent=1, sort_keys=True) + "\n")

    asyncio.run(_main())
    print(f"wrote {GOLDEN}")
