"""The `webgauge understand` commands end to end: build, run (resume), report."""

import pytest
from click.testing import CliRunner

from webgauge.cli.understand import group
from webgauge.run import RunStore


def test_help_for_every_command():
    runner = CliRunner()
    for args in ([], ["build"], ["run"], ["report"], ["review"]):
        res = runner.invoke(group, [*args, "--help"])
        assert res.exit_code == 0 and "Usage" in res.output


@pytest.mark.browser
def test_build_run_report(tmp_path):
    runner = CliRunner()
    bench, run = tmp_path / "bench", tmp_path / "run"
    res = runner.invoke(group, ["build", "--synthetic", "2", "--task", "safety", "--task", "ui_group",
                                "--seed", "5", "--out", str(bench)])
    assert res.exit_code == 0, res.output
    assert "manifest sha256" in res.output and "safety" in res.output
    res = runner.invoke(group, ["build", "--synthetic", "1", "--out", str(bench)])
    assert res.exit_code != 0 and "--force" in res.output and "Traceback" not in res.output
    args = ["run", str(bench), "--model", "random-guess", "--model", "dom-heuristic", "--out", str(run), "--workers",
            "1"]
    res = runner.invoke(group, args)
    assert res.exit_code == 0, res.output
    res = runner.invoke(group,
                        ["run", str(bench), "--model", "random", "--out", str(tmp_path / "r2"), "--workers", "1"])
    fails = RunStore(tmp_path / "r2").failures()  # the name clash is a clear per-item error naming the fix
    assert fails and all("random-guess" in f.error["message"] for f in fails)
    # a run whose items failed exits non-zero and says how many
    assert res.exit_code != 0 and f"{len(fails)} item(s) failed" in res.output
    res = runner.invoke(group, ["run", str(bench), "--model", "dom-oracle", "--out", str(tmp_path / "r3")])
    assert res.exit_code != 0 and "dom-heuristic" in str(res.exception)  # the old name says the new one
    res = runner.invoke(group, args)
    assert res.exit_code == 0 and "resumed" in res.output and res.output.startswith("0 answered")
    res = runner.invoke(group, ["report", str(run)])
    assert res.exit_code == 0, res.output
    assert (run / "report" / "understand.html").is_file() and (run / "report" / "understand.md").is_file()
