"""``webgauge arena apps install | list | reset``: real open-source web apps for the arena.

Registered on the arena group by :func:`register`. Installing uses only the package
registries (PyPI here); see docs/arena-real-apps.md.
"""

from __future__ import annotations

import time

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

    @apps.command("install", help="Install a real app and build its seed-0 snapshot (idempotent).")
    @click.argument("name")
    @click.option("--seeds", type=int, multiple=True, default=(), help="Also build these seeds' snapshots.")
    def install_cmd(name, seeds):
        from webgauge.arena.realapps import get_spec

        try:
            spec = get_spec(name)
        except KeyError as exc:
            raise click.BadParameter(str(exc.args[0]), param_hint="NAME") from None
        rep = spec.install(lambda line: click.echo(f"  {line}"))
        for s in seeds:
            t0 = time.perf_counter()
            _builder(name)(s)
            click.echo(f"  seed {s} snapshot: {time.perf_counter() - t0:.1f} s")
        click.echo(f"{rep.name} {rep.version}: {'; '.join(rep.steps)} ({rep.seconds:.1f} s)")

    @apps.command("reset", help="Restore a real app to a seed's snapshot (database, stored files, sessions).")
    @click.argument("name")
    @click.argument("seed", type=int)
    def reset_cmd(name, seed):
        from webgauge.arena.realapps import AppNotInstalled, get_spec

        try:
            get_spec(name).require()
        except (KeyError, AppNotInstalled) as exc:
            raise click.ClickException(str(exc.args[0])) from None
        t0 = time.perf_counter()
        _reset(name)(seed)
        click.echo(f"{name} reset to seed {seed} in {(time.perf_counter() - t0) * 1000:.1f} ms")


def _module(name: str):
    import importlib

    return importlib.import_module(f"webgauge.arena.realapps.{name}.app")


def _builder(name: str):
    return _module(name).build_seed


def _reset(name: str):
    return _module(name).reset
