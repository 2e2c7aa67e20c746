"""``webgauge understand``: build, run and score the web-understanding benchmark."""

from __future__ import annotations

from pathlib import Path

import click

from webgauge.run.options import executor_kwargs, executor_options

TASK_NAMES = ("position", "ui_group", "form_fill", "hint_text", "color", "text", "layout", "safety")


@click.group(name="understand", help="Page-understanding benchmark (WebRSSBench-style): build, run, report.")
def group() -> None:
    pass


@group.command(help="Build a benchmark from synthetic pages and real pages (files or folders).")
@click.option("--pages", "pages", multiple=True, type=click.Path(exists=True, path_type=Path),
              help="Real HTML file or folder of pages (repeatable), e.g. ../shared/data/design2code/pages/.")
@click.option("--synthetic", type=click.IntRange(min=0), default=8, show_default=True,
              help="How many seeded synthetic pages to generate (half with irreversible actions).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed: the same seed gives a byte-identical benchmark, a new seed a fresh private slice.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Benchmark folder to write.")
@click.option("--task", "tasks", multiple=True, type=click.Choice(TASK_NAMES),
              help="Only these tasks (repeatable) [default: all eight].")
@click.option("--crops", type=click.Choice(["4", "2"]), default="4", show_default=True,
              help="Element crops per position question (2 = the two-crop diagnostic, same prompt).")
@click.option("--labels", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="JSONL of human labels that override automatic ones.")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "parquet"]), default="jsonl", show_default=True,
              help="File format of data/<task>.*")
@click.option("--force", is_flag=True, help="Overwrite a non-empty --out folder.")
@click.option("--resume", is_flag=True,
              help="Finish a build of --out that was interrupted (killed): pages already built are kept.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Use at most this many real pages.")
@click.option("--all-layout-levels", is_flag=True,
              help="Perturb every page at all three layout levels (default: one seeded level per page).")
@click.option("--concurrency", type=click.IntRange(min=1), default=2, show_default=True,
              help="Pages built at once (the benchmark is the same for any value).")
