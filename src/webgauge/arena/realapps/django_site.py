"""A Django project from PyPI as a real app: its own virtualenv, the project's files copied from this
package, its blank database made by ``migrate``, its static files collected, seed 0 built and served.

The shop (django-oscar) and the forum (Spirit) are both this; :class:`DjangoSite` holds what they
share, each app module names what is its own (the distributions, the settings module, the folder
variable its settings read, what seeding is called) and how it builds and serves a seed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .base import InstallReport, apps_home

__all__ = ["DjangoSite", "PipStep"]


@dataclass(frozen=True)
class PipStep:
    """One ``pip install`` into the app's virtualenv, skipped when ``dist``'s dist-info is there."""

    dist: str  # the distribution's dist-info name ("django_oscar", "waitress")
    shown: str  # how the step is printed ("'waitress>=3,<4'")
    requirements: tuple[str, ...]


@dataclass(frozen=True)
class DjangoSite:
    """A Django project in an app folder under :func:`~webgauge.arena.realapps.base.apps_home`."""

    name: str  # the app's folder ("oscar")
    what: str  # how messages name it ("the shop")
    package: Path  # the app module's folder, holding ``site/`` (the Django project)
    settings: str  # "wgshop.settings"
    data_var: str  # the environment variable naming the served data folder ("WG_OSCAR_DATA")
    pip: tuple[PipStep, ...]  # the first one's distribution gives the version
    static: str  # the folder collectstatic writes under static/ ("oscar")

    def home(self) -> Path:
        return apps_home() / self.name

    def py(self) -> Path:
        return self.home() / "venv" / "bin" / "python"

    def _dist_infos(self, dist: str) -> list[Path]:
        return sorted((self.home() / "venv").glob(f"lib/python*/site-packages/{dist}-*.dist-info"))

    def has(self, dist: str) -> bool:
        return bool(self._dist_infos(dist))

    def installed_version(self) -> str | None:
        dist = self.pip[0].dist
        metas = self._dist_infos(dist)
        if not metas or not (self.home() / "data" / "db.sqlite3").is_file():
            return None
        return metas[-1].name[len(f"{dist}-"):-len(".dist-info")]

    def env(self, data: Path | None = None) -> dict:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "DJANGO_SETTINGS_MODULE")}
        return {**env, self.data_var: str(data or self.home() / "data"), "DJANGO_SETTINGS_MODULE": self.settings,
                "PYTHONPATH": str(self.home() / "site"), "PYTHONDONTWRITEBYTECODE": "1"}

    def manage(self, *args: str, data: Path | None = None, timeout: float = 900) -> str:
        proc = subprocess.run([str(self.py()), str(self.home() / "site" / "manage.py"), *args], env=self.env(data),
                              capture_output=True, text=True, check=False, timeout=timeout, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            raise RuntimeError(f"manage.py {args[0]} failed: {(proc.stderr or proc.stdout)[-1500:]}")
        return proc.stdout

    def sync_site(self) -> bool:
        """Copy the Django project from this package into the app folder; True when something changed."""
        src, dst = self.package / "site", self.home() / "site"
        changed = False
        for f in src.rglob("*.py"):
            target = dst / f.relative_to(src)
            if not target.is_file() or target.read_bytes() != f.read_bytes():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, target)
                changed = True
        return changed

    def make_blank(self, blank: Path, then: Callable[[Path], None] | None = None) -> None:
        """The blank database (``migrate``, ``createcachetable``) and media folder at ``blank``; ``then``
        adds what the app needs in it before it is put in place."""
        tmp = blank.with_name("blank.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        (tmp / "media").mkdir(parents=True)
        self.manage("migrate", "--noinput", data=tmp)
        self.manage("createcachetable", data=tmp)
        if then is not None:
            then(tmp)
        shutil.rmtree(blank, ignore_errors=True)
        os.replace(tmp, blank)

    def install(self, say: Callable[[str], object], *, seeding: str, snapshot0: Callable[[], Path],
                build_seed0: Callable[[], object], serve_seed0: Callable[[], object],
                blank_extra: Callable[[Path], None] | None = None) -> InstallReport:
        """Install the app (idempotent): virtualenv, pip installs, project, blank database, static files,
        seed 0 built (``build_seed0``, skipped when ``snapshot0()`` holds its database) and served; prints
        each step and its time."""
        t0, steps = time.perf_counter(), []
        h = self.home()
        h.mkdir(parents=True, exist_ok=True)

        def step(msg: str, fn: Callable[[], object]) -> None:
            say(msg)
            t = time.perf_counter()
            fn()
            steps.append(f"{msg.split(' ->')[0]} ({time.perf_counter() - t:.1f} s)")
            say(f"  done in {time.perf_counter() - t:.1f} s")

        if not self.py().is_file():
            step(f"python -m venv {h / 'venv'}",
                 lambda: subprocess.run([sys.executable, "-m", "venv", str(h / "venv")], check=True))

        def pip(requirements: tuple[str, ...]) -> Callable[[], object]:
            return lambda: subprocess.run([str(self.py()), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                                           *requirements], check=True)

        for p in self.pip:
            if not self.has(p.dist):
                step(f"pip install {p.shown} (into {self.what}'s venv)", pip(p.requirements))
        if self.sync_site():
            say(f"project files -> {h / 'site'}")
            steps.append("project written")
        blank = h / "snapshots" / "blank"
        if not (blank / "db.sqlite3").is_file():
            step(f"manage.py migrate + createcachetable (blank {self.what.split()[-1]} database)",
                 lambda: self.make_blank(blank, blank_extra))
        if not (h / "static" / self.static).is_dir():
            step("manage.py collectstatic", lambda: self.manage("collectstatic", "--noinput", data=blank))
        if not (snapshot0() / "db.sqlite3").is_file():
            step(seeding, build_seed0)
        if not (h / "data" / "db.sqlite3").is_file():
            step("serving folder data/ <- seed 0", serve_seed0)
        return InstallReport(self.name, self.installed_version() or "?", time.perf_counter() - t0,
                             tuple(steps) or ("already installed",))
