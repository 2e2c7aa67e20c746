"""A build of real pages only: every baseline answers every item it can (random-guess all of them),
tasks the corpus cannot measure are flagged in the manifest and the report instead of scored, and
the CLI fails loudly (exit code, one line) on a build with no question, an empty folder and a run
whose items failed (issue 64)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from webgauge.cli.understand import group
from webgauge.understand import build_benchmark, read_questions, run_benchmark, write_report
from webgauge.understand.report import NOT_MEASURABLE

pytestmark = pytest.mark.browser

PAGES = ("10955", "1223", "13880", "2293")


def test_random_guess_answers_every_item_and_degenerate_tasks_are_flagged(tmp_path, real_pages_dir):
    bench, run = tmp_path / "b", tmp_path / "r"
    manifest = build_benchmark(bench, seed=3, synthetic=0, pages=[real_pages_dir / f"{p}.html" for p in PAGES],
                               progress=False)
    assert manifest["failures"] == []
    questions = read_questions(bench)
    tasks = {q.task for q in questions}
    assert {"form_fill", "layout", "safety"} <= tasks  # the tasks random-guess had no pool for, and the degenerate one
    # every safety target of these pages is NONE: not measurable here
    assert all(q.target == [] for q in questions if q.task == "safety")
    assert "safety" in manifest["not_measurable"] and "NONE" in manifest["not_measurable"]["safety"]
    assert manifest["answer_pool_sources"]["layout"].startswith("generic answers")
    summary = run_benchmark(bench, run, ["random-guess", "dom-heuristic"], workers=1, progress=False)
    assert summary.failed == 0 and summary.ok == 2 * len(questions)
    html = write_report(run)
    md = (html.parent / "understand.md").read_text()
    text = html.read_text()
    for doc in (md, text):
        assert NOT_MEASURABLE in doc and "every target of its" in doc
    # the safety columns of Table 2 say so instead of a score, for every model
    rows = [line for line in md.splitlines() if line.startswith("| random-guess") or line.startswith("| dom-heuristic")]
    assert rows and all(line.count(NOT_MEASURABLE) == 3 for line in rows[:2])


def test_cli_fails_loudly_on_no_question_and_an_empty_folder(tmp_path):
    runner = CliRunner()
    empty = tmp_path / "empty"
    empty.mkdir()
    res = runner.invoke(group, ["build", "--pages", str(empty), "--synthetic", "0", "--out", str(tmp_path / "o1")])
    assert res.exit_code != 0 and "holds no .html pages" in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1
    tall = tmp_path / "tall"
    tall.mkdir()
    (tall / "tall.html").write_text("<!doctype html><title>tall</title><body><p>top</p>"
                                    "<div style='height:9000px'></div><p>bottom</p></body>")
    res = runner.invoke(group, ["build", "--pages", str(tall), "--synthetic", "0", "--out", str(tmp_path / "o2")])
    assert res.exit_code != 0 and "asked no question" in res.output, res.output


def test_the_report_does_not_claim_an_unmeasured_random_score():
    from webgauge.understand.baselines import baseline_note

    note = baseline_note(Path("/nonexistent"))
    assert "about 50" not in note and "scores about" not in note
    assert "without the labellers" in note  # dom-heuristic is said to be a baseline, not the labeller again
