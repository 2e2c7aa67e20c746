"""The one family registry, without any real app installed: its static tables are the families the
modules build, real-app families are listed as not installed with their install command, and every
way of choosing one (Python, the CLI, a gym id, a reset) fails with that one line and creates nothing.
Seeds: ``--seeds`` ranges and lists parse as stated, and a bad seed is refused before anything is made."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webgauge.arena import registry
from webgauge.arena.adapters.serve import family_table
from webgauge.arena.realapps import AppNotInstalled, get_spec
from webgauge.arena.registry import OWN_FAMILIES, REAL_FAMILIES, all_family_names, app_of
from webgauge.arena.tasks import build_tasks as build_own
from webgauge.cli.seeds import parse_seeds

INSTALL = "real app {app!r} is not installed; run: webgauge arena apps install {app}"


@pytest.fixture
def empty_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "apps"
    home.mkdir()
    monkeypatch.setenv("WEBGAUGE_APPS_HOME", str(home))
    return home


@contextlib.contextmanager
def _apps_home(path: str):
    """``WEBGAUGE_APPS_HOME`` set for a block (Hypothesis runs a test many times in one function scope)."""
    old = os.environ.get("WEBGAUGE_APPS_HOME")
    os.environ["WEBGAUGE_APPS_HOME"] = path
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("WEBGAUGE_APPS_HOME", None)
        else:
            os.environ["WEBGAUGE_APPS_HOME"] = old


NOWHERE = "/nonexistent-webgauge-apps-home"


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_the_static_tables_are_the_families_the_modules_build():
    assert sorted(OWN_FAMILIES) == sorted({t.family for t in build_own((0,))})
    for app, names in REAL_FAMILIES.items():
        built = [t.family for t in registry.real_tasks(app, (0,))]
        assert tuple(built) == names and all(n.startswith(f"{app}.") for n in names)
    assert sum(len(v) for v in REAL_FAMILIES.values()) == 45
    names = all_family_names()
    assert len(names) == len(set(names)) == 58 + 45
    # one prefix per app: no real-app family shares a prefix with an own family (wiki.* is the own wiki)
    own_prefixes = {n.split(".")[0] for n in OWN_FAMILIES}
    assert not own_prefixes & set(REAL_FAMILIES)


@given(st.text(max_size=40) | st.sampled_from(all_family_names()))
def test_app_of_names_a_real_app_exactly_for_real_families(name):
    app = app_of(name)
    real = {f: a for a, fams in REAL_FAMILIES.items() for f in fams}
    assert app == real.get(name)


def test_real_families_are_listed_as_not_installed_with_the_command(empty_home):
    rows = registry.family_status()
    real = [r for r in rows if r["app"] is not None]
    assert len(real) == 45 and not any(r["installed"] for r in real)
    assert all(r["install"] == f"webgauge arena apps install {r['app']}" for r in real)
    assert all(r["installed"] and r["install"] is None for r in rows if r["app"] is None)
    # no selection: the own families only, as no app is installed
    own, apps = registry.select(None)
    assert own is None and apps == {}


@given(st.lists(st.sampled_from([*all_family_names(), *REAL_FAMILIES]), max_size=6))
def test_choosing_a_missing_app_fails_with_its_install_command(names):
    wanted_apps = [app_of(n) or (n if n in REAL_FAMILIES else None) for n in names]
    missing = [a for a in wanted_apps if a is not None]
    with _apps_home(NOWHERE):
        try:
            own, real = registry.select(names)
        except AppNotInstalled as exc:
            assert missing and str(exc) == INSTALL.format(app=missing[0])
        else:
            assert not missing and own == list(dict.fromkeys(names)) and real == {}
    assert not Path(NOWHERE).exists()


def test_build_tasks_with_a_missing_app_raises_before_building(empty_home):
    with pytest.raises(AppNotInstalled) as exc:
        registry.build_tasks((0,), families=["mail.forward", "oscar.photo"])
    assert str(exc.value) == INSTALL.format(app="oscar")
    with pytest.raises(ValueError, match=r"no family matches \['no\.such'\].*roundup\.\* \(close"):
        registry.build_tasks((0,), families=["no.such"])
    assert _files(empty_home) == []


@pytest.mark.parametrize("app", sorted(REAL_FAMILIES))
def test_python_reset_of_a_missing_app_is_a_clear_error_and_leaves_nothing(app, empty_home):
    import importlib

    mod = importlib.import_module(f"webgauge.arena.realapps.{app}.app")
    with pytest.raises(AppNotInstalled) as exc:
        mod.reset(0)
    assert str(exc.value) == INSTALL.format(app=app)
    ctl = mod.app(_FakeServer()).control()  # the adapter's reset says the same, as a ResetError
    with pytest.raises(Exception, match="is not installed; run: webgauge arena apps install"):
        ctl.reset("x", 0)
    assert _files(empty_home) == []


class _FakeServer:
    """Only a base URL: the apps' ``app(server)`` reads nothing else (no server is started)."""

    base_url = "http://127.0.0.1:9/app"


@given(st.integers(min_value=-(2 ** 200), max_value=2 ** 200) | st.booleans() | st.floats(allow_nan=True)
       | st.text(max_size=5))
