"""Auditable benchmark packages: ``webgauge arena package`` and ``webgauge arena verify``.

A package is one directory (optionally also a ``.tar.gz``) holding the raw traces of a run
and a ``manifest.json`` that pins by sha256:

- ``environment``: the apps' code (sites, database, server), the seed data (state hash per
  seed), the fonts the apps render with, the Chromium build; its hash is the
  **environment version**;
- ``reset``: the reset procedure's code and text;
- ``tasks``: every task (validator source hash, forbidden-effect rules) and the code of the
  families, validators and effect rules;
- ``variants``: the viewport cohorts and every variant's definition; ``agents``: the agent
  prompt, the action schema and the agent specs;
- ``scoring``: the scoring code and the exclusions (episodes that failed to run, held-out
  content kept out, redactions);
- ``traces``: every episode record and screenshot/DOM blob (each file by hash) and the
  machine configuration.

Held-out episodes are sealed: their record is stored without instruction, seed, content
or screenshots (only metrics and the sha256 of the full record), so the package never
reveals the held-out slice. Redaction is optional and uses one documented transform
(:data:`REDACTION_TRANSFORM`); every redacted image is stored under its own hash and
listed with the hash of the original it replaces.

:func:`verify_package` re-hashes every file, compares the pinned code with the installed
code (a changed validator or environment is reported), and re-scores every public episode
from the seed state plus its recorded state change with the current validators and rules
(:func:`webgauge.arena.replay.rescore`).
:func:`compare_packages` refuses to compare scores across environment versions.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import platform
import re
import subprocess
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

from ..core.records import SEALED_FIELDS, EpisodeRecord, SealedEpisodeRecord
from ..replay import load_record, rescore, task_of

__all__ = ["FORMAT", "REDACTION_TRANSFORM", "EnvironmentMismatch", "build_package", "verify_package",
           "compare_packages", "environment_pins", "load_manifest"]

FORMAT = "webgauge-arena-package/2"
"""Version 2: records are typed (``arena.episode/1``, ``arena.sealed_episode/1``) and scores are rows."""
EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
REDACTION_TRANSFORM = ("redact-emails/1: every element of the step's DOM snapshot whose own text matches "
                       f"{EMAIL.pattern} is painted solid black (its box in device pixels, clipped to the "
                       "screenshot); the redacted PNG gets its own sha256")
RESET_PROCEDURE = ("POST /episodes/<id>/reset on the control API copies the seed template database over the "
                   "episode's in-memory SQLite database with the sqlite3 backup API (tables, login sessions, "
                   "flags, frozen clock, files and stand-in external services), then checks the state hash "
                   "against the seed's; the browser context is recreated for every episode.")

_ENV_MODULES = ("apps",)
_RESET_MODULES = ("apps/db", "apps/server", "apps/control")
_TASK_MODULES = ("tasks", "core/task", "core/effects", "core/diff", "core/script")
_SCORING_MODULES = ("outputs/scoring", "env/episode", "core/records", "outputs/safety_report", "runner",
                    "replay", "outputs/package")
_AGENT_MODULES = ("agents", "core/agent", "core/actions", "core/observation", "env", "variants")


class EnvironmentMismatch(RuntimeError):
    """Two packages (or a package and this installation) come from different environments."""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _json_sha(obj) -> str:
    return _sha(json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str).encode())


def _code(names: tuple[str, ...]) -> dict[str, str]:
    """sha256 of each source file of these arena modules or subpackages (paths relative to arena/)."""
    root = Path(__file__).parent.parent
    out = {}
    for n in names:
        p = root / n
        files = sorted(p.rglob("*.py")) if p.is_dir() else [root / f"{n}.py"]
        for f in files:
            out[f.relative_to(root).as_posix()] = _sha(f.read_bytes())
    return out


def _fonts() -> dict[str, str]:
    """The font files the apps' font stacks resolve to (fontconfig), by hash."""
    out = {}
    for family in ("DejaVu Sans", "Arial", "sans-serif"):
        try:
            path = subprocess.run(["fc-match", "-f", "%{file}", family], capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            path = ""
        out[family] = f"{Path(path).name}:{_sha(Path(path).read_bytes())}" if path and Path(
            path).is_file() else "missing"
    return out


def environment_pins(seeds: list[int]) -> dict:
    """The environment's pins for these seeds (held-out seeds are keyed by hash, never by value)."""
    from webgauge.browser.chromium import browser_label

    from ..apps.db import state_hash
    from ..content.pools import slice_of_seed
    from ..tasks import seed_state

    chromium = browser_label(headless_shell=True)  # the arena's browser (an error text is recorded, not hidden)
    seed_hashes = {(str(s) if slice_of_seed(s) == "public" else "heldout:" + _sha(str(s).encode())[:12]):
                   state_hash(seed_state(s))
                   for s in sorted(set(seeds))}
    env = {"code": _code(_ENV_MODULES), "seed_data": seed_hashes, "fonts": _fonts(), "chromium": chromium}
    env["version"] = _json_sha(env)
    return env


def _machine() -> dict:
    from importlib import metadata

    pkgs: dict[str, str | None] = {}
    for name in ("playwright", "numpy", "pillow", "webgauge"):
        try:
            pkgs[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pkgs[name] = None
    return {"platform": platform.platform(), "python": platform.python_version(), "machine": platform.machine(),
            "cpus": os.cpu_count(), "packages": pkgs}


def _redact(png: bytes, dom: bytes | None, scroll, dsf: float) -> tuple[bytes, int]:
    import gzip

    from PIL import Image, ImageDraw

    if not dom:
        return png, 0
    els = json.loads(gzip.decompress(dom))["elements"]
    img = Image.open(io.BytesIO(png)).convert("RGB")
    draw = ImageDraw.Draw(img)
    n = 0
    for e in els:
        if e.get("visible") and EMAIL.search(e.get("text") or "") and len(e.get("text") or "") < 200:
            x, y, w, h = e["box"]
            box = [(x - scroll[0]) * dsf, (y - scroll[1]) * dsf, (x - scroll[0] + w) * dsf, (y - scroll[1] + h) * dsf]
            if box[2] > 0 and box[3] > 0 and box[0] < img.width and box[1] < img.height:
                draw.rectangle(box, fill=(0, 0, 0))
                n += 1
    if not n:
        return png, 0
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue(), n


def _seal(rec: EpisodeRecord) -> SealedEpisodeRecord:
    """A held-out record without anything that reveals the slice."""
    return SealedEpisodeRecord(
        **{k: getattr(rec, k) for k in SEALED_FIELDS}, record_sha256=_json_sha(rec.to_json()),
        # the instruction's hash is an HMAC keyed by the secret (set when the slice was made), so a
        # guessed instruction cannot be confirmed; rule texts name no target rows or recipients
        task={"id": rec.task_id, "instruction_hmac": _instruction_hmac(rec),
              "validator_sha256": rec.task["validator_sha256"],
              "forbidden_effects": rec.task.get("forbidden_effects_public")
              or [_SEALED_RULE] * len(rec.task["forbidden_effects"])})


_SEALED_RULE = "a forbidden-effect rule (sealed)"


def _instruction_hmac(rec: EpisodeRecord) -> str:
    got = (rec.task.get("params") or {}).get("instruction_hmac")
    if not got:
        raise ValueError(f"held-out record {rec.item_id} has no instruction_hmac; build the held-out slice "
                         "with webgauge.arena.make_slices(secret) so its instructions are hashed with the secret")
    return got


def _scores(records: list) -> list[dict]:
    """Episodes, successes and forbidden effects per (agent, variant, slice), as rows of fields."""
    c: dict[tuple, Counter] = {}
    for r in records:
        n = c.setdefault((r.agent, r.variant, r.slice), Counter())
        n["episodes"] += 1
        n["success"] += int(r.success)
        n["forbidden"] += int(r.forbidden)
    return [{"agent": a, "variant": v, "slice": s, **dict(sorted(n.items()))} for (a, v, s), n in sorted(c.items())]


def build_package(run_dir: str | Path, out: str | Path, *, redact_emails: bool = False, archive: bool = False,
                  progress: bool = False) -> Path:
    """Package a run directory into ``out`` (a new directory); returns the manifest's path."""
    from tqdm import tqdm

    from ..agents.model import SYSTEM_PROMPT
    from ..core.actions import ACTION_SCHEMA
    from ..variants.catalogue import COHORTS, get_variant
    from .scoring import load_episodes

    run_dir, out = Path(run_dir), Path(out)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not empty; choose a new package directory")
    eps = load_episodes(run_dir)
    if not eps.records:
        raise ValueError(f"{run_dir} holds no arena episodes to package")
    stale = [r.item_id for r in eps.records if r.slice != "heldout"
             and task_of(r).describe()["validator_sha256"] != r.task["validator_sha256"]]
    if stale:
        raise ValueError(f"{len(stale)} episode(s) were judged by a validator that differs from the installed one "
                         f"(e.g. {stale[0]}); re-run them with this code (a new run directory) before packaging")
    (out / "traces").mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}

    def put(rel: str, data: bytes) -> None:
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        files[rel] = _sha(data)

    def blob(sha: str) -> bytes:
        return (run_dir / "blobs" / sha[:2] / sha).read_bytes()

    exclusions = [{"item_id": f["item_id"], "why": f"failed to run: {f['error']}"} for f in eps.failures]
    redactions, tasks = [], {}
    for rec in tqdm(sorted(eps.records, key=lambda r: r.item_id), desc="package", disable=not progress):
        name = re.sub(r"[^\w.@~-]", "_", rec.item_id)
        if rec.slice == "heldout":
            sealed = _seal(rec)
            tasks[rec.task_id] = sealed.task
            put(f"traces/records/{name}.json", json.dumps(sealed.to_json(), indent=1).encode())
            exclusions.append({"item_id": rec.item_id, "why": "held-out: instruction, seed, content and screenshots "
                                                              "sealed (record pinned by record_sha256)"})
            continue
        tasks[rec.task_id] = rec.task
        rec = EpisodeRecord.from_json(json.loads(json.dumps(rec.to_json())))  # a copy whose refs may be redacted
        for s in rec.steps:
            for side in (s.observed, s.after):
                ref = side
                for kind in ("png", "dom"):
                    sha = ref.get(kind)
                    if not sha or not (run_dir / "blobs" / sha[:2] / sha).exists():
                        continue
                    data = blob(sha)
                    if kind == "png" and redact_emails:
                        dom = blob(ref["dom"]) if ref.get("dom") else None
                        red, n = _redact(data, dom, ref.get("scroll", (0, 0)), ref.get("device_scale_factor", 1.0))
                        if n:
                            new = _sha(red)
                            redactions.append({"original_sha256": sha, "redacted_sha256": new, "boxes": n,
                                               "transform": REDACTION_TRANSFORM.split(":")[0]})
                            ref["png"], ref["redacted_from"], data, sha = new, sha, red, new
                    put(f"traces/blobs/{sha[:2]}/{sha}", data)
        put(f"traces/records/{name}.json", json.dumps(rec.to_json(), indent=1).encode())
    variants = sorted({r.variant for r in eps.records})
    spec_path = run_dir / "spec.json"
    if spec_path.exists():
        put("run/spec.json", spec_path.read_bytes())
    from ..runner import SEALED_SEED

    env = environment_pins([r.seed for r in eps.records if r.seed != SEALED_SEED])  # sealed records hold no seed
    manifest = {
        "format": FORMAT,
        "environment": env,
        "reset": {"procedure": RESET_PROCEDURE, "code": _code(_RESET_MODULES)},
        "tasks": {"tasks": tasks, "tasks_sha256": _json_sha(tasks), "code": _code(_TASK_MODULES)},
        "variants": {"cohorts": {k: v.viewport.to_dict() for k, v in COHORTS.items() if v.viewport is not None},
                     "definitions": {v: get_variant(v).describe() for v in variants}},
        "agents": {"system_prompt_sha256": _sha(SYSTEM_PROMPT.encode()),
                   "action_schema_sha256": _json_sha(ACTION_SCHEMA),
                   "specs": sorted({r.agent for r in eps.records}), "code": _code(_AGENT_MODULES)},
        "scoring": {"code": _code(_SCORING_MODULES), "exclusions": exclusions, "redaction": REDACTION_TRANSFORM
                    if redact_emails else None, "redactions": redactions, "scores": _scores(eps.records)},
        "machine": _machine(),
        "files": dict(sorted(files.items())),
    }
    put("manifest.json", json.dumps(manifest, sort_keys=True, indent=1).encode())
    files.pop("manifest.json")
    (out / "manifest.sha256").write_text(_sha((out / "manifest.json").read_bytes()) + "  manifest.json\n")
    if archive:
        with tarfile.open(out.with_suffix(".tar.gz"), "w:gz") as tar:
            tar.add(out, arcname=out.name)
    return out / "manifest.json"


def load_manifest(package: str | Path) -> tuple[dict, Path, tempfile.TemporaryDirectory | None]:
    """``(manifest, package dir, temp dir to clean up or None)``; accepts a directory or a .tar.gz."""
    p = Path(package)
    tmp = None
    if p.is_file() and p.name.endswith((".tar.gz", ".tgz")):
        tmp = tempfile.TemporaryDirectory(prefix="wg-pkg-")
        with tarfile.open(p) as tar:
            tar.extractall(tmp.name, filter="data")
        dirs = [d for d in Path(tmp.name).iterdir() if d.is_dir()]
        p = dirs[0] if len(dirs) == 1 else Path(tmp.name)
    if not (p / "manifest.json").is_file():
        raise FileNotFoundError(f"{package} has no manifest.json; pass a directory made by `webgauge arena package`")
    manifest = json.loads((p / "manifest.json").read_text())
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{package}: unknown package format {manifest.get('format')!r}; expected {FORMAT}")
    return manifest, p, tmp


def verify_package(package: str | Path, *, progress: bool = False) -> dict:
    """Check every hash and re-score every public episode; ``{"ok", "problems", "checked", ...}``."""
    from tqdm import tqdm

    manifest, root, tmp = load_manifest(package)
    problems: list[str] = []
    try:
        seal = root / "manifest.sha256"
        if seal.exists() and seal.read_text().split()[0] != _sha((root / "manifest.json").read_bytes()):
            problems.append("manifest.json does not match manifest.sha256 (the manifest was edited)")
        for rel, sha in manifest["files"].items():
            f = root / rel
            if not f.is_file():
                problems.append(f"missing file {rel}")
            elif _sha(f.read_bytes()) != sha:
                problems.append(f"file {rel} changed (sha256 differs from the manifest)")
        for f in (root / "traces" / "blobs").rglob("*") if (root / "traces" / "blobs").exists() else []:
            if f.is_file() and _sha(f.read_bytes()) != f.name:
                problems.append(f"blob {f.name[:12]}… does not hash to its name")
        pinned = {"environment code": (manifest["environment"]["code"], _code(_ENV_MODULES)),
                  "reset code": (manifest["reset"]["code"], _code(_RESET_MODULES)),
                  "task and validator code": (manifest["tasks"]["code"], _code(_TASK_MODULES)),
                  "scoring code": (manifest["scoring"]["code"], _code(_SCORING_MODULES)),
                  "agent and environment-step code": (manifest["agents"]["code"], _code(_AGENT_MODULES))}
        for what, (then, now) in pinned.items():
            for rel in sorted(set(then) | set(now)):
                if then.get(rel) != now.get(rel):
                    problems.append(f"{what} changed since packaging: {rel}")
        records = [load_record(json.loads(p.read_text())) for p in sorted((root / "traces" / "records").glob("*.json"))]
        rescored = sealed = 0
        for rec in tqdm(records, desc="re-score", disable=not progress):
            if isinstance(rec, SealedEpisodeRecord):
                sealed += 1
                continue
            pinned_task = manifest["tasks"]["tasks"].get(rec.task_id, {})
            try:
                got = rescore(rec)
            except Exception as exc:
                problems.append(f"{rec.item_id}: cannot re-score ({type(exc).__name__}: {str(exc)[:200]})")
                continue
            rescored += 1
            if got.validator_sha256 != pinned_task.get("validator_sha256"):
                problems.append(f"{rec.item_id}: the validator of {rec.task_id} differs from the packaged one")
            if got.success != rec.success or got.forbidden != rec.forbidden:
                problems.append(f"{rec.item_id}: re-scored success={got.success} forbidden={got.forbidden}, "
                                f"recorded success={rec.success} forbidden={rec.forbidden}")
        if _scores(records) != manifest["scoring"]["scores"]:
            problems.append("the packaged records do not add up to the manifest's scores")
        return {"ok": not problems, "problems": problems, "records": len(records), "rescored": rescored,
                "sealed": sealed, "files": len(manifest["files"]), "environment": manifest["environment"]["version"]}
    finally:
        if tmp is not None:
            tmp.cleanup()


def compare_packages(a: str | Path, b: str | Path, *, allow_environment_mismatch: bool = False) -> list[dict]:
    """Success per (agent, variant, slice) of two packages side by side.

    Raises :class:`EnvironmentMismatch` when their environment versions differ, unless
    ``allow_environment_mismatch``; then every row is labelled with both versions.
    """
    ma, _, ta = load_manifest(a)
    mb, _, tb = load_manifest(b)
    for t in (ta, tb):
        if t is not None:
            t.cleanup()
    va, vb = ma["environment"]["version"], mb["environment"]["version"]
    if va != vb and not allow_environment_mismatch:
        diff = [k for k in ("code", "seed_data", "fonts", "chromium") if ma["environment"][k] != mb["environment"][k]]
        raise EnvironmentMismatch(f"the packages come from different environments ({va[:12]} vs {vb[:12]}; "
                                  f"differs in {', '.join(diff)}); their scores are not comparable")
    key = lambda r: (r["agent"], r["variant"], r["slice"])  # noqa: E731
    sa = {key(r): r for r in ma["scoring"]["scores"]}
    sb = {key(r): r for r in mb["scoring"]["scores"]}
    rows = []
    for k in sorted(set(sa) | set(sb)):
        row = {"agent": k[0], "variant": k[1], "slice": k[2]}
        for tag, s in (("a", sa), ("b", sb)):
            got = s.get(k)
            row[f"{tag}_success"] = got["success"] / got["episodes"] if got and got["episodes"] else None
        if va != vb:
            row["environments"] = f"{va[:12]} ≠ {vb[:12]}"
        rows.append(row)
    return rows
