"""Generation and scoring runs through ``webgauge.run`` (resumable, failures per item).

* :func:`generate_run` – one work item per (strategy, instance); the handler
  :func:`webgauge.design2code.generate.generate_item` stores the generated pages as blobs.
* :func:`score_run` – one work item per finished generation; the handler
  :func:`webgauge.design2code.score.score_item` stores the scores (and screenshots).
* :func:`import_generations` – a generation run from pages made elsewhere (one ``<id>.html``
  per instance, MRWeb's ``results/<method>/`` layout), without a model.
* :func:`collect_scores` – the typed :class:`~webgauge.design2code.records.SiteScore`
  records of a scoring run, and its failures.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from webgauge.design2code.dataset import load_instances
from webgauge.design2code.prompts import PROMPT_SETS, STRATEGIES

__all__ = ["generate_run", "score_run", "import_generations", "collect_scores", "SAFE_MODEL_OPTS"]

SAFE_MODEL_OPTS = ("base_url", "max_tokens", "timeout")


def generate_run(instances_dir: str | Path, out: str | Path, *, model: str = "baseline",
                 strategies: Sequence[str] = ("zs",), model_opts: dict | None = None,
                 limit: int | None = None, progress: bool = True, prompts: str = "webgauge", seed: int = 0,
                 **executor: Any):
    """Generate every instance under ``instances_dir`` with every strategy into run ``out``.

    ``model_opts`` go to ``get_model`` (only ``base_url``, ``max_tokens`` and ``timeout``;
    keys come from the provider's environment variable and are never stored in a run).
    """
    from webgauge.run import RunSpec, WorkItem, run_items

    bad = [s for s in strategies if s not in STRATEGIES]
    if bad:
        raise ValueError(f"unknown strategies {bad}; choose from {STRATEGIES}")
    opts = dict(model_opts or {})
    unsafe = sorted(set(opts) - set(SAFE_MODEL_OPTS))
    if unsafe:
        raise ValueError(f"model options {unsafe} are not accepted here (allowed: {SAFE_MODEL_OPTS}); "
                         "pass API keys through the provider's environment variable")
    if prompts not in PROMPT_SETS:
        raise ValueError(f"unknown prompt set {prompts!r}; choose one of {tuple(PROMPT_SETS)}")
    instances = load_instances(instances_dir, limit)
    spec = RunSpec(suite="design2code", models=[model], prompts=dict(PROMPT_SETS[prompts]), seeds=[seed],
                   options={"stage": "generate", "strategies": list(strategies), "prompt_set": prompts,
                            "instances": str(Path(instances_dir).resolve()), "model_opts": opts})
    items = [WorkItem(id=f"{s}/{inst.id}", kind=f"generate:{s}",
                      payload={"instance_dir": str(inst.root.resolve()), "strategy": s, "model": model,
                               "model_opts": opts, "prompts": prompts, "seed": seed})
             for s in strategies for inst in instances]
    return run_items(out, spec, items, handler="webgauge.design2code.generate:generate_item",
                     progress=progress, **executor)


def score_run(gen_run: str | Path, out: str | Path | None = None, *, clip_weights: str | None = None,
              lpips_weights: str | None = None, functional: bool = True, progress: bool = True,
              url_match: str = "webgauge", metrics: tuple[str, ...] = ("mrweb",), **executor: Any):
    """Score every finished generation of ``gen_run`` into run ``out`` (default ``<gen_run>/score``).

    ``url_match`` is how resource URLs are compared for RER and matching (see
    :mod:`webgauge.design2code.urls`): ``webgauge`` (default), ``mrweb`` (MRWeb), ``exact``, or ours
    plus ``unescape`` / ``nocache`` (comma-separated, e.g. ``webgauge,unescape,nocache``).
    ``metrics``: the metric families (``webgauge.design2code.score.METRIC_FAMILIES``; ``d2c`` adds
    Design2Code's visual score beside MRWeb's).
    """
    from webgauge.design2code.records import GenerationRecord
    from webgauge.design2code.score import check_families
    from webgauge.design2code.urls import parse_url_match
    from webgauge.run import RunSpec, RunStore, WorkItem, run_items

    parse_url_match(url_match)
    families = list(check_families(metrics))
    gen_run = Path(gen_run).resolve()
    out = Path(out) if out is not None else gen_run / "score"
    store = RunStore(gen_run)
    rows = store.records(status="ok")
    if not rows:
        raise ValueError(f"{gen_run} has no finished generations to score; run `webgauge design2code generate` first")
    gens = {r.item_id: GenerationRecord.from_json(r.record or {}) for r in rows}
    spec = RunSpec(suite="design2code", models=sorted({g.model for g in gens.values()}),
                   options={"stage": "score", "gen_run": str(gen_run), "clip_weights": clip_weights,
                            "lpips_weights": lpips_weights, "functional": functional, "url_match": url_match,
                            "metrics": families})
    items = [WorkItem(id=r.item_id, kind=f"score:{gens[r.item_id].strategy}",
                      payload={"instance_dir": gens[r.item_id].instance_dir, "gen_run": str(gen_run),
                               "gen_item": r.item_id, "clip_weights": clip_weights,
                               "lpips_weights": lpips_weights, "functional": functional, "url_match": url_match,
                               "metrics": families, "gen_payload_blobs": sorted(r.blobs.values())})
             for r in rows]
    return run_items(out, spec, items, handler="webgauge.design2code.score:score_item", progress=progress,
                     **executor), out


def import_generations(folder: str | Path, instances_dir: str | Path, out: str | Path, *,
                       method: str | None = None, progress: bool = True, **executor: Any):
    """A generation run from pages generated elsewhere, without running a model.

    ``folder`` holds one ``<id>.html`` per single-page instance (MRWeb's ``results/<method>/``
    layout) or a ``<id>/`` folder with one file per page of a multi-page instance. ``<id>``
    is the instance id (or, for webgauge's real instances, the id without ``real-``).
    ``method`` (default: the folder's name) is recorded as the model. Instances with no
    generated page are left out and listed in the returned ``missing``.
    """
    from webgauge.run import RunSpec, WorkItem, run_items

    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} is not a folder of generated pages (<id>.html per instance)")
    method = method or folder.resolve().name
    items, missing = [], []
    for inst in load_instances(instances_dir):
        names = [inst.id] + ([inst.id[len("real-"):]] if inst.id.startswith("real-") else [])
        files: dict[str, str] = {}
        for n in names:
            if (folder / n).is_dir():
                files = {p: str((folder / n / p).resolve()) for p in inst.page_names if (folder / n / p).is_file()}
            elif (folder / f"{n}.html").is_file() and len(inst.pages) == 1:
                files = {inst.page_names[0]: str((folder / f"{n}.html").resolve())}
            if files:
                break
        if not files:
            missing.append(inst.id)
            continue
        items.append(WorkItem(id=f"outside/{inst.id}", kind="generate:outside",
                              payload={"instance_dir": str(inst.root.resolve()), "method": method, "files": files}))
    if not items:
        raise ValueError(f"{folder} holds no generated page for any instance of {instances_dir} "
                         f"(expected <id>.html, e.g. {missing[0] if missing else 'ID'}.html)")
    spec = RunSpec(suite="design2code", models=[method],
                   options={"stage": "generate", "strategies": ["outside"], "prompt_set": "outside",
                            "outside": str(folder.resolve()), "instances": str(Path(instances_dir).resolve())})
    summary = run_items(out, spec, items, handler="webgauge.design2code.generate:import_generation_item",
                        progress=progress, **executor)
    return summary, missing


def collect_scores(score_dir: str | Path) -> tuple[list, list[dict]]:
    """``(records, failures)`` of a scoring run: :class:`SiteScore` records (each with
    ``item_id`` and ``screenshots`` attributes: page -> blob sha) and failed items."""
    from webgauge.design2code.records import SiteScore
    from webgauge.run import RunStore

    store = RunStore(score_dir)
    records, failures = [], []
    typed = {rec.gen_item: rec for rec in store.typed(SiteScore)}  # score items keep the generation item's id
    for row in store.records():
        if row.ok:
            rec = typed[row.item_id]
            # run-time attributes the report reads beside the stored record (not fields of it)
            rec.item_id = row.item_id  # type: ignore[attr-defined]
            shots = {k.split(":", 1)[1]: v for k, v in row.blobs.items() if k.startswith("screenshot:")}
            rec.screenshots = shots  # type: ignore[attr-defined]
            records.append(rec)
        else:
            failures.append({"item_id": row.item_id, "error": (row.error or {}).get("message")})
    return records, failures
