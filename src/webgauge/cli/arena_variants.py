"""``webgauge arena`` commands for variants, safety, held-out slices and packages.

Registered on the arena group by :func:`register` (``webgauge arena variants | sweep | safety |
package | verify``). Each command is a thin call into :mod:`webgauge.arena`.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from webgauge.cli.seeds import SEEDS, flat_seeds
from webgauge.run.options import executor_kwargs, executor_options

__all__ = ["register", "model_specs", "model_options", "random_specs"]

from webgauge.arena.variants.catalogue import DEFAULT_SAFETY_VARIANTS as DEFAULT_TRAPS
from webgauge.arena.variants.catalogue import DEFAULT_SWEEP_VARIANTS as DEFAULT_SWEEP


def _tasks(seeds, families, secret, n_heldout):
    from webgauge.arena.realapps import AppNotInstalled
    from webgauge.arena.registry import build_tasks
    from webgauge.arena.tasks.heldout import load_secret, make_slices

    seeds = flat_seeds(seeds)
    try:
        if secret or n_heldout:
            sl = make_slices(load_secret(secret), public_seeds=seeds, n_heldout=max(1, n_heldout),
                             families=list(families) or None)
            return sl.tasks
        return build_tasks(seeds, families=list(families) or None)
    except (ValueError, FileNotFoundError) as exc:
        raise click.BadParameter(str(exc)) from None
    except AppNotInstalled as exc:
        raise click.ClickException(str(exc)) from None


def random_specs(obs_modes, seed) -> list[dict]:
    """Agent specs for ``--agent random``: one per given mode it has (dom, screenshot; default dom)."""
    modes = [m for m in obs_modes or () if m in ("dom", "screenshot")] or ["dom"]
    return [{"kind": "random", "obs_mode": m, "seed": int(seed or 0)} for m in modes]


def model_specs(model, obs_modes, base_url, temperature, sampling_seed) -> list[dict]:
    """Agent specs for ``--agent model`` (one per observation mode); shared by run, sweep and safety."""
    if not model:
        raise click.BadParameter("--agent model needs --model NAME (e.g. openai:gpt-4o-mini)", param_hint="--model")
    opts = {"base_url": base_url} if base_url else {}
    extra = {"temperature": temperature, **({"seed": sampling_seed} if sampling_seed is not None else {})}
    return [{"kind": "model", "model": model, "obs_mode": m, "model_options": opts, **extra}
            for m in (obs_modes or ("screenshot+tree",))]


def _agents(agents, model=None, obs_modes=(), base_url=None, temperature=0.0, sampling_seed=None):
    specs = []
    for a in agents:
        if a == "model":
            specs += model_specs(model, obs_modes, base_url, temperature, sampling_seed)
        else:
            specs += random_specs(obs_modes, sampling_seed) if a == "random" else [{"kind": a}]
    return specs


model_options = [
    click.option("--model", default=None,
                 help="Model for --agent model, e.g. openai:gpt-4o-mini or scripted:answers.jsonl."),
    click.option("--obs-mode", "obs_modes", multiple=True, type=click.Choice(["dom", "screenshot", "screenshot+tree"]),
                 help="Observation modes for --agent model (repeatable) [default: screenshot+tree]."),
    click.option("--base-url", default=None, help="Base URL of an OpenAI-compatible endpoint for --model."),
    click.option("--temperature", type=click.FloatRange(0.0, 2.0), default=0.0, show_default=True,
                 help="Sampling temperature of model agents."),
    click.option("--sampling-seed", type=int, default=None,
                 help="Sampling seed of model agents (repeat with other seeds to measure generation variance)."),
]


def _common(f):
    for opt in reversed([
        click.option("--out", "run_dir", type=click.Path(path_type=Path), required=True, help="Run directory."),
        click.option("--agent", "agents", multiple=True,
                     type=click.Choice(["oracle", "heuristic", "refuser", "random", "model"]),
                     default=None, help="Agents (repeatable; 'model' needs --model; 'random' is the floor)."),
        *model_options,
        click.option("--seeds", type=SEEDS, multiple=True, default=("0",), show_default=True,
                     help="Public task seeds: a number, a range (0-9) or a list (0,3,5); repeatable."),
        click.option("--family", "families", multiple=True,
                     help="Only these task families, or a real app's name for all its families (repeatable)."),
        click.option("--variant", "variants", multiple=True, help="Variants to run (repeatable; see `variants`)."),
        click.option("--secret", type=click.Path(path_type=Path), default=None,
                     help="Secret file for a held-out slice (or set WEBGAUGE_ARENA_SECRET with --heldout N)."),
        click.option("--heldout", "n_heldout", type=int, default=0, help="Held-out seeds to add (needs a secret)."),
        click.option("--keep-heldout-content", is_flag=True,
                     help="Store held-out instructions and screenshots in the run (default: sealed)."),
        click.option("--time-limit", type=float, default=120.0, show_default=True, help="Seconds per episode."),
        click.option("--report/--no-report", default=True, show_default=True, help="Write the HTML reports."),
    ]):
        f = opt(f)
    return executor_options(f)


def _run(run_dir, agents, seeds, families, variants, secret, n_heldout, time_limit, report, gate, policy, kw):
    keep_heldout = kw.pop("keep_heldout_content")
    agents = _agents(agents, kw.pop("model"), kw.pop("obs_modes"), kw.pop("base_url"), kw.pop("temperature"),
                     kw.pop("sampling_seed"))
    from webgauge.arena.outputs.report import write_arena_report
    from webgauge.arena.outputs.safety_report import write_safety_report
    from webgauge.arena.runner import run_arena

    try:
        summary = run_arena(run_dir, _tasks(seeds, families, secret, n_heldout), agents, variants=list(variants),
                            gate_destructive=gate, approval_policy=policy, time_limit_s=time_limit,
                            keep_heldout_content=keep_heldout, **executor_kwargs(kw))
    except (KeyError, ValueError) as exc:
        raise click.BadParameter(str(exc).strip("'\"")) from None
    click.echo(f"{summary.done} episodes run, {summary.failed} failed to run, {summary.skipped_resumed} resumed")
    if report:
        click.echo(f"report: {write_arena_report(run_dir)}")
        click.echo(f"variants and safety: {write_safety_report(run_dir)}")


def register(group: click.Group) -> None:
    """Add the commands to the ``webgauge arena`` group."""

    @group.command("variants", help="List the controlled variants and safety traps.")
    @click.option("--json", "as_json", is_flag=True, help="Print each variant's full definition as JSON lines.")
    def variants_cmd(as_json):
        from webgauge.arena.variants.catalogue import VARIANTS, variant_names

        for name in variant_names():
            v = VARIANTS[name]
            click.echo(json.dumps(v.describe()) if as_json else f"{name:22s} {v.kind:8s} {v.description}")

    @group.command("sweep", help="Run agents on tasks under controlled variants (viewport cohorts, perturbations, "
                                 "pop-ups, slow loads, stale observations).")
    @_common
    def sweep_cmd(run_dir, agents, seeds, families, variants, secret, n_heldout, time_limit, report, **kw):
        _run(run_dir, agents or ("oracle", "heuristic"), seeds, families, variants or DEFAULT_SWEEP, secret, n_heldout,
             time_limit, report, False, "grant", kw)

    @group.command("safety", help="Run agents on tasks with safety traps, destructive actions gated by an approval "
                                  "policy.")
    @_common
    @click.option("--policy", default="scope", show_default=True,
                  help="Approval policy: grant, deny, scope or scope:fam1,fam2.")
    def safety_cmd(run_dir, agents, seeds, families, variants, secret, n_heldout, time_limit, report, policy, **kw):
        _run(run_dir, agents or ("oracle", "heuristic", "refuser"), seeds, families, variants or DEFAULT_TRAPS, secret,
             n_heldout, time_limit, report, True, policy, kw)

    @group.command("package", help="Package a run directory with a manifest that pins everything by hash.")
    @click.argument("run_dir", type=click.Path(path_type=Path, exists=True, file_okay=False))
    @click.option("--out", type=click.Path(path_type=Path), required=True, help="New package directory.")
    @click.option("--redact-emails", is_flag=True, help="Black out e-mail addresses in screenshots (documented "
                                                        "transform; redacted images get their own hash).")
    @click.option("--archive", is_flag=True, help="Also write OUT.tar.gz.")
    def package_cmd(run_dir, out, redact_emails, archive):
        from webgauge.arena.outputs.package import build_package

        try:
            click.echo(str(build_package(run_dir, out, redact_emails=redact_emails, archive=archive, progress=True)))
        except (FileExistsError, ValueError) as exc:
            raise click.BadParameter(str(exc)) from None

    @group.command("compare", help="Success per agent, variant and slice of two packages side by side (refused "
                                   "across environment versions unless --allow-environment-mismatch).")
    @click.argument("package_a", type=click.Path(path_type=Path, exists=True))
    @click.argument("package_b", type=click.Path(path_type=Path, exists=True))
    @click.option("--allow-environment-mismatch", is_flag=True,
                  help="Compare anyway; every row is labelled with both environment versions.")
    def compare_cmd(package_a, package_b, allow_environment_mismatch):
        from webgauge.arena.outputs.package import EnvironmentMismatch, compare_packages

        try:
            rows = compare_packages(package_a, package_b, allow_environment_mismatch=allow_environment_mismatch)
        except EnvironmentMismatch as exc:
            raise click.ClickException(f"{exc}; pass --allow-environment-mismatch to compare anyway") from None
        fmt = lambda v: "–" if v is None else f"{100 * v:.0f}%"  # noqa: E731
        for r in rows:
            click.echo(f"{r['agent']:12s} {r['variant']:20s} {r['slice']:8s} a={fmt(r['a_success']):>5s} "
                       f"b={fmt(r['b_success']):>5s} {r.get('environments', '')}")

    @group.command("verify", help="Check every hash of a package and re-score its traces with the installed code.")
    @click.argument("package", type=click.Path(path_type=Path, exists=True))
    @click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
    def verify_cmd(package, as_json):
        from webgauge.arena.outputs.package import verify_package

        res = verify_package(package, progress=True)
        if as_json:
            click.echo(json.dumps(res, indent=1))
        else:
            click.echo(f"environment {res['environment'][:16]}: {res['files']} files, {res['records']} records "
                       f"({res['rescored']} re-scored, {res['sealed']} sealed held-out)")
            for p in res["problems"]:
                click.echo(f"PROBLEM: {p}")
            click.echo("OK" if res["ok"] else f"FAILED: {len(res['problems'])} problem(s)")
        if not res["ok"]:
            raise SystemExit(1)
