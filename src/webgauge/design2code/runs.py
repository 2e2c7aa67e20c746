"""Generation and scoring runs through ``webgauge.run`` (resumable, failures per item).

* :func:`generate_run` – one work item per (strategy, instance); the handler
  :func:`webgauge.design2code.generate.generate_item` stores the generated pages as blobs.
* :func:`score_run` – one work item per finished generation; the handler
  :func:`webgauge.design2code.score.score_item` stores the scores (and screenshots).
* :func:`collect_scores` – the score records of a scoring run, as plain dicts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from webgauge.design2code.dataset import load_instances
from webgauge.design2code.prompts import PROMPTS, STRATEGIES

__all__ = ["generate_run", "score_run", "collect_scores", "SAFE_MODEL_OPTS"]

SAFE_MODEL_OPTS = ("base_url", "max_tokens", "timeout")


def generate_run(instances_dir: str | Path, out: str | Path, *, model: str = "baseline",
                 strategies: Sequence[str] = ("zs",), model_opts: dict | None = None,
                 limit: int | None = None, progress: bool = True, **executor: Any):
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
    instances = load_instances(instances_dir, limit)
    spec = RunSpec(suite="design2code", models=[model], prompts=dict(PROMPTS),
                   options={"stage": "generate", "strategies": list(strategies),
                            "instances": str(Path(instances_dir).resolve()), "model_opts": opts})
    items = [WorkItem(id=f"{s}/{inst.id}", kind=f"generate:{s}",
                      payload={"instance_dir": str(inst.root.resolve()), "strategy": s, "model": model,
                               "model_opts": opts})
             for s in strategies for inst in instances]
    return run_items(out, spec, items, handler="webgauge.design2code.generate:generate_item",
                     progress=progress, **executor)


def score_run(gen_run: str | Path, out: str | Path | None = None, *, clip_weights: str | None = None,
              lpips_weights: str | None = None, functional: bool = True, progress: bool = True,
              **executor: Any):
    """Score every finished generation of ``gen_run`` into run ``out`` (default ``<gen_run>/score``)."""
    from webgauge.run import RunSpec, RunStore, WorkItem, run_items

    gen_run = Path(gen_run).resolve()
    out = Path(out) if out is not None else gen_run / "score"
    store = RunStore(gen_run)
    rows = store.records(status="ok")
    if not rows:
        raise ValueError(f"{gen_run} has no finished generations to score; run `webgauge design2code generate` first")
    spec = RunSpec(suite="design2code", models=sorted({r.record["model"] for r in rows}),
                   options={"stage": "score", "gen_run": str(gen_run), "clip_weights": clip_weights,
                            "lpips_weights": lpips_weights, "functional": functional})
    items = [WorkItem(id=r.item_id, kind=f"score:{r.record['strategy']}",
                      payload={"instance_dir": r.record["instance_dir"], "gen_run": str(gen_run),
                               "gen_item": r.item_id, "clip_weights": clip_weights,
                               "lpips_weights": lpips_weights, "functional": functional,
                               "gen_payload_blobs": sorted(r.blobs.values())})
             for r in rows]
    return run_items(out, spec, items, handler="webgauge.design2code.score:score_item", progress=progress,
                     **executor), out


def collect_scores(score_dir: str | Path) -> tuple[list[dict], list[dict]]:
    """``(records, failures)`` of a scoring run; failures carry the item id and error."""
    from webgauge.run import RunStore

    store = RunStore(score_dir)
    records, failures = [], []
    for row in store.records():
        if row.ok:
            rec = dict(row.record)
            rec["item_id"] = row.item_id
            rec["screenshots"] = {k.split(":", 1)[1]: v for k, v in row.blobs.items() if k.startswith("screenshot:")}
            records.append(rec)
        else:
            failures.append({"item_id": row.item_id, "error": (row.error or {}).get("message")})
    return records, failures
