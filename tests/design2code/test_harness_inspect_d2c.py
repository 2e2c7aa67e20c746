"""`inspect eval webgauge/design2code` sends what `design2code generate` sends and reads the same code.

The same scripted answers (one complete page, one cut-off page, one answer without code) go
through `webgauge design2code generate` and through Inspect's CLI with `--model
webgauge/scripted:FILE`; each page's prompt text and code status agree.
Needs the Inspect venv: `python scripts/harness_venv.py inspect`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness_venvs import harness_python, run_in

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.harness

DUMP = """
import json, sys
from inspect_ai.log import read_eval_log
log = read_eval_log(sys.argv[1])
out = {"status": log.status, "task": log.eval.task, "metrics": {n: m.value for s in log.results.scores
       for n, m in s.metrics.items()}, "samples": {}}
for s in log.samples:
    sc = next(iter(s.scores.values()))
    texts = [c.text for m in s.input for c in (m.content if not isinstance(m.content, str) else [])
             if getattr(c, "type", "") == "text"]
    images = [c.image for m in s.input for c in (m.content if not isinstance(m.content, str) else [])
              if getattr(c, "type", "") == "image"]
    out["samples"][str(s.id)] = {"value": sc.value, "status": sc.answer, "texts": texts, "images": images}
json.dump(out, open(sys.argv[2], "w"))
"""

ANSWERS = ["```html\n<!DOCTYPE html><html><body><h1>Hello</h1><a href=\"/about.html\">About</a></body></html>\n```",
           "<!DOCTYPE html><html><body><div><p>cut off mid",
           "I would build this page with a header and a footer."]


@pytest.mark.timeout(1800)
def test_inspect_design2code_matches_generate(instances, tmp_path):
    from webgauge.design2code.dataset import load_instances
    from webgauge.design2code.generate import page_tasks
    from webgauge.design2code.prompts import build_messages
    from webgauge.design2code.records import GenerationRecord
    from webgauge.design2code.runs import generate_run
    from webgauge.run import RunStore

    py = harness_python("inspect")
    root, _ = instances
    insts = load_instances(root)
    items = [f"{i.id}/{p}" for i in insts for p in i.page_names]
    assert len(items) >= 3
    answers = {item: ANSWERS[n % 3] for n, item in enumerate(items)}
    script = tmp_path / "answers.jsonl"
    script.write_text("".join(json.dumps({"item_id": k, "answer": v}) + "\n" for k, v in answers.items()))

    gen = tmp_path / "gen"
    generate_run(root, gen, model=f"scripted:{script}", strategies=["zs"], workers=1, progress=False)
    native = {}
    for rec in RunStore(gen).typed(GenerationRecord):
        for page in rec.pages:
            native[f"{rec.instance}/{page['page']}"] = page["status"]
    assert sorted(native) == sorted(items) and set(native.values()) == {"ok", "truncated", "missing"}

    logs = tmp_path / "logs"
    run_in(py, str(py.parent / "inspect"), "eval", "webgauge/design2code", "-T", f"instances={root}",
           "-T", "strategy=zs", "--model", f"webgauge/scripted:{script}", "--log-dir", str(logs),
           "--log-format", "eval", "--display", "none")
    dumped = tmp_path / "log.json"
    run_in(py, str(py), "-c", DUMP, str(next(logs.glob("*.eval"))), str(dumped))
    d = json.loads(dumped.read_text())
    assert d["status"] == "success" and d["task"] == "webgauge/design2code"
    assert sorted(d["samples"]) == sorted(items)
    for inst in insts:
        for task in page_tasks(inst, "zs"):
            s = d["samples"][f"{inst.id}/{task.page}"]
            assert s["status"] == native[f"{inst.id}/{task.page}"]
            assert s["value"] == (1.0 if s["status"] == "ok" else 0.0)
            want = [x for m in build_messages(task) for x in m.content if isinstance(x, str)]
            assert s["texts"] == want
            assert len(s["images"]) == 1 and Path(s["images"][0]).read_bytes() == task.screenshot
    ok = sum(v == "ok" for v in native.values())
    assert abs(d["metrics"]["mean"] - ok / len(items)) < 1e-9
