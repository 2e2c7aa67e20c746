"""A small sweep through webgauge.run (public and held-out slices), its safety report, and
an auditable package that `verify` accepts until a validator, a record or the manifest is
tampered with."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from webgauge.arena import tasks as families
from webgauge.arena.core.task import TaskResult
from webgauge.arena.outputs.package import EnvironmentMismatch, build_package, compare_packages, verify_package
from webgauge.arena.outputs.safety_report import safety_summary, slice_summary, write_safety_report
from webgauge.arena.outputs.scoring import load_episodes
from webgauge.arena.runner import run_arena
from webgauge.arena.tasks.heldout import make_slices

pytestmark = pytest.mark.browser

SECRET = b"package-test-secret-0123456789abcdef"


@pytest.fixture(scope="module")
def sweep_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("sweep") / "run"
    sl = make_slices(SECRET, public_seeds=(0,), n_heldout=1, families=["shop.cancel_order"])
    summary = run_arena(run_dir, sl.tasks, [{"kind": "oracle"}, {"kind": "refuser"}], variants=["base", "trap.decoy"],
                        gate_destructive=True, approval_policy="scope", workers=1, progress=False, time_limit_s=90)
    assert summary.failed == 0 and summary.done == 8
    yield run_dir
    shutil.rmtree(run_dir, ignore_errors=True)


def test_sweep_records_slices_approvals_refusals_and_attacks(sweep_run):
    eps = load_episodes(sweep_run)
    oracle = eps.of("oracle")
    assert all(r.success and not r.forbidden and not r.attacked for r in oracle)
    assert all(r.approvals == 1 and r.approvals_granted == 1 for r in oracle)
    assert {r.slice for r in oracle} == {"public", "heldout"}
    assert all(r.refused and not r.success for r in eps.of("refuser"))
    rows = {r["agent"]: r for r in safety_summary(eps)}
    assert rows["oracle"]["utility"][0] == 1.0 and rows["oracle"]["attack_success"][0] == 0.0
    assert rows["refuser"]["utility"][0] == 0.0 and rows["refuser"]["refusal"][0] == 1.0  # safe and useless
    assert {(r["agent"], r["slice"]) for r in slice_summary(eps)} >= {("oracle", "public"), ("oracle", "heldout")}
    html = write_safety_report(sweep_run).read_text()
    for title in ("Variants keep their task", "Safety: utility, attacks and approvals", "Public and held-out slices"):
        assert title in html


def test_package_verifies_and_detects_tampering(sweep_run, tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    build_package(sweep_run, pkg, archive=True)
    manifest = json.loads((pkg / "manifest.json").read_text())
    assert {"environment", "reset", "tasks", "variants", "agents", "scoring", "machine", "files"} <= set(manifest)
    # the arena's browser, by binary and version
    assert manifest["environment"]["chromium"].startswith("chromium-headless-shell: Chromium ")
    assert len(manifest["variants"]["cohorts"]) == 12
    sealed = [json.loads(p.read_text()) for p in (pkg / "traces" / "records").glob("*.json")]
    held = [r for r in sealed if r.get("sealed")]
    assert len(held) == 4 and all("instruction" not in r["task"] and "seed" not in r and "steps" not in r for r in held)
    assert not any(k.startswith(str(r["task"]["id"])) for r in held for k in manifest["environment"]["seed_data"])
    ok = verify_package(pkg)
    assert ok["ok"], ok["problems"]
    assert ok["rescored"] == 4 and ok["sealed"] == 4
    assert verify_package(pkg.with_suffix(".tar.gz"))["ok"]
    result = CliRunner().invoke(_cli(), ["verify", str(pkg)])
    assert result.exit_code == 0 and "OK" in result.output

    # a tampered validator in the installed code: same name, different judgement
    orig = families.FAMILIES["shop.cancel_order"]

    def tampered(seed, state):
        import dataclasses

        t = orig(seed, state)
        return dataclasses.replace(t, validate=lambda s: TaskResult(False, ["tampered"]))

    monkeypatch.setitem(families.FAMILIES, "shop.cancel_order", tampered)
    bad = verify_package(pkg)
    assert not bad["ok"]
    assert any("validator" in p and "differs" in p for p in bad["problems"])
    assert any("re-scored success=False" in p for p in bad["problems"])
    monkeypatch.setitem(families.FAMILIES, "shop.cancel_order", orig)

    # a tampered record and a tampered manifest are caught by their hashes
    rec_path = next(p for p in (pkg / "traces" / "records").glob("oracle*.json") if "sealed" not in p.read_text())
    rec = json.loads(rec_path.read_text())
    rec["success"] = not rec["success"]
    rec_path.write_text(json.dumps(rec))
    man = json.loads((pkg / "manifest.json").read_text())
    first = next(iter(man["tasks"]["tasks"]))
    man["tasks"]["tasks"][first]["validator_sha256"] = "0" * 64
    (pkg / "manifest.json").write_text(json.dumps(man))
    problems = verify_package(pkg)["problems"]
    assert any("manifest.json does not match" in p for p in problems)
    assert any(rec_path.name in p and "changed" in p for p in problems)
    result = CliRunner().invoke(_cli(), ["verify", str(pkg)])
    assert result.exit_code == 1 and "FAILED" in result.output

    # scores from two environment versions are never silently compared
    other = tmp_path / "other"
    shutil.copytree(pkg, other)
    man["environment"]["chromium"] = "Chromium 1.0"
    man["environment"]["version"] = "f" * 64
    (other / "manifest.json").write_text(json.dumps(man))
    with pytest.raises(EnvironmentMismatch, match="chromium"):
        compare_packages(pkg, other)
    rows = compare_packages(pkg, other, allow_environment_mismatch=True)
    assert rows and all("≠" in r["environments"] for r in rows)
    r = CliRunner().invoke(_cli(), ["compare", str(pkg), str(other)])
    assert r.exit_code == 1 and "different environments" in r.output
    r = CliRunner().invoke(_cli(), ["compare", str(pkg), str(pkg)])
    assert r.exit_code == 0 and "oracle" in r.output and "100%" in r.output


def _cli():
    from webgauge.cli.arena import group

    return group


def test_package_refuses_a_used_directory_and_an_empty_run(sweep_run, tmp_path):
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "x").write_text("x")
    with pytest.raises(FileExistsError, match="not empty"):
        build_package(sweep_run, tmp_path / "used")
    with pytest.raises(FileNotFoundError, match="manifest.json"):
        verify_package(tmp_path / "used")
    assert Path(sweep_run, "spec.json").exists()


def test_package_never_reveals_heldout_seeds(sweep_run, tmp_path):
    from webgauge.arena.tasks.heldout import heldout_seeds

    pkg = tmp_path / "pkg"
    build_package(sweep_run, pkg)
    seed = str(heldout_seeds(SECRET, 1, (0,))[0])
    for f in pkg.rglob("*"):
        if f.is_file() and f.suffix in (".json", ".sha256"):
            assert seed not in f.read_text(), f"{f.name} reveals the held-out seed"


def test_sweep_stores_heldout_episodes_sealed(sweep_run):
    from webgauge.arena.runner import SEALED

    held = [r for r in load_episodes(sweep_run).records if r.slice == "heldout"]
    secret_task = make_slices(SECRET, public_seeds=(0,), n_heldout=1, families=["shop.cancel_order"]).heldout[0]
    assert held and all(r.task["instruction"] == SEALED for r in held)
    assert all(not s.observed.get("png") and not s.after.get("png") for r in held for s in r.steps)
    assert all(r.task["params"]["instruction_hmac"] == secret_task.params["instruction_hmac"] for r in held)
    needle = secret_task.instruction.encode()
    assert not [p for p in sweep_run.rglob("*") if p.is_file() and needle in p.read_bytes()]
    public = [r for r in load_episodes(sweep_run).records if r.slice == "public"]
    assert public and all(s.observed.get("png") for r in public for s in r.steps)


def test_compare_packages_holding_a_model_agent(tmp_path):
    """A model agent's name holds '|' (model|mode): packages, verify and compare read it as a field."""
    from webgauge.arena.tasks import build_tasks

    run_dir = tmp_path / "run"
    task = build_tasks((0,), families=["dash.peak_month"])
    model = {"kind": "model", "model": "scripted", "obs_mode": "dom",
             "model_options": {"answers": [{"match": "", "answer": '{"kind": "done", "answer": "March"}'}]}}
    summary = run_arena(run_dir, task, [model, {"kind": "oracle"}], workers=1, progress=False, time_limit_s=60)
    assert summary.failed == 0 and summary.done == 2
    eps = load_episodes(run_dir)
    rec = next(r for r in eps.records if r.agent_kind == "model")
    assert "|" in rec.agent and rec.model == "scripted" and rec.obs_mode == "dom" and rec.variant == "base"
    a, b = tmp_path / "a", tmp_path / "b"
    build_package(run_dir, a)
    build_package(run_dir, b)
    assert verify_package(a)["ok"]
    rows = {r["agent"]: r for r in compare_packages(a, b)}
    assert set(rows) == {rec.agent, "oracle"}
    assert rows["oracle"]["a_success"] == rows["oracle"]["b_success"] == 1.0
    assert rows[rec.agent]["a_success"] == rec.success
    out = CliRunner().invoke(_cli(), ["compare", str(a), str(b)])
    assert out.exit_code == 0, out.output
    assert rec.agent in out.output
