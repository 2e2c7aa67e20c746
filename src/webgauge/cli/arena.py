"""``webgauge arena``: list tasks, serve the apps, run agents, write reports, run the demo.

Every command is a call into :mod:`webgauge.arena` with the same keywords.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import click

from webgauge.cli.seeds import SEEDS, flat_seeds
from webgauge.run.options import executor_kwargs, executor_options

__all__ = ["group"]


@click.group(help="Browser agents on self-hosted, resettable web apps, judged on stored state.")
def group() -> None:
    pass


def _tasks(seeds, families):
    from webgauge.arena.realapps import AppNotInstalled
    from webgauge.arena.registry import build_tasks

    try:
        return build_tasks(flat_seeds(seeds), families=list(families) or None)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--family") from None
    except AppNotInstalled as exc:
        raise click.ClickException(str(exc)) from None


_seeds = click.option("--seeds", "seeds", type=SEEDS, multiple=True, default=("0-1",), show_default=True,
                      help="Task seeds: a number, a range (0-9) or a list (0,3,5); repeatable.")
_family = click.option("--family", "families", multiple=True,
                       help="Only these task families, e.g. shop.cancel_order or roundup.close, or a real app's "
                            "name for all its families (repeatable; default: the own families and those of every "
                            "installed real app; see --families).")


@group.command("tasks", help="List the tasks built from the seeds (public view plus family, pattern and rules).")
@_seeds
@_family
@click.option("--json", "as_json", is_flag=True, help="Print JSON lines (the audit view: rules and validator hash).")
@click.option("--variety", is_flag=True, help="Per family: distinct instructions over seeds 0-199, held-out novelty "
                                              "and mean oracle steps (builds every task; takes a while).")
@click.option("--heldout-sample", type=click.IntRange(min=1), default=50, show_default=True,
              help="Held-out-range seeds used to measure novelty (with --variety).")
@click.option("--check-modes", is_flag=True,
              help="Play each task's oracle with element ids (with and without the screenshot; dom: tasks that "
                   "are not visual) and the pointer-only oracle with screenshot-mode actions only, in real Chromium; "
                   "print steps against each mode's budget (exit 1 if any fails).")
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True,
              help="Browsers' envs (--check-modes).")
@click.option("--families", "list_families", is_flag=True,
              help="List every family of the registry: own, or the real app it runs on and whether that app is "
                   "installed (with the command that installs it).")
def tasks_cmd(seeds, families, as_json, variety, heldout_sample, check_modes, workers, list_families):
    if list_families:
        from webgauge.arena.registry import family_status

        for row in family_status():
            where = "own" if row["app"] is None else row["app"]
            state = "" if row["installed"] else f"not installed (run: {row['install']})"
            click.echo(json.dumps(row) if as_json else f"{row['family']:30s} {where:10s} {state}".rstrip())
        return
    if check_modes:
        from webgauge.arena.registry import app_of
        from webgauge.arena.tasks import build_tasks as own_tasks

        # by default the own families (plug-ins included), not those of the installed real apps
        tasks = _tasks(seeds, families) if families else own_tasks(flat_seeds(seeds))
        real = sorted({t.family for t in tasks if app_of(t.family)})
        if real:
            raise click.BadParameter(f"--check-modes plays the arena's own apps; {', '.join(real)} run on real apps "
                                     "(play them with `webgauge arena run --family ...`)", param_hint="--family")
        _check_modes(tasks, as_json, workers)
        return
    if variety:
        from webgauge.arena.tasks.variety import measure_variety

        rows = measure_variety(list(families) or None, n_heldout=heldout_sample)
        for r in rows:
            click.echo(json.dumps(r.to_dict()) if as_json else
                       f"{r.family:24s} {r.pattern:16s} {'visual' if r.visual else '      '} distinct {r.distinct:4d}  "
                       f"novelty {r.novelty:6.1%}  oracle steps {r.oracle_steps:5.1f}")
        if not as_json:
            held = sum(r.heldout_tasks for r in rows)
            click.echo(f"{len(rows)} families; >=20 distinct: {sum(r.distinct >= 20 for r in rows)}; >=90% novel: "
                       f"{sum(r.novelty >= 0.9 for r in rows)}; held-out novelty "
                       f"{sum(r.heldout_new for r in rows) / held:.1%} of {held}; mean oracle steps "
                       f"{sum(r.oracle_steps for r in rows) / len(rows):.1f}; >=10 steps: "
                       f"{sum(r.oracle_steps >= 10 for r in rows)}")
        return
    for t in _tasks(seeds, families):
        if as_json:
            click.echo(json.dumps(t.describe()))
        else:
            click.echo(f"{t.id:28s} {t.pattern:16s} {'visual ' if t.visual else '       '}{t.instruction}")


def _check_modes(tasks, as_json: bool, workers: int) -> None:
    import asyncio

    from webgauge.arena import ArenaServer
    from webgauge.arena.modes import check_modes
    from webgauge.browser import Browser

    async def go():
        with ArenaServer() as srv:
            async with Browser.launch(headless_shell=True) as browser:
                return await check_modes(browser, srv.app_url, srv.control_url, tasks, workers=workers, on_result=show)

    def show(r) -> None:  # as each check ends
        click.echo(json.dumps(r.to_dict()) if as_json else
                   f"{r.task_id:30s} {r.mode:16s} {'ok  ' if r.ok else 'FAIL'} steps {r.steps:3d} / budget "
                   f"{r.budget:3d}"
                   + ("" if r.success else f"  not solved: {'; '.join(r.errors)[:160]}"))

    rows = asyncio.run(go())
    bad = [r for r in rows if not r.ok]
    if not as_json:
        for mode in dict.fromkeys(r.mode for r in rows):
            mine = [r for r in rows if r.mode == mode]
            click.echo(f"{mode}: {sum(r.ok for r in mine)} of {len(mine)} tasks solved within the budget; "
                       f"families over budget or unsolved: {len({r.family for r in mine if not r.ok})}")
        visual = len({t.id for t in tasks} - {r.task_id for r in rows if r.mode == "dom"})  # check_modes skips them
        if visual:
            click.echo(f"dom: not played on {visual} visual task(s): their success depends on pixels the mode "
                       "does not show (docs/arena-tasks.md)")
    if bad:
        raise SystemExit(1)


@group.command("serve", help="Serve the apps, the episode databases and the versioned control API (/v1) on loopback "
                              "with N episode slots until Ctrl-C (for BrowserGym and other harnesses; "
                              "docs/arena-serve.md).")
@click.option("--slots", type=click.IntRange(min=1), default=4, show_default=True,
              help="Episode slots (parallel episodes) the service holds.")
@click.option("--port", type=int, default=0, help="App port (default: a free one).")
@click.option("--control-port", type=int, default=0, help="Control API port (default: a free one).")
@click.option("--secret", type=click.Path(path_type=Path), default=None,
              help="Secret file for held-out tasks (or set WEBGAUGE_ARENA_SECRET); without it only public seeds.")
@click.option("--lease-timeout", type=click.FloatRange(min=1), default=900.0, show_default=True,
              help="Seconds after which an unused slot lease may be reclaimed (its client died without releasing).")
@click.option("--write-families", type=click.Path(path_type=Path), default=None,
              help="Write the family table (JSON) to this file and exit (the BrowserGym package ships it).")
def serve_cmd(slots, port, control_port, secret, lease_timeout, write_families):
    import os

    from webgauge.arena.adapters.serve import ArenaService, family_table
    from webgauge.arena.tasks.heldout import SECRET_ENV, load_secret

    if write_families is not None:
        write_families.write_text(json.dumps(family_table(), indent=1) + "\n")
        click.echo(f"wrote {write_families}")
        return
    key = None
    if secret is not None or os.environ.get(SECRET_ENV):
        try:
            key = load_secret(secret)
        except (OSError, ValueError) as exc:
            raise click.BadParameter(str(exc), param_hint="--secret") from None
    # the handlers are in place before the service prints its address: a caller may signal it at once
    with _stop_signals() as stop, ArenaService(slots, secret=key, app_port=port, control_port=control_port,
                                               lease_timeout=lease_timeout) as srv:
        click.echo(f"apps:        {srv.app_url}/e/<slot episode>/", )
        click.echo(f"control API: {srv.control_url}  (API v1: GET /v1/version; {slots} slots; "
                   f"held-out: {'yes' if key else 'no'})")
        click.echo(f"BrowserGym:  export WEBGAUGE_ARENA_URL={srv.control_url}", )
        from webgauge.arena.registry import REAL_FAMILIES, is_installed

        have = [a for a in REAL_FAMILIES if is_installed(a)]
        click.echo(f"real apps:   {', '.join(have) or 'none installed'} (started on a slot's first reset to one "
                   "of their families)")
        while not stop.wait(1.0):
            pass
        click.echo("stopped")


@contextlib.contextmanager
def _stop_signals():
    """An event set by SIGINT (Ctrl-C) or SIGTERM while the block runs. Both handlers are installed
    explicitly: a process started in the background by a non-interactive shell inherits SIGINT
    ignored, and Python then never raises KeyboardInterrupt, so a ``time.sleep`` loop would only
    die by SIGKILL."""
    import signal
    import threading

    stop = threading.Event()
    old = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


@group.command("run", help="Run agents on the tasks into a run directory (resumable; repeats add episodes).")
@click.option("--out", "run_dir", type=click.Path(path_type=Path), required=True, help="Run directory.")
@click.option("--agent", "agents", multiple=True, default=("oracle", "heuristic"), show_default=True,
              type=click.Choice(["oracle", "heuristic", "random", "model"]),
              help="Agents to run (repeatable; random: uniform random actions, the floor; seeded by --sampling-seed, "
                   "in --obs-mode dom or screenshot).")
@click.option("--model", default=None,
              help="Model for --agent model, e.g. openai:gpt-4o-mini or scripted:answers.jsonl.")
@click.option("--obs-mode", "obs_modes", multiple=True, type=click.Choice(["dom", "screenshot", "screenshot+tree"]),
              default=None, help="Observation modes for model agents (repeatable) [default: screenshot+tree] and the "
                                 "random agent [default: dom].")
@click.option("--base-url", default=None, help="Base URL of an OpenAI-compatible endpoint for --model.")
@_seeds
@_family
@click.option("--repeats", type=click.IntRange(min=1), default=1, show_default=True,
              help="Episodes per agent and task.")
@click.option("--time-limit", type=float, default=180.0, show_default=True, help="Wall-clock seconds per episode.")
@click.option("--gate-destructive", is_flag=True, help="Block destructive controls until request_approval is granted.")
@click.option("--variant", "variants", multiple=True, help="Run these variants too (repeatable; see `variants`).")
@click.option("--secret", type=click.Path(path_type=Path), default=None,
              help="Secret file for a held-out slice (or set WEBGAUGE_ARENA_SECRET with --heldout N).")
@click.option("--heldout", "n_heldout", type=int, default=0, help="Held-out seeds to add (needs a secret).")
@click.option("--policy", default="grant", show_default=True,
              help="Approval policy for request_approval: grant, deny, scope or scope:fam1,fam2.")
@click.option("--temperature", type=click.FloatRange(0.0, 2.0), default=0.0, show_default=True,
              help="Sampling temperature of model agents.")
@click.option("--sampling-seed", type=int, default=None,
              help="Sampling seed of model agents (repeat with other seeds to measure generation variance).")
@click.option("--report/--no-report", default=True, show_default=True, help="Write the HTML report after the run.")
@executor_options
def run_cmd(run_dir, agents, model, obs_modes, base_url, seeds, families, repeats, time_limit, gate_destructive,
            variants, secret, n_heldout, policy, temperature, sampling_seed, report, **kw):
    from webgauge.arena.outputs.report import write_arena_report
    from webgauge.arena.runner import run_arena
    from webgauge.cli.arena_variants import _tasks as slice_tasks
    from webgauge.cli.arena_variants import model_specs, random_specs

    specs = []
    for a in agents:
        if a == "model":
            specs += model_specs(model, obs_modes, base_url, temperature, sampling_seed)
        else:
            specs += random_specs(obs_modes, sampling_seed) if a == "random" else [{"kind": a}]
    try:
        summary = run_arena(run_dir, slice_tasks(seeds, families, secret, n_heldout), specs,
                            variants=["base", *[v for v in variants if v != "base"]], repeats=repeats,
                            time_limit_s=time_limit, gate_destructive=gate_destructive, approval_policy=policy,
                            **executor_kwargs(kw))
    except (KeyError, ValueError) as exc:
        raise click.BadParameter(str(exc).strip("'\"")) from None
    click.echo(f"{summary.done} episodes run, {summary.failed} failed to run, {summary.skipped_resumed} resumed")
    from webgauge.arena.outputs.report import family_success_text, reset_kinds_text
    from webgauge.arena.outputs.scoring import load_episodes

    eps = load_episodes(run_dir)
    for text in (reset_kinds_text(eps), family_success_text(eps)):
        if text:
            click.echo(text)
    if report:
        click.echo(f"report: {write_arena_report(run_dir)}")


@group.command("report", help="Write the HTML report and trace viewer pages of a run directory.")
@click.argument("run_dir", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Folder inside RUN_DIR [default: RUN_DIR/report].")
@click.option("--png", is_flag=True, help="Also render the report to report.png with Chromium.")
@click.option("--variety", is_flag=True, help="Measure task variety (distinct instructions over the public worlds, "
                                              "held-out novelty) of the run's families and add it to the report.")
@click.option("--heldout-sample", type=click.IntRange(min=1), default=50, show_default=True,
              help="Held-out-range seeds used to measure novelty and leakage (with --variety).")
@click.option("--public-worlds", type=click.IntRange(min=1), default=200, show_default=True,
              help="Public worlds (seeds 0 to N-1) whose instructions are counted (with --variety).")
@click.option("--worlds", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Worlds built without the secret that are searched for held-out targets (with --variety).")
@click.option("--secret", "secret_file", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Measure leakage of the held-out slice of this secret file (default: a stand-in secret).")
def report_cmd(run_dir, out, png, variety, heldout_sample, public_worlds, worlds, secret_file):
    import asyncio

    from webgauge.arena.outputs.report import (
        family_success_text,
        leakage_text,
        write_arena_report,
        write_leakage,
        write_variety,
    )
    from webgauge.arena.outputs.scoring import load_episodes

    eps = load_episodes(run_dir)
    if variety:
        from webgauge.arena.tasks.heldout import load_secret

        try:
            secret = load_secret(secret_file) if secret_file is not None else None
        except (FileNotFoundError, ValueError) as exc:
            raise click.BadParameter(str(exc), param_hint="--secret") from None
        from webgauge.arena.tasks.public_worlds import public_worlds as measure_public

        fams = sorted({r.family for r in eps.records}) or None
        public = measure_public(fams, range(public_worlds), progress=True)  # built once for both measures
        click.echo(f"variety: {write_variety(run_dir, fams, n_heldout=heldout_sample, public=public)}")
        path, rows = write_leakage(run_dir, fams, n_worlds=worlds, n_heldout=heldout_sample, secret=secret,
                                   public=public, progress=True)
        click.echo(leakage_text(rows))
        click.echo(f"leakage: {path}")
    path = write_arena_report(run_dir, out)
    text = family_success_text(eps)
    if text:
        click.echo(text)
    click.echo(str(path))
    if png:
        from webgauge.report import render_html_to_png

        click.echo(str(asyncio.run(render_html_to_png(path, path.with_suffix(".png"), root=run_dir))))


@group.command("demo", help="Oracle and heuristic on every task, offline; writes the report.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("out"), show_default=True, help="Output folder.")
@click.option("--quick", is_flag=True, help="A few families at one seed (about a minute).")
def demo_cmd(out, quick):
    from webgauge.arena.demo import run_demo

    click.echo(str(run_demo(out, quick=quick)))


from webgauge.cli.arena_variants import register as _register_variants  # noqa: E402  (variants, safety, packages)

_register_variants(group)

from webgauge.cli.arena_apps import register as _register_apps  # noqa: E402  (real open-source apps)

_register_apps(group)
