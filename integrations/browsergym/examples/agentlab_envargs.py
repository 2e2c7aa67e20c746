"""AgentLab's EnvArgs on two webgauge families, driven by hand-written BrowserGym actions.

    webgauge arena serve                       # in webgauge's environment; note the control API URL
    export WEBGAUGE_ARENA_URL=http://127.0.0.1:<control port>
    python examples/agentlab_envargs.py        # in the AgentLab environment with this package

``account.rename`` is solved through the page (fill the name, save, tell the user); ``wiki.lookup``
is answered by message: once with a wrong answer (reward 0.0), once with the right one (1.0).
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import browsergym.webgauge  # noqa: F401  (registers browsergym/webgauge.<family>; AgentLab does not know it by name)
from agentlab.experiments.loop import EnvArgs
from browsergym.core.action.highlevel import HighLevelActionSet
from browsergym.utils.obs import flatten_axtree_to_str

ACTIONS = HighLevelActionSet(subsets=["chat", "infeas", "bid", "coord", "nav", "tab"])


def run(family: str, plan) -> dict:
    env = EnvArgs(task_name=f"webgauge.{family}", task_seed=0, max_steps=10).make_env(
        action_mapping=ACTIONS.to_python_code, exp_dir=Path(tempfile.mkdtemp()),
        use_raw_page_output=False)  # what ExpArgs passes for agents that read axtree_object / dom_object
    try:
        obs, info = env.reset(seed=0)
        steps = plan(flatten_axtree_to_str(obs["axtree_object"]))
        for action in steps:
            obs, reward, terminated, truncated, info = env.step(action)
        return {"family": family, "steps": steps, "reward": reward, "terminated": terminated,
                "verdict": info["task_info"].get("verdict")}
    finally:
        env.close()


def rename(tree: str) -> list[str]:
    box = re.search(r"\[(\w+)\] textbox '[^']*name[^']*'", tree, re.I).group(1)
    save = re.search(r"\[(\w+)\] button 'Save[^']*'", tree).group(1)
    return [f"fill('{box}', 'Gideon Reyes')", f"click('{save}')", "send_msg_to_user('done')"]


if __name__ == "__main__":
    print(json.dumps(run("account.rename", rename)))
    print(json.dumps(run("wiki.lookup", lambda tree: ["send_msg_to_user('7 days')"])))
    print(json.dumps(run("wiki.lookup", lambda tree: ["send_msg_to_user('384')"])))
