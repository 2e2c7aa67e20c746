"""``webgauge arena apps install | list | reset | stats | leakage``: real open-source web apps for the arena.

Registered on the arena group by :func:`register`. Installing uses only the package
registries (PyPI here); see docs/arena-real-apps.md.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

__all__ = ["register"]


def register(group: click.Group) -> None:
    @group.group("apps", help="Real open-source web apps (install, list, reset).")
    def apps():
        pass

    @apps.command("list", help="Every real app: installed or not, version, licence, source.")
    def list_cmd():
        from webgauge.arena.realapps import apps_home, specs

        click.echo(f"apps home: {apps_home()}  (WEBGAUGE_APPS_HOME)")
        for spec in specs().values():
            v = spec.version()
            state = f"installed {v}" if v else f"not installed (webgauge arena apps install {spec.name})"
            click.echo(f"{spec.name:10} {spec.kind:14} {state:48} {spec.licence}  [{spec.source}]")

    @apps.command("install", help="Install a real app and build its seed-0 snapshot (idempotent); prints each step "
                                   "and its time.")
    @click.argument("name")
    @click.option("--seeds", type=click.IntRange(min=0), multiple=True, default=(),
                  help="Also build these seeds' snapshots.")
    def install_cmd(name, seeds):
        from webgauge.arena.realapps import get_spec

        try:
            spec = get_spec(name)
        except KeyError as exc:
            raise click.BadParameter(str(exc.args[0]), param_hint="NAME") from None
        steps = StepTimer(click.echo)
        try:
            rep = spec.install(steps.say)
        finally:
            steps.close()
        for s in seeds:
            t0 = time.perf_counter()
            _builder(name)(s)
            click.echo(f"  seed {s} snapshot: {time.perf_counter() - t0:.1f} s")
        click.echo(f"{rep.name} {rep.version}: {'; '.join(rep.steps)} ({rep.seconds:.1f} s)")

    @apps.command("leakage", help="Held-out secrecy of real apps' content (no install needed): per family, the "
                                   "share of held-out targets that worlds built without the secret also hold.")
    @click.argument("names", nargs=-1)
    @click.option("--worlds", type=click.IntRange(min=1), default=1000, show_default=True,
                  help="Worlds built without the secret that are searched for held-out targets.")
    @click.option("--heldout-sample", type=click.IntRange(min=1), default=50, show_default=True,
                  help="Held-out tasks measured per family.")
    @click.option("--secret", "secret_file", type=click.Path(path_type=Path, dir_okay=False), default=None,
                  help="Measure the held-out slice of this secret file (default: a stand-in secret).")
    @click.option("--json", "as_json", is_flag=True, help="One JSON object per family.")
    def leakage_cmd(names, worlds, heldout_sample, secret_file, as_json):
        import json

        from webgauge.arena.realapps.leakage import APPS, app_leakage_text, measure_app_leakage
        from webgauge.arena.tasks.heldout import load_secret

        unknown = sorted(set(names) - set(APPS))
        if unknown:
            raise click.BadParameter(f"no leakage source for {', '.join(unknown)}; known: {', '.join(sorted(APPS))}",
                                     param_hint="NAMES")
        try:
            secret = load_secret(secret_file) if secret_file is not None else None
        except (FileNotFoundError, ValueError) as exc:
            raise click.BadParameter(str(exc), param_hint="--secret") from None
        rows = [r for name in (names or sorted(APPS))
                for r in measure_app_leakage(name, n_worlds=worlds, n_heldout=heldout_sample, secret=secret)]
        click.echo("\n".join(json.dumps(r.to_dict()) for r in rows) if as_json else app_leakage_text(rows))

    @apps.command("stats", help="Content of a real app's seed world, counted with SQL on its snapshot: items per "
                                 "kind and distinct texts.")
    @click.argument("name")
    @click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
                  help="Whose world to count (its snapshot is built first if missing).")
    @click.option("--json", "as_json", is_flag=True, help="One JSON object.")
    def stats_cmd(name, seed, as_json):
        import dataclasses
        import json

        from webgauge.arena.realapps import AppNotInstalled, get_spec

        try:
            spec = get_spec(name)
            spec.require()
        except (KeyError, AppNotInstalled) as exc:
            raise click.ClickException(str(exc.args[0])) from None
        if spec.stats is None:
            raise click.ClickException(f"real app {name!r} does not count its content yet")
        st = spec.stats(seed)
        click.echo(json.dumps(dataclasses.asdict(st)) if as_json else stats_text(st))

    @apps.command("reset", help="Restore a real app to a seed's snapshot (database, stored files, sessions).")
    @click.argument("name")
    @click.argument("seed", type=click.IntRange(min=0))
    def reset_cmd(name, seed):
        from webgauge.arena.realapps import AppNotInstalled, get_spec

        try:
            get_spec(name).require()
        except (KeyError, AppNotInstalled) as exc:
            raise click.ClickException(str(exc.args[0])) from None
        t0 = time.perf_counter()
        _reset(name)(seed)
        click.echo(f"{name} reset to seed {seed} in {(time.perf_counter() - t0) * 1000:.1f} ms")


def stats_text(st) -> str:
    """``apps stats`` as a table: kind, count, distinct texts, note."""
    lines = [f"{st.app} seed {st.seed}", f"  {'content':28} {'count':>8} {'distinct':>9}  note"]
    for r in st.rows:
        d = "-" if r.distinct is None else f"{r.distinct:,}"
        lines.append(f"  {r.kind:28} {r.count:>8,} {d:>9}  {r.note}")
    return "\n".join(lines)


class StepTimer:
    """Prints each install step as the installer names it, then the time it took (when the next step
    starts or the install ends); a step the installer timed itself (``done in ...``) is not timed twice."""

    def __init__(self, echo) -> None:
        self.echo = echo
        self.t0: float | None = None

    def say(self, line: str) -> None:
        if line.strip().startswith("done in"):
            self.t0 = None  # the installer timed this step itself
            self.echo(f"  {line}")
            return
        self.close()
        self.echo(f"  {line}")
        self.t0 = time.perf_counter()

    def close(self) -> None:
        if self.t0 is not None:
            self.echo(f"    done in {time.perf_counter() - self.t0:.1f} s")
            self.t0 = None


def _module(name: str):
    import importlib

    return importlib.import_module(f"webgauge.arena.realapps.{name}.app")


def _builder(name: str):
    return _module(name).build_seed


def _reset(name: str):
    return _module(name).reset