def build(pages, synthetic, seed, out, tasks, crops, labels, fmt, force, resume, limit, all_layout_levels,
          concurrency) -> None:
    from collections import Counter

    from webgauge.pages import load_pages
    from webgauge.understand import build_benchmark

    try:
        refs = [r.path for r in load_pages(list(pages), limit=limit)] if pages else []
    except (FileNotFoundError, ValueError) as exc:  # an empty folder, a file that is no page
        raise click.ClickException(f"{exc}; pass --pages a folder of .html pages or an .html file") from None
    stats: Counter = Counter()
    try:
        manifest = build_benchmark(out, seed=seed, synthetic=synthetic, pages=refs, tasks=tasks or TASK_NAMES,
                                   crops=int(crops), labels=labels, fmt=fmt, force=force,
                                   all_layout_levels=all_layout_levels, concurrency=concurrency, resume=resume,
                                   stats=stats)
    except (FileExistsError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    if resume:
        click.echo(f"resumed: {stats['pages resumed']} page(s) read back, {stats['pages built']} built")
    click.echo(f"{sum(manifest['questions'].values())} questions in {out} (manifest sha256 {manifest['sha256']})")
    for task, n in manifest["questions"].items():
        click.echo(f"  {task:10s} {n}")
    if manifest["dropped"]:
        click.echo("dropped: " + ", ".join(f"{k}={v}" for k, v in manifest["dropped"].items()))
    for task, why in manifest.get("not_measurable", {}).items():
        click.echo(f"not measurable on this corpus: {task} ({why})", err=True)
    if manifest["failures"]:
        click.echo(f"{len(manifest['failures'])} page(s) failed; see manifest.json 'failures'", err=True)
    if not sum(manifest["questions"].values()):
        reasons = sorted({f["reason"] for f in manifest["failures"]})
        raise click.ClickException(
            f"the build asked no question ({len(manifest['failures'])} page(s) failed"
            + (f": {', '.join(reasons)}" if reasons else "") + "); see manifest.json 'failures' and 'dropped'")


@group.command(help="Run models on a benchmark (resumable). Baselines: random-guess, label-oracle, dom-heuristic.")
@click.argument("bench", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--model", "models", multiple=True, required=True,
              help="Model to run (repeatable): random-guess, label-oracle, dom-heuristic, openai:NAME, "
                   "scripted:FILE.jsonl, ...")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint for openai:* models.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Run directory (re-run to resume).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Run seed (sampling and the random-guess baseline).")
@click.option("--task", "tasks", multiple=True, type=click.Choice(TASK_NAMES), help="Only these tasks.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most this many questions per model.")
@click.option("--split", type=click.Choice(["all", "train", "validation", "test"]), default="all", show_default=True,
              help="Only the questions of this split's pages (e.g. test, to compare a model with its fine-tune).")
@click.option("--force", is_flag=True, help="Discard the run directory's results and start over.")
@executor_options
def run(bench, models, base_url, out, seed, tasks, limit, split, force, **kwargs) -> None:
    from webgauge.understand import run_benchmark

    entries = [{"name": m, "options": {"base_url": base_url}} if base_url and m.startswith("openai:") else m
               for m in models]
    summary = run_benchmark(bench, out, entries, seed=seed, tasks=tasks or None, limit=limit, split=split,
                            force=force, **executor_kwargs(kwargs))
    click.echo(f"{summary.ok} answered, {summary.failed} failed, {summary.skipped_resumed} resumed in {out}")
    if summary.failed:
        raise click.ClickException(f"{summary.failed} item(s) failed; their errors are in {out} (re-run with "
                                   "--retry-failed to try them again)")


@group.command(help="Score a run and write report/understand.html, understand.md and items.html.")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Report folder [default: RUN/report].")
@click.option("--png", is_flag=True, help="Also render the HTML report to understand.png.")
def report(run_dir, out, png) -> None:
    from webgauge.understand import write_report

    path = write_report(run_dir, out)
    click.echo(f"report: {path}")
    if png:
        import asyncio

        from webgauge.report import render_html_to_png

        shot = asyncio.run(render_html_to_png(path, path.with_suffix(".png")))
        click.echo(f"png: {shot}")


@group.command(help="Review automatic labels by hand on a local page (127.0.0.1); decisions go to a labels "
                    "JSONL that `build --labels` reads.")
@click.argument("bench", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--labels", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Labels JSONL to append decisions to (created if missing); rebuild with --labels to apply.")
@click.option("--port", type=click.IntRange(min=1, max=65535), default=8765, show_default=True,
              help="Port on 127.0.0.1 to serve the review page on.")
@click.option("--annotator", default="review", show_default=True, help="Name stored with each decision.")
def review(bench, labels, port, annotator) -> None:
    from webgauge.understand.review import serve_review

    serve_review(bench, labels, port=port, annotator=annotator)


@group.command(help="LoRA-fine-tune a local vision-language model on the benchmark's SFT splits (WebRSSBench §5.2). "
                    "Defaults are the paper's (Appendix D). Re-run to resume; Ctrl-C saves a checkpoint.")
@click.argument("bench", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--base", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="Local model folder (what hf-local:PATH loads), e.g. a downloaded Qwen2.5-VL-7B-Instruct.")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Folder for the adapters: OUT/<task>/ (load with hf-local:BASE?adapter=OUT/<task>).")
@click.option("--task", "tasks", multiple=True, type=click.Choice(TASK_NAMES),
              help="Tasks to train on (repeatable) [default: position, ui_group, color, as in the paper].")
@click.option("--combined", is_flag=True, help="One adapter on all the tasks (OUT/a+b+c) instead of one per task.")
@click.option("--rank", type=click.IntRange(min=1), default=None, help="LoRA rank [paper: 16].")
@click.option("--alpha", type=float, default=None, help="LoRA alpha [paper: 32].")
@click.option("--dropout", type=click.FloatRange(0, 1), default=None, help="LoRA dropout [paper: 0.05].")
@click.option("--target-module", "target_modules", multiple=True,
              help="LoRA target module name (repeatable) [paper: all projection layers q/k/v/o/gate/up/down_proj...].")
@click.option("--lr", type=float, default=None, help="Learning rate [paper: 2e-4].")
@click.option("--epochs", type=click.IntRange(min=1), default=None, help="Epochs [paper: 2].")
@click.option("--batch-size", type=click.IntRange(min=1), default=None, help="Samples per micro-batch [paper: 1].")
@click.option("--grad-accum", type=click.IntRange(min=1), default=None, help="Gradient accumulation [paper: 8].")
@click.option("--warmup-ratio", type=click.FloatRange(0, 1), default=None, help="Warm-up ratio [paper: 0.03].")
@click.option("--max-steps", type=click.IntRange(min=1), default=None, help="Stop after this many optimizer steps.")
@click.option("--gradient-checkpointing", is_flag=True, default=None, help="Trade compute for memory (as the paper).")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="At most this many training samples per adapter.")
@click.option("--device", default="auto", show_default=True, help="auto, cuda, cuda:N, mps or cpu.")
@click.option("--dtype", type=click.Choice(["auto", "float32", "bfloat16", "float16"]), default="auto",
              show_default=True, help="Weights dtype (auto: bfloat16 on CUDA, float16 on MPS, float32 on CPU).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed (LoRA init, data order, dropout).")