def test_a_reset_refuses_what_is_not_a_seed_before_anything_else(seed):
    from webgauge.arena.realapps.base import SEED_LIMIT
    from webgauge.arena.realapps.roundup import app as roundup

    is_seed = isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < SEED_LIMIT
    with _apps_home(NOWHERE):
        try:
            roundup.reset(seed)
        except ValueError as exc:
            assert not is_seed and "is not a seed" in str(exc)
        except AppNotInstalled:
            assert is_seed
        else:
            raise AssertionError(f"reset({seed!r}) of an app that is not installed returned")
    assert not Path(NOWHERE).exists()


def _cli(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "WEBGAUGE_APPS_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "webgauge.cli.main", "arena", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


def test_the_cli_lists_and_refuses_missing_apps_and_bad_seeds_creating_nothing(empty_home, tmp_path):
    listed = _cli("tasks", "--families", home=empty_home, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    for fams in REAL_FAMILIES.values():
        for f in fams:
            app = f.split(".")[0]
            assert re.search(rf"^{re.escape(f)}\s+{app}\s+not installed \(run: webgauge arena apps install {app}\)$",
                             listed.stdout, re.M), listed.stdout
    run_dir = tmp_path / "run"
    for argv in (["run", "--agent", "oracle", "--family", "roundup.close", "--seeds", "0-9", "--out", str(run_dir)],
                 ["sweep", "--family", "mediawiki.census", "--out", str(run_dir)],
                 ["safety", "--family", "oscar", "--out", str(run_dir)],
                 ["tasks", "--family", "roundup.close"]):
        proc = _cli(*argv, home=empty_home, cwd=tmp_path)
        app = argv[argv.index("--family") + 1].split(".")[0]
        assert proc.returncode == 1 and proc.stderr.strip() == f"Error: {INSTALL.format(app=app)}", proc.stderr
    for argv in (["run", "--family", "mail.forward", "--seeds", "-1", "--out", str(run_dir)],
                 ["tasks", "--seeds", "3-1"], ["tasks", "--seeds", "x"]):
        proc = _cli(*argv, home=empty_home, cwd=tmp_path)
        assert proc.returncode == 2 and "--seeds" in proc.stderr and "seed" in proc.stderr, proc.stderr
    for argv in (["apps", "reset", "roundup", "--", "-1"], ["apps", "install", "roundup", "--seeds", "-1"]):
        proc = _cli(*argv, home=empty_home, cwd=tmp_path)
        assert proc.returncode == 2 and "-1 is not in the range x>=0" in proc.stderr, proc.stderr
    proc = _cli("apps", "reset", "roundup", "0", home=empty_home, cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr.strip() == f"Error: {INSTALL.format(app='roundup')}"
    assert not run_dir.exists() and _files(empty_home) == [] and _files(tmp_path) == ["apps"]


def test_a_gym_id_of_a_missing_app_names_the_install_command(empty_home):
    import gymnasium

    import webgauge.arena  # noqa: F401  (registers the ids)

    for app, fams in REAL_FAMILIES.items():
        for f in fams:
            assert gymnasium.spec(f"webgauge/arena-{f}-v0").kwargs == {"family": f}
        with pytest.raises(AppNotInstalled) as exc:
            gymnasium.make(f"webgauge/arena-{fams[0]}-v0", obs_mode="dom")
        assert str(exc.value) == INSTALL.format(app=app)
    assert _files(empty_home) == []


def test_every_app_spec_declares_its_server_and_arena_app():
    for app in REAL_FAMILIES:
        spec = get_spec(app)
        assert spec.server is not None and spec.arena_app is not None
        assert spec.install_command == f"webgauge arena apps install {app}"


# ---- --seeds ---------------------------------------------------------------------------------------

@given(st.integers(0, 10 ** 6), st.integers(0, 300))
def test_a_range_is_every_seed_from_its_start_to_its_end(lo, n):
    assert parse_seeds(f"{lo}-{lo + n}") == tuple(range(lo, lo + n + 1))
    assert parse_seeds(f" {lo} - {lo + n} ") == tuple(range(lo, lo + n + 1))


@given(st.lists(st.integers(0, 2 ** 64 - 1), min_size=1, max_size=8))
def test_a_list_is_its_seeds_in_order(seeds):
    assert parse_seeds(",".join(map(str, seeds))) == tuple(seeds)


@given(st.text(max_size=12))
def test_anything_else_is_refused(text):
    parts = [p.strip() for p in text.split(",")]
    ok = all(re.fullmatch(r"[0-9]+(\s*-\s*[0-9]+)?", p) for p in parts)
    try:
        got = parse_seeds(text)
    except ValueError as exc:
        assert "seed" in str(exc) or "range" in str(exc)
        return
    assert ok and all(0 <= s < 2 ** 64 for s in got)


def test_seed_corner_cases():
    assert parse_seeds("0-9") == tuple(range(10))
    assert parse_seeds("2-4,8") == (2, 3, 4, 8)
    for bad in ("-1", "3-1", "1.5", "0-", "", str(2 ** 64), "٣"):
        with pytest.raises(ValueError):
            parse_seeds(bad)


def test_the_browsergym_package_ships_the_current_family_list():
    """integrations/browsergym registers the families of its families.json: it must be webgauge's
    whole list (own and real-app families), checked here so that no family is added without it."""
    shipped_at = Path(__file__).resolve().parents[2] / "integrations" / "browsergym" / "src" / "browsergym" / \
        "webgauge" / "families.json"
    shipped = json.loads(shipped_at.read_text())
    assert shipped == family_table(), (
        "integrations/browsergym's families.json is stale: run `webgauge arena serve "
        "--write-families integrations/browsergym/src/browsergym/webgauge/families.json`")
    assert [r["family"] for r in shipped] == sorted(all_family_names())
