"""The command line: every group and command has --help; capture writes and resumes a run."""

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from webgauge.cli.main import cli


def _walk(group: click.Group, ctx: click.Context, prefix: list[str]):
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        yield prefix + [name], cmd
        if isinstance(cmd, click.Group):
            yield from _walk(cmd, click.Context(cmd, parent=ctx, info_name=name), prefix + [name])


def test_every_command_and_option_has_help():
    runner = CliRunner()
    root = click.Context(cli, info_name="webgauge")
    seen = set()
    for path, cmd in _walk(cli, root, []):
        seen.add(path[0])
        res = runner.invoke(cli, path + ["--help"])
        assert res.exit_code == 0, (path, res.output)
        assert cmd.help or cmd.short_help, f"`webgauge {' '.join(path)}` has no help text"
        for p in cmd.params:
            if isinstance(p, click.Option):
                assert p.help, f"`webgauge {' '.join(path)}` option {p.opts} has no help"
    assert {"capture", "demo", "doctor", "run", "models"} <= seen


@pytest.mark.browser
def test_capture_writes_a_run_and_resumes(tmp_path):
    pages = tmp_path / "site"
    pages.mkdir()
    (pages / "a.html").write_text("<h1>A</h1><a href='b.html'>to b</a>")
    (pages / "b.html").write_text("<h1>B</h1><img src='https://example.com/x.png'>")
    (pages / "loop.html").write_text("<script>while(true){}</script>")
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "webgauge", "capture", str(pages), "--out", str(out), "--timeout", "8", "--quiet"]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    assert "captured 2 pages (1 failed, 0 resumed)" in first.stdout
    html = (out / "capture.html").read_text()
    assert "loop" in html and "timeout" in html
    second = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert "(0 failed, 3 resumed)" in second.stdout, second.stdout

    from webgauge.run import RunStore

    store = RunStore(out)
    b = store.get("b")
    assert b.ok and b.record["snapshot"]["blocked_requests"][0]["url"] == "https://example.com/x.png"
    assert store.blob(b.blobs["screenshot.png"]).startswith(b"\x89PNG")
    # the browser the capture ran in: its binary's name and the version it prints
    from webgauge.browser import find_chromium

    name, _, version = store.spec["environment"]["chromium"].partition(": ")
    assert name == Path(find_chromium(headless_shell=True)).name and version.startswith("Chromium 1"), name + version


def test_bad_arguments_are_clear(tmp_path):
    res = CliRunner().invoke(cli, ["capture", "https://example.com/x.html", "--out", str(tmp_path / "r")])
    assert res.exit_code != 0 and "offline" in res.output
