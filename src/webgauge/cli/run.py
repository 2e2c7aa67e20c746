"""``webgauge run ...``: look into run directories (status, failures, overview page)."""

from __future__ import annotations

import json
from pathlib import Path

import click

__all__ = ["group"]


@click.group(name="run", help="Inspect run directories written by any suite.")
def group() -> None:
    pass


_RUN_DIR = click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))


def _overview(run_dir: Path) -> dict:
    from webgauge.report.run_report import run_overview

    try:
        return run_overview(run_dir)
    except FileNotFoundError as exc:
        raise click.ClickException(str(exc)) from None


@group.command(help="Show a run's suite, models, seeds and outcome counts by kind.")
@_RUN_DIR
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def status(run_dir: Path, as_json: bool) -> None:
    ov = _overview(run_dir)
    if as_json:
        click.echo(json.dumps({k: ov[k] for k in ("totals", "kinds", "workers")}, indent=2))
        return
    spec = ov["spec"].get("spec", {})
    t = ov["totals"]
    click.echo(f"{run_dir}: suite={spec.get('suite')} models={spec.get('models')} seeds={spec.get('seeds')}")
    click.echo(f"{t['items']} items stored: {t['ok']} ok, {t['error']} failed")
    for k in ov["kinds"]:
        click.echo(f"  {k['kind']:<20} ok={k['ok']:<6} failed={k['error']}")


@group.command(help="List the items whose last attempt failed, with the error (and traceback with -v).")
@_RUN_DIR
@click.option("-v", "--verbose", is_flag=True, help="Print each failure's traceback.")
def failures(run_dir: Path, verbose: bool) -> None:
    from webgauge.run import RunStore

    try:
        rows = RunStore(run_dir).failures()
    except FileNotFoundError as exc:
        raise click.ClickException(str(exc)) from None
    for r in rows:
        err = r.error or {}
        click.echo(f"{r.item_id}\t{r.kind}\tattempt {r.attempt}\t{err.get('type')}: {err.get('message')}")
        if verbose and err.get("traceback"):
            click.echo(err["traceback"])
    if rows:
        click.echo(f"{len(rows)} failed item(s); re-run the suite command with --retry-failed to try them again.",
                   err=True)
    else:
        click.echo("no failed items", err=True)


@group.command(help="Write an HTML overview of a run (spec, outcomes, failures, workers).")
@_RUN_DIR
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the page [default: RUN_DIR/overview.html].")
@click.option("--png", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also render the page to this PNG with Chromium.")
def overview(run_dir: Path, out: Path | None, png: Path | None) -> None:
    from webgauge.report.run_report import write_run_report

    _overview(run_dir)  # a clear error for a folder that is not a run directory
    path = write_run_report(run_dir, out)
    click.echo(f"wrote {path}")
    if png is not None:
        import asyncio

        from webgauge.report.render import render_html_to_png

        click.echo(f"wrote {asyncio.run(render_html_to_png(path, png))}")
