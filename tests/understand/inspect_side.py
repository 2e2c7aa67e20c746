"""Run inside the Inspect venv by test_harness_inspect.py (not collected by pytest).

    python inspect_side.py mockllm BENCH ANSWERS.json LOG_DIR    # eval with mockllm replaying ANSWERS
    python inspect_side.py dump LOG OUT.json                       # the log's own scores and metrics
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path


def mockllm(bench: str, answers_path: str, log_dir: str) -> None:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    answers = json.loads(Path(answers_path).read_text())

    def outputs(messages, tools, tool_choice, config):
        item = next(m.metadata["webgauge_item"] for m in messages if m.role == "user" and m.metadata)
        out = ModelOutput.from_content(model="mockllm", content=answers[item])
        # with no usage, mockllm counts tokens with tiktoken, which downloads its encoding
        out.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        return out

    model = get_model("mockllm/model", custom_outputs=outputs)
    logs = inspect_eval("webgauge/understand", task_args={"bench": bench}, model=model, log_dir=log_dir,
                        display="none", log_format="eval")
    if logs[0].status != "success":
        raise SystemExit(f"inspect eval ended {logs[0].status}: {logs[0].error.message if logs[0].error else ''}")
    print(logs[0].location)


def dump(log_path: str, out: str) -> None:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(log_path)
    samples = {}
    for s in log.samples:
        sc = next(iter(s.scores.values()))
        v = sc.value
        samples[str(s.id)] = {"value": None if isinstance(v, float) and math.isnan(v) else v,
                              "answer": sc.answer, "explanation": sc.explanation, "completion": s.output.completion}
    metrics = {name: m.value for score in log.results.scores for name, m in score.metrics.items()}
    unscored = sum(score.unscored_samples or 0 for score in log.results.scores)
    Path(out).write_text(json.dumps({"model": log.eval.model, "task": log.eval.task, "status": log.status,
                                     "samples": samples, "metrics": metrics, "unscored": unscored}))


if __name__ == "__main__":
    {"mockllm": mockllm, "dump": dump}[sys.argv[1]](*sys.argv[2:])
