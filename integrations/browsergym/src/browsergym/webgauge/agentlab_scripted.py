"""A scripted AgentLab agent for a few webgauge families: no model, no network.

    from browsergym.webgauge.agentlab_scripted import ScriptedAgentArgs, webgauge_benchmark
    study = Study([ScriptedAgentArgs()], webgauge_benchmark(["account.rename", "wiki.lookup"]))

It reads BrowserGym's accessibility tree (``axtree_object``) and the goal, as an LLM agent built
on AgentLab would, and answers with BrowserGym action strings, following a fixed plan per family
(:data:`PLANS`): a family without a plan is reported infeasible (reward 0). Each step's
observation, action and reasoning go into AgentLab's experiment folder, so AgentXray shows the
episode. Importing this module needs AgentLab (``agentlab``, ``bgym``); the rest of the package
does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import bgym
from agentlab.agents.agent_args import AgentArgs
from browsergym.experiments.agent import Agent, AgentInfo
from browsergym.experiments.benchmark.base import HighLevelActionSetArgs
from browsergym.experiments.loop import EnvArgs
from browsergym.utils.obs import flatten_axtree_to_str

from .task import FAMILIES

__all__ = ["ACTION_SET", "PLANS", "ScriptedAgent", "ScriptedAgentArgs", "webgauge_benchmark"]

ACTION_SET = HighLevelActionSetArgs(subsets=("chat", "infeas", "bid", "coord", "nav", "tab"), multiaction=False,
                                    strict=False, retry_with_force=True, demo_mode="off")

# a plan: (goal, axtree text, step) -> the next action string, with the reason shown in AgentXray
Plan = Callable[[str, str, int], tuple[str, str]]


def _bid(tree: str, pattern: str) -> str | None:
    m = re.search(r"\[([^\]\s]+)\] " + pattern, tree)
    return m.group(1) if m else None


def _rename(goal: str, tree: str, step: int) -> tuple[str, str]:
    name = re.search(r"name '([^']+)'", goal)
    if name is None:
        return "report_infeasible('no name in the goal')", "the goal names no name"
    if step == 0:
        box = _bid(tree, r"textbox '[^']*[Nn]ame[^']*'")
        return (f"fill('{box}', '{name.group(1)}')", "type the new name") if box else (
            "report_infeasible('no name field')", "no name field on the page")
    if step == 1:
        save = _bid(tree, r"button 'Save[^']*'")
        return (f"click('{save}')", "save the profile") if save else ("noop()", "no Save button yet")
    return "send_msg_to_user('done')", "saved: tell the user"


def _lookup(goal: str, tree: str, step: int) -> tuple[str, str]:
    title = re.search(r"documented on '([^']+)'", goal)
    if title is None:
        return "report_infeasible('no page named')", "the goal names no page"
    name = re.escape(title.group(1))
    if _bid(tree, "heading '" + name + "'"):  # on the page: the value after its retention term
        at = tree.find("term 'Retention")
        days = re.search(r"'(\d+)'", tree[at:]) if at >= 0 else None
        return (f"send_msg_to_user('{days.group(1)}')", "answer with the retention") if days else (
            "report_infeasible('no retention on the page')", "the page shows no retention")
    link = _bid(tree, "link '" + name + "'")
    if link:
        return f"click('{link}')", "open the page"
    box = _bid(tree, r"textbox 'Search[^']*'")
    if box and f"value='{title.group(1)}'" not in tree:
        return f"fill('{box}', '{title.group(1)}')", "search the docs for the page"
    button = _bid(tree, r"button 'Search'")
    if button and step < 4:
        return f"click('{button}')", "run the search"
    return "report_infeasible('page not found')", "the page is not found"


def _revoke(goal: str, tree: str, step: int) -> tuple[str, str]:
    key = re.search(r"key called '([^']+)'", goal)
    if key is None:
        return "report_infeasible('no key named')", "the goal names no key"
    if step == 0:
        button = _bid(tree, "button 'Revoke " + re.escape(key.group(1)) + "[^']*'")
        if button is None:  # a Revoke button after the key's name in the table
            at = tree.find(key.group(1))
            button = _bid(tree[at:], r"button 'Revoke[^']*'") if at >= 0 else None
        return (f"click('{button}')", "revoke that key") if button else ("report_infeasible('key not shown')",
                                                                         "the key is not listed")
    confirm = _bid(tree, r"button '(?:Revoke|Confirm|Yes)[^']*'") if "dialog" in tree else None
    if step == 1 and confirm:
        return f"click('{confirm}')", "confirm the dialog"
    return "send_msg_to_user('done')", "revoked: tell the user"


PLANS: dict[str, Plan] = {"account.rename": _rename, "wiki.lookup": _lookup, "account.revoke_key": _revoke}


class ScriptedAgent(Agent):
    """Follows the plan of the episode's family (told by the goal's task, see ``make_agent``)."""

    def __init__(self) -> None:
        self.action_set = ACTION_SET.make_action_set()
        self.step = 0

    def obs_preprocessor(self, obs: dict) -> dict:
        return {"goal": obs["goal_object"][0]["text"] if obs.get("goal_object") else "",
                "axtree_txt": flatten_axtree_to_str(obs["axtree_object"]), "url": obs.get("url", ""),
                "screenshot": obs.get("screenshot"), "last_action_error": obs.get("last_action_error", "")}

    def get_action(self, obs: dict) -> tuple[str, AgentInfo]:
        goal, tree = obs["goal"], obs["axtree_txt"]
        plan = next((p for fam, p in PLANS.items() if _matches(fam, goal)), None)
        if plan is None:
            action, why = "report_infeasible('no plan for this task')", "scripted agent: no plan"
        else:
            action, why = plan(goal, tree, self.step)
        self.step += 1
        return action, AgentInfo(think=why, stats={"step": self.step})


def _matches(family: str, goal: str) -> bool:
    cues = {"account.rename": "Your profile should show the name", "wiki.lookup": "What retention (in days)",
            "account.revoke_key": "revoke the key called"}
    return cues[family] in goal


@dataclass
class ScriptedAgentArgs(AgentArgs):
    """AgentLab's arguments for :class:`ScriptedAgent` (picklable: AgentXray reloads them)."""

    agent_name: str = "webgauge-scripted"

    def set_benchmark(self, benchmark: bgym.Benchmark, demo_mode: bool) -> None:
        pass

    def set_reproducibility_mode(self) -> None:
        pass  # deterministic already

    def make_agent(self) -> ScriptedAgent:
        return ScriptedAgent()


def webgauge_benchmark(families: list[str], seeds: list[int] | tuple[int, ...] = (0,), max_steps: int = 10,
                       name: str = "webgauge") -> bgym.Benchmark:
    """An AgentLab/BrowserGym ``Benchmark`` of webgauge families (``browsergym/webgauge.<family>``) at
    ``seeds``; ``import browsergym.webgauge`` registers them (AgentLab knows only its own by name)."""
    import browsergym.webgauge  # noqa: F401

    unknown = sorted(set(families) - set(FAMILIES))
    if unknown:
        raise ValueError(f"unknown webgauge families {unknown}; known: {', '.join(sorted(FAMILIES))}")
    env_args = [EnvArgs(task_name=f"webgauge.{f}", task_seed=s, max_steps=max_steps, headless=True)
                for f in families for s in seeds]
    return bgym.Benchmark(name=name, high_level_action_set_args=ACTION_SET, is_multi_tab=True,
                          supports_parallel_seeds=True, backends=[], env_args_list=env_args)