@click.option("--save-every", type=click.IntRange(min=1), default=50, show_default=True,
              help="Write a resumable checkpoint every this many optimizer steps.")
@click.option("--force", is_flag=True, help="Discard OUT/<task> and start over.")
def finetune(bench, base, out, tasks, combined, rank, alpha, dropout, target_modules, lr, epochs, batch_size,
             grad_accum, warmup_ratio, max_steps, gradient_checkpointing, limit, device, dtype, seed, save_every,
             force) -> None:
    from webgauge.understand.finetune import PAPER_TASKS, FinetuneInterrupted
    from webgauge.understand.finetune import finetune as run_finetune

    hyper = dict(rank=rank, alpha=alpha, dropout=dropout, target_modules=list(target_modules) or None, lr=lr,
                 epochs=epochs, batch_size=batch_size, grad_accum=grad_accum, warmup_ratio=warmup_ratio,
                 max_steps=max_steps, gradient_checkpointing=gradient_checkpointing)
    try:
        results = run_finetune(bench, base, out, tasks=tasks or PAPER_TASKS, combined=combined, limit=limit,
                               device=device, dtype=dtype, seed=seed, save_every=save_every, force=force, **hyper)
    except FinetuneInterrupted as e:
        click.echo(str(e), err=True)
        raise SystemExit(130) from None
    for r in results:
        s = r.spec
        click.echo(f"{r.name}: {s['steps_done']} steps on {s['examples']} samples, loss {s['first_loss']:.4f} -> "
                   f"{s['final_loss']:.4f}; adapter {r.out} (use --model 'hf-local:{base}?adapter={r.out}')")


@group.command(name="export", help="Write a benchmark as another harness's task folder (lmms-eval: YAML, utils.py, "
                                   "local data), scored by webgauge's scorers.")
@click.argument("bench", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["lmms-eval"]), required=True, help="Harness to export for.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Task folder to write.")
@click.option("--force", is_flag=True, help="Overwrite a non-empty --out folder.")
def export(bench, fmt, out, force) -> None:
    from webgauge.understand.adapters.lmms_eval import export_lmms_eval

    try:
        info = export_lmms_eval(bench, out, force=force)
    except (FileExistsError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"lmms-eval task group {info['group']} in {info['out']}: "
               + ", ".join(f"{t} ({n})" for t, n in info["tasks"].items()))
    click.echo(f"run: lmms-eval --model MODEL --model_args ... --include_path {info['out']} --tasks {info['group']}")


@group.command(name="import-inspect", help="Turn Inspect logs of webgauge/understand (one model each) into a run "
                                           "directory that `understand report` scores. Needs inspect_ai.")
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Run directory to write.")
@click.option("--name", "names", multiple=True,
              help="Model name per log, in order [default: Inspect's model name].")
@click.option("--bench", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Benchmark folder [default: the one the logs name].")
@click.option("--force", is_flag=True, help="Discard the run directory's results and start over.")
def import_inspect(logs, out, names, bench, force) -> None:
    from webgauge.understand.adapters.inspect_import import InspectMissing, import_inspect_logs

    try:
        summary = import_inspect_logs(list(logs), out, names=list(names) or None, bench=bench, force=force, workers=1)
    except InspectMissing as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{summary.ok} answers imported, {summary.failed} failed samples, into {out}; "
               f"next: webgauge understand report {out}")
