"""Run in the AgentLab venv by test_agentlab_study.py (not collected by pytest; never imports webgauge).

    python agentlab_side.py STUDY_DIR OUT.json

Reads a finished study the way AgentXray does (``inspect_results.load_result_df`` for the table,
``ExpResult`` per experiment for its steps, screenshots and summary) and writes what it found.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(study: str, out: str) -> None:
    from agentlab.analyze import agent_xray, inspect_results  # noqa: F401  (AgentXray's module imports)
    from agentlab.experiments.loop import ExpResult

    df = inspect_results.load_result_df(Path(study))
    df = df.reset_index() if "env.task_name" not in df.columns else df
    rows = []
    for _, r in df.iterrows():
        exp = ExpResult(Path(r["exp_dir"]))
        last = exp.steps_info[-1]
        rows.append({"task": r["env.task_name"], "seed": int(r["env.task_seed"]),
                     "cum_reward": float(r["cum_reward"]), "n_steps": int(r["n_steps"]),
                     "summary_reward": float(exp.summary_info["cum_reward"]),
                     "steps": len(exp.steps_info), "screenshots": len(exp.screenshots),
                     "actions": [s.action for s in exp.steps_info if s.action],
                     "thinks": [(s.agent_info or {}).get("think") for s in exp.steps_info if s.action],
                     "verdict": (last.task_info or {}).get("verdict"), "agent": exp.exp_args.agent_args.agent_name})
    Path(out).write_text(json.dumps({"rows": rows, "columns": sorted(map(str, df.columns))}, default=str))


if __name__ == "__main__":
    main(*sys.argv[1:])
