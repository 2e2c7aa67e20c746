"""Inspect runs a built benchmark and scores it as `understand run` does (same answers, same numbers).

The same two answer sets go three ways: `understand run` with two scripted models; Inspect's
`mockllm` replaying set a (Python API) and the real `inspect eval webgauge/understand` CLI with
`--model webgauge/scripted:b.jsonl` (the entry point and webgauge's Inspect provider). Then:
the Inspect logs' own per-answer scores equal the native ones; importing both logs into one run
directory and `understand report` gives the native scores.jsonl item for item, consensus
targets, layout TF-IDF and the paired robustness tables included.
Needs the Inspect venv: `python scripts/harness_venv.py inspect`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from harness_venvs import harness_python, offline, record_numbers, run_in
from replay_answers import write_answer_sets

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.harness


def _scores(run: Path) -> dict:
    from webgauge.understand import write_report

    write_report(run)
    rows = [json.loads(line) for line in (run / "report" / "scores.jsonl").read_text().splitlines() if line.strip()]
    return {(r["model"], r["question"]): r for r in rows}


def _close(a, b, tol: float = 1e-6) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=0, abs_tol=tol)


@pytest.mark.timeout(2400)
def test_inspect_eval_scores_equal_understand_run(bench, tmp_path):
    from webgauge.understand import run_benchmark, score_run, summarize

    py = harness_python("inspect")
    root, _ = bench
    sets = write_answer_sets(root, tmp_path / "answers")
    names = [f"scripted:{sets['a'][0]}", f"scripted:{sets['b'][0]}"]

    native = tmp_path / "native"
    s = run_benchmark(root, native, names, workers=1, progress=False)
    assert s.failed == 0 and s.ok == 2 * len(json.loads(sets["a"][1].read_text()))

    # Inspect, two ways: mockllm through the Python API, and the `inspect eval` CLI with our provider
    logs = tmp_path / "logs"
    log_a = run_in(py, str(py), str(HERE / "inspect_side.py"), "mockllm", str(root), str(sets["a"][1]),
                   str(logs / "a")).stdout.strip().splitlines()[-1]
    run_in(py, str(py.parent / "inspect"), "eval", "webgauge/understand", "-T", f"bench={root}",
           "--model", f"webgauge/scripted:{sets['b'][0]}", "--log-dir", str(logs / "b"), "--log-format", "eval",
           "--display", "none")
    log_b = str(next((logs / "b").glob("*.eval")))
    log_a = log_a.removeprefix("file://")

    # the logs' own scores: per answer, equal to the native scores wherever one answer decides them
    scores = _scores(native)
    table2 = {r["model"]: r for r in summarize(score_run(native))["table2"]}
    numbers: dict = {}
    for log, name in ((log_a, names[0]), (log_b, names[1])):
        dumped = tmp_path / (Path(log).stem + ".json")
        run_in(py, str(py), str(HERE / "inspect_side.py"), "dump", log, str(dumped))
        d = json.loads(dumped.read_text())
        assert d["status"] == "success" and d["task"] == "webgauge/understand"
        assert set(d["samples"]) == {q for m, q in scores if m == name}
        per_answer = 0
        for qid, smp in d["samples"].items():
            ref = scores[(name, qid)]
            assert smp["completion"] == ref["raw"], qid
            if smp["value"] is None:  # scored over the whole run: layout TF-IDF or a consensus target
                assert ref["task"] == "layout" or ref["target_source"].startswith(("consensus", "no consensus")), qid
                assert smp["explanation"], qid
            else:
                per_answer += 1
                # sentence embeddings are float32: one pair encoded alone vs. in a batch differ by ~1e-7
                assert _close(smp["value"], ref["score"]), (qid, smp["value"], ref["score"])
        assert per_answer > len(d["samples"]) // 2
        assert d["unscored"] == len(d["samples"]) - per_answer
        for col in ("position easy", "position mid", "position hard", "UI group", "form easy", "form hard",
                    "hint text", "safety recall", "safety precision", "false alarms"):
            cell = table2[name][col]
            assert (cell is None) == (col not in d["metrics"]), col
            if cell is not None:
                assert _close(d["metrics"][col], cell["mean"], 1e-3), (col, d["metrics"][col], cell["mean"])  # points
        numbers[f"{'mockllm' if log == log_a else 'inspect eval --model webgauge/scripted'} (answer set "
                f"{'a' if log == log_a else 'b'})"] = {
            col: {"inspect": d["metrics"].get(col), "understand_run": (table2[name][col] or {}).get("mean")}
            for col in table2[name] if col != "model" and isinstance(table2[name][col], (dict, type(None)))}
    record_numbers("inspect-scripted", numbers)
    # import both logs into one run: `understand report` equals the native report, item for item
    imported = tmp_path / "imported"
    run_in(py, str(py), "-m", "webgauge.cli.main", "understand", "import-inspect", log_a, log_b,
           "--name", names[0], "--name", names[1], "--out", str(imported))
    got = _scores(imported)
    assert set(got) == set(scores)
    for key, ref in scores.items():
        g = got[key]
        for f in ("raw", "parsed", "parsed_ok", "target", "target_source", "seed", "variant", "pair"):
            assert g[f] == ref[f], (key, f, g[f], ref[f])
        assert _close(g["score"], ref["score"]), (key, g["score"], ref["score"])
        assert set(g["extra"]) == set(ref["extra"]) and all(
            _close(g["extra"][k], ref["extra"][k]) if isinstance(ref["extra"][k], float)
            else g["extra"][k] == ref["extra"][k]
            for k in ref["extra"]), key
    assert (imported / "report" / "understand.md").read_text() == (native / "report" / "understand.md").read_text()

    # without --name, a webgauge model run through Inspect keeps its webgauge name: same items, same seeds
    alone = tmp_path / "imported-b"
    run_in(py, str(py.parent / "webgauge"), "understand", "import-inspect", log_b, "--out", str(alone))
    got_b = _scores(alone)
    assert {m for m, _ in got_b} == {names[1]}
    for (m, q), g in got_b.items():
        assert g["seed"] == scores[(m, q)]["seed"] and g["raw"] == scores[(m, q)]["raw"], q

    # not equal by construction: the two models score differently, and some answers did not parse
    a = [r["score"] for (m, _), r in scores.items() if m == names[0] and r["score"] is not None]
    b = [r["score"] for (m, _), r in scores.items() if m == names[1] and r["score"] is not None]
    assert sum(a) != sum(b) and any(v == 0 for v in a) and any(v > 0 for v in b)
    assert any(not r["parsed_ok"] for r in scores.values())


def _dump(py, log: str, out: Path) -> dict:
    run_in(py, str(py), str(HERE / "inspect_side.py"), "dump", log, str(out))
    return json.loads(out.read_text())


@pytest.mark.timeout(2400)
def test_inspect_cli_offline_mockllm_and_random(bench, tmp_path):
    """`inspect eval webgauge/understand --model mockllm/model` and `--model webgauge/random`, as
    the docs give them, in a network namespace with no network: every sample answered and scored
    (no tokenizer download on the way). mockllm's answers score as `understand run` scores the
    same answers; webgauge/random draws each answer from the question's allowed answers, the
    same draw on a second run."""
    from webgauge.understand import run_benchmark
    from webgauge.understand.adapters.samples import allowed_answers
    from webgauge.understand.export import read_questions

    py = harness_python("inspect")
    root, manifest = bench
    questions = {q.id: q for q in read_questions(root)}
    inspect = str(py.parent / "inspect")

    def evaluate(model: str, logs: Path) -> dict:
        run_in(py, *offline(), inspect, "eval", "webgauge/understand", "-T", f"bench={root}", "--model", model,
               "--log-dir", str(logs), cwd=tmp_path)
        found = sorted(logs.glob("*.eval"))
        assert len(found) == 1, found
        d = _dump(py, str(found[0]), tmp_path / f"{logs.name}.json")
        assert d["status"] == "success", d["status"]
        assert set(d["samples"]) == set(questions)
        return d

    mock = evaluate("mockllm/model", tmp_path / "mock")
    said = {s["completion"] for s in mock["samples"].values()}
    assert len(said) == 1  # mockllm/model's one default answer
    replay = tmp_path / "mock.jsonl"
    replay.write_text("".join(json.dumps({"item_id": q, "answer": said.copy().pop()}) + "\n" for q in questions))
    native = tmp_path / "native"
    run_benchmark(root, native, [f"scripted:{replay}"], workers=1, progress=False)
    ref = {q: r for (_, q), r in _scores(native).items()}
    for qid, smp in mock["samples"].items():
        if smp["value"] is not None:
            assert _close(smp["value"], ref[qid]["score"]), qid

    record_numbers("inspect-mockllm", {
        "answer": said.copy().pop(), "samples": len(mock["samples"]), "metrics": mock["metrics"],
        "scored_like_understand_run": sum(1 for q, smp in mock["samples"].items() if smp["value"] is not None
                                          and _close(smp["value"], ref[q]["score"]))})
    first = evaluate("webgauge/random", tmp_path / "random")
    second = evaluate("webgauge/random", tmp_path / "random2")
    answers = {q: s["completion"] for q, s in first["samples"].items()}
    assert answers == {q: s["completion"] for q, s in second["samples"].items()}
    for qid, text in answers.items():
        assert text in allowed_answers(questions[qid], root), (qid, text)
    assert len(set(answers.values())) > len(manifest["questions"])  # not one answer per task
    assert first["model"] == "webgauge/random"
    record_numbers("inspect-random", {"samples": len(first["samples"]), "metrics": first["metrics"]})
