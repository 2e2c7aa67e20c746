"""An AgentLab Study of the scripted agent on three webgauge families, with AgentLab's own results.

    webgauge arena serve                       # in webgauge's environment; note the control API URL
    export WEBGAUGE_ARENA_URL=http://127.0.0.1:<control port>
    python examples/agentlab_study.py results/  # in the AgentLab environment with this package

Runs ``Study([ScriptedAgentArgs()], webgauge_benchmark(FAMILIES))`` sequentially (no Ray, no
model), then prints AgentLab's summary table (``Study.get_results``: ``avg_reward``, ``n_completed``,
``n_err``...) and one JSON line per experiment from AgentLab's result table (``load_result_df``:
task, seed, ``cum_reward``, steps, error). The study folder is what ``agentlab-xray`` opens
(``AGENTLAB_EXP_ROOT=results/ agentlab-xray``).
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from agentlab.analyze import inspect_results
from agentlab.experiments.study import Study
from browsergym.webgauge.agentlab_scripted import ScriptedAgentArgs, webgauge_benchmark

FAMILIES = ["account.rename", "wiki.lookup", "account.revoke_key"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path, help="folder the study is written under")
    ap.add_argument("--families", default=",".join(FAMILIES), help="comma-separated webgauge families")
    ap.add_argument("--seeds", default="0", help="comma-separated task seeds")
    a = ap.parse_args()
    bench = webgauge_benchmark(a.families.split(","), seeds=[int(s) for s in a.seeds.split(",")])
    study = Study([ScriptedAgentArgs()], bench, logging_level=logging.INFO, logging_level_stdout=logging.WARNING,
                  comment="webgauge scripted agent (no model)")
    study.run(n_jobs=1, parallel_backend="sequential", n_relaunch=1, exp_root=a.out)
    _, summary, _ = study.get_results()
    print(summary.to_string())
    rows = inspect_results.load_result_df(study.dir)
    rows = rows.reset_index() if "env.task_name" not in rows.columns else rows
    for _, r in rows.sort_values(["env.task_name", "env.task_seed"]).iterrows():
        print(json.dumps({"study": str(study.dir), "exp_dir": str(r["exp_dir"]), "task": r["env.task_name"],
                          "seed": int(r["env.task_seed"]), "cum_reward": float(r["cum_reward"]),
                          "n_steps": int(r["n_steps"]), "err_msg": r.get("err_msg") or None}))


if __name__ == "__main__":
    main()
