"""BrowserGym's own action strings, run through webgauge's BrowserGym-compatible interface.

    python bench/arena_vs_browsergym.py --setup          # once: BrowserGym into bench/.browsergym-venv/
    python bench/browsergym_actions_example.py [--json out.json]

BrowserGym and AgentLab agents answer with strings from BrowserGym's ``HighLevelActionSet``.
This example asks the installed ``browsergym-core`` (in its own virtual environment, never
imported by webgauge) for its action set: every action's signature and the example strings
it documents, and checks each example with BrowserGym's own parser (``to_python_code``).
Each example is then rebound to a live arena page (its element ids replaced by ids from the
observation of the shop's start page) and parsed by ``webgauge.arena.adapters.bgym``; the table
shows what every BrowserGym call becomes here, or the clear error for the calls the arena
does not support. Finally one account task is driven end to end with BrowserGym-style strings
only, through :class:`~webgauge.arena.adapters.bgym_env.BrowserGymEpisode`, and its reward printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

from webgauge.arena import ArenaEnv, ArenaServer
from webgauge.arena.adapters.bgym import parse_bgym_action
from webgauge.arena.adapters.bgym_env import BrowserGymEpisode
from webgauge.arena.core.actions import ActionError
from webgauge.arena.tasks import build_tasks
from webgauge.browser import Browser

HERE = Path(__file__).resolve().parent
VENV_PY = HERE / ".browsergym-venv" / "bin" / "python"

_DUMP = r"""
import json
from browsergym.core.action.highlevel import HighLevelActionSet
aset = HighLevelActionSet(subsets=["chat", "tab", "nav", "bid", "coord"], strict=False, multiaction=False)
out = []
for name, action in aset.action_set.items():
    for ex in action.examples:
        try:
            aset.to_python_code(ex)
            ok = True
        except Exception as exc:  # BrowserGym's own parser refused its example
            ok = repr(exc)
        out.append({"name": name, "signature": action.signature, "example": ex, "browsergym_parses": ok})
print(json.dumps(out))
"""


def browsergym_examples() -> list[dict]:
    if not VENV_PY.exists():
        raise SystemExit(f"no BrowserGym venv at {VENV_PY.parent.parent}: run "
                         f"`python bench/arena_vs_browsergym.py --setup` first (it installs browsergym-core there)")
    out = subprocess.run([str(VENV_PY), "-c", _DUMP], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise SystemExit(f"browsergym-core failed to list its action set:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def rebind(example: str, ids: list[str]) -> str:
    """Replace the example's quoted element ids (first positional string args of bid actions) by live ids."""
    it = iter(ids)
    name = example.split("(", 1)[0]
    if name not in {"fill", "select_option", "click", "dblclick", "hover", "press", "focus", "clear",
                    "drag_and_drop", "upload_file", "check", "uncheck"}:
        return example
    n_ids = 2 if name == "drag_and_drop" else 1
    def sub(m: re.Match) -> str:
        nonlocal n_ids
        if n_ids <= 0:
            return m.group(0)
        n_ids -= 1
        return f"'{next(it)}'"
    return re.sub(r"'[^']*'|\"[^\"]*\"", sub, example, count=2)


async def main_async(args) -> dict:
    examples = browsergym_examples()
    task = build_tasks((0,), families=["shop.sticky_add"])[0]
    rows = []
    with ArenaServer() as srv:
        async with Browser() as browser:
            env = ArenaEnv(browser, srv.app_url, srv.client())
            try:
                obs = await env.reset(task)
                by_tag: dict[str, list[str]] = {}
                for el in obs.elements:
                    by_tag.setdefault(el.tag, []).append(el.id)
                pick = {  # a fitting live element for each kind of call
                    "fill": by_tag.get("input", []), "clear": by_tag.get("input", []),
                    "select_option": by_tag.get("select", []) or by_tag.get("input", []),
                    "upload_file": by_tag.get("input", []),
                }
                any_ids = [el.id for el in obs.elements if el.tag in ("a", "button")] or [el.id for el in obs.elements]
                for ex in examples:
                    ids = (pick.get(ex["name"]) or any_ids) + any_ids
                    code = rebind(ex["example"], ids)
                    try:
                        kinds = [a.kind for a in parse_bgym_action(code, obs)]
                        rows.append({**ex, "rebound": code, "webgauge": " + ".join(kinds)})
                    except ActionError as exc:
                        rows.append({**ex, "rebound": code, "webgauge": f"error: {exc}"})
                # one whole episode with BrowserGym-style strings only, ids read from its axtree text
                rename = build_tasks((0,), families=["account.rename"])[0]
                new = rename.oracle()[0].value
                ep = BrowserGymEpisode(env)
                o, _ = await ep.reset(rename)
                def bid(role, name, o=o):
                    return next(line.split("]")[0].strip().lstrip("[") for line in o["axtree_txt"].splitlines()
                                if f"] {role} '{name}'" in line)

                strings = [f"click('{bid('textbox', 'Display name')}')", "keyboard_press('Control+a')",
                           f"keyboard_type({new!r})", f"click('{bid('button', 'Save changes')}')", "noop(900)",
                           "send_msg_to_user('done')"]
                reward = 0.0
                for s in strings:
                    o, reward, term, trunc, info = await ep.step(s)
                    if o["last_action_error"]:
                        raise SystemExit(f"{s}: {o['last_action_error']}")
                episode = {"task": rename.id, "strings": strings, "reward": reward}
            finally:
                await env.close()
    return {"examples": rows, "episode": episode}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="also write the table as JSON here")
    args = ap.parse_args()
    res = asyncio.run(main_async(args))
    rows = res["examples"]
    print(f"{'BrowserGym example':52s} {'BG parses':9s} webgauge")
    for r in rows:
        print(f"{r['rebound'][:52]:52s} {str(r['browsergym_parses'] is True):9s} {r['webgauge'][:90]}")
    mapped = sum(not r["webgauge"].startswith("error") for r in rows)
    names = {r["name"] for r in rows}
    ok_names = {r["name"] for r in rows if not r["webgauge"].startswith("error")}
    print(f"\n{mapped} of {len(rows)} example strings of BrowserGym's {len(names)} actions map to arena actions "
          f"({len(ok_names)} of the {len(names)} actions in at least one form); the rest are clear errors (above).")
    ep = res["episode"]
    if "reward" in ep:
        print(f"episode {ep['task']} driven by {len(ep['strings'])} BrowserGym strings: reward {ep['reward']}")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    sys.exit(main())
