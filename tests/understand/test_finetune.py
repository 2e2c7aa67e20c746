"""LoRA fine-tuning (WebRSSBench §5.2) on a tiny random vision-language model built here (no hub)."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

pytestmark = pytest.mark.browser

os.environ["HF_HUB_OFFLINE"] = "1"
# a tiny model on a shared 2-core machine: more than one thread per process only contends (the
# run's worker processes inherit this)
os.environ["OMP_NUM_THREADS"] = "1"

# a quick schedule for a tiny model; the paper's values are the defaults (checked below)
QUICK = dict(tasks=["ui_group"], lr=1e-2, grad_accum=1, epochs=3, limit=4, eval_split=None, progress=False,
             save_every=100)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    import torch

    from webgauge.models.tiny_vlm import build_tiny_vlm

    torch.set_num_threads(1)  # a tiny model on a shared 2-core machine: threads only contend
    return build_tiny_vlm(tmp_path_factory.mktemp("tiny") / "vlm", seed=0)


def _train_log(folder):
    return [json.loads(line) for line in (folder / "train_log.jsonl").read_text().splitlines()]


def test_position_is_decomposed_into_single_pairs(bench):
    from webgauge.understand import load_examples, read_questions

    root, _ = bench
    questions = {q.id: q for q in read_questions(root, "position")}
    examples = load_examples(root, "position", "train")
    assert examples
    for ex in examples:
        qid, pair = ex.id.split("#")
        i, j = (int(x) for x in pair.split("-"))
        q = questions[qid]
        assert ex.images == [q.images[0], q.images[i], q.images[j]]
        assert ex.answer == f"1-2: {q.target[pair]}"
        assert "next 2 images are crops of 2 elements" in ex.question
    asked = {ex.id.split("#")[0] for ex in examples}
    assert len(examples) == sum(len(questions[q].target) for q in asked)


def test_finetune_loss_falls_resumes_exactly_and_changes_answers(bench, tiny, tmp_path):
    from webgauge.models.providers.hf_local import folder_fingerprint
    from webgauge.run import RunStore
    from webgauge.understand import FinetuneInterrupted, finetune, run_benchmark, write_report

    root, manifest = bench

    def ctrl_c_at_step_3(row):
        if row.step == 3:
            raise KeyboardInterrupt

    out = tmp_path / "adapters"
    with pytest.raises(FinetuneInterrupted) as stopped:
        finetune(root, tiny, out, on_step=ctrl_c_at_step_3, **QUICK)
    folder = out / "ui_group"
    assert stopped.value.step == 3 and (folder / "checkpoint" / "step.json").is_file()
    assert json.loads((folder / "finetune.json").read_text())["status"] == "interrupted"

    [result] = finetune(root, tiny, out, **QUICK)  # the same call resumes from step 3
    spec = result.spec
    log = [r for r in _train_log(folder) if r["kind"] == "train"]
    assert [r["step"] for r in log] == list(range(1, spec["optimizer_steps"] + 1)) and spec["optimizer_steps"] == 12
    first, last = log[:4], log[-4:]  # epoch 1 vs epoch 3 over the same 4 samples
    assert sum(r["loss"] for r in last) < 0.7 * sum(r["loss"] for r in first)
    assert spec["status"] == "done" and not (folder / "checkpoint").exists()
    assert (folder / "adapter_model.safetensors").is_file() and (folder / "adapter_config.json").is_file()
    assert spec["base_fingerprint"] == folder_fingerprint(tiny) and spec["bench_sha256"] == manifest["sha256"]
    assert spec["hyper"]["rank"] == 16 and spec["hyper"]["alpha"] == 32 and spec["hyper"]["dropout"] == 0.05
    assert spec["hyper"]["lr"] == 1e-2 and "q_proj" in spec["hyper"]["target_modules"]

    # an uninterrupted run takes exactly the same steps: resuming restored weights, optimizer and RNG
    [straight] = finetune(root, tiny, tmp_path / "straight", **QUICK)
    assert [r["loss"] for r in _train_log(straight.out) if r["kind"] == "train"] == \
        pytest.approx([r["loss"] for r in log], rel=1e-4)

    # before/after through the normal understand runner, on the questions it was trained on
    base, tuned = f"hf-local:{tiny}", f"hf-local:{tiny}?adapter={folder}"
    run = tmp_path / "run"
    summary = run_benchmark(root, run, [base, tuned], tasks=["ui_group"], split="train", limit=4, workers=1,
                            progress=False)
    assert summary.failed == 0 and summary.ok == 8
    answers = {}
    for row in RunStore(run).records():
        answers.setdefault(row.record["model"], {})[row.record["question"]] = row.record
    assert set(answers) == {base, tuned}
    changed = [q for q in answers[base] if answers[base][q]["raw"] != answers[tuned][q]["raw"]]
    assert changed, "the adapter did not change any answer"
    # the base model rambles to the 300-token cap; the adapter learned to end its turn (the end of
    # turn is part of every trained answer)
    length = {m: sum(len(r["raw"]) for r in a.values()) for m, a in answers.items()}
    assert length[tuned] < 0.5 * length[base], length

    html = write_report(run)
    md = (html.parent / "understand.md").read_text()
    assert "§5.2" in md and "41.3" in md and "96.9" in md and f"?adapter={folder}" in md


def test_paper_defaults_and_bad_input(bench, tiny, tmp_path):
    from webgauge.understand import PAPER_HYPER, FinetuneError, finetune

    assert (PAPER_HYPER["rank"], PAPER_HYPER["alpha"], PAPER_HYPER["dropout"], PAPER_HYPER["lr"],
            PAPER_HYPER["epochs"], PAPER_HYPER["batch_size"], PAPER_HYPER["grad_accum"],
            PAPER_HYPER["warmup_ratio"]) == (16, 32, 0.05, 2e-4, 2, 1, 8, 0.03)
    root, _ = bench
    with pytest.raises(FinetuneError, match="unknown hyper-parameter"):
        finetune(root, tiny, tmp_path / "a", rnak=8)
    with pytest.raises(FinetuneError, match="not a benchmark folder"):
        finetune(tmp_path, tiny, tmp_path / "a")
    with pytest.raises(FinetuneError, match="does not exist"):
        finetune(root, tmp_path / "no-model", tmp_path / "a", tasks=["ui_group"])


def test_cli_finetune_then_run_on_the_test_split(bench, tiny, tmp_path):
    from webgauge.cli.understand import group

    root, _ = bench
    out, run = tmp_path / "ad", tmp_path / "run"
    runner = CliRunner()
    args = ["finetune", str(root), "--base", str(tiny), "--out", str(out), "--task", "ui_group", "--max-steps", "2",
            "--grad-accum", "2", "--limit", "4"]
    res = runner.invoke(group, args)
    assert res.exit_code == 0, res.output
    assert "ui_group: 2 steps on 4 samples" in res.output and "adapter=" in res.output
    spec = json.loads((out / "ui_group" / "finetune.json").read_text())
    assert spec["hyper"]["grad_accum"] == 2 and spec["hyper"]["lr"] == 2e-4 and spec["hyper"]["max_steps"] == 2
    res = runner.invoke(group, args[:-2] + ["--limit", "3"])  # other settings in the same folder
    assert res.exit_code != 0 and "--force" in str(res.exception)
    res = runner.invoke(group, ["run", str(root), "--split", "test", "--task", "ui_group", "--limit", "1",
                                "--model", f"hf-local:{tiny}?adapter={out / 'ui_group'}", "--out", str(run),
                                "--workers", "1"])
    assert res.exit_code == 0 and "1 answered, 0 failed" in res.output, res.output
