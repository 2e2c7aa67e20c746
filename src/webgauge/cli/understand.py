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
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Use at most this many real pages.")
@click.option("--all-layout-levels", is_flag=True,
              help="Perturb every page at all three layout levels (default: one seeded level per page).")
@click.option("--concurrency", type=click.IntRange(min=1), default=2, show_default=True,
              help="Pages built at once (the benchmark is the same for any value).")
def build(pages, synthetic, seed, out, tasks, crops, labels, fmt, force, limit, all_layout_levels,
          concurrency) -> None:
    from webgauge.pages import load_pages
    from webgauge.understand import build_benchmark

    refs = [r.path for r in load_pages(list(pages), limit=limit)] if pages else []
    manifest = build_benchmark(out, seed=seed, synthetic=synthetic, pages=refs, tasks=tasks or TASK_NAMES,
                               crops=int(crops), labels=labels, fmt=fmt, force=force,
                               all_layout_levels=all_layout_levels, concurrency=concurrency)
    click.echo(f"{sum(manifest['questions'].values())} questions in {out} (manifest sha256 {manifest['sha256']})")
    for task, n in manifest["questions"].items():
        click.echo(f"  {task:10s} {n}")
    if manifest["dropped"]:
        click.echo("dropped: " + ", ".join(f"{k}={v}" for k, v in manifest["dropped"].items()))
    if manifest["failures"]:
        click.echo(f"{len(manifest['failures'])} page(s) failed; see manifest.json 'failures'", err=True)


@group.command(help="Run models on a benchmark (resumable). Baselines: random-guess, dom-oracle.")
@click.argument("bench", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--model", "models", multiple=True, required=True,
              help="Model to run (repeatable): random-guess, dom-oracle, openai:NAME, scripted:FILE.jsonl, ...")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint for openai:* models.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Run directory (re-run to resume).")
@click.option("--seed", type=int, default=0, show_default=True, help="Run seed (sampling and the random-guess baseline).")
@click.option("--task", "tasks", multiple=True, type=click.Choice(TASK_NAMES), help="Only these tasks.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most this many questions per model.")
@click.option("--force", is_flag=True, help="Discard the run directory's results and start over.")
@executor_options
def run(bench, models, base_url, out, seed, tasks, limit, force, **kwargs) -> None:
    from webgauge.understand import run_benchmark

    entries = [{"name": m, "options": {"base_url": base_url}} if base_url and m.startswith("openai:") else m
               for m in models]
    summary = run_benchmark(bench, out, entries, seed=seed, tasks=tasks or None, limit=limit, force=force,
                            **executor_kwargs(kwargs))
    click.echo(f"{summary.ok} answered, {summary.failed} failed, {summary.skipped_resumed} resumed in {out}")


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
