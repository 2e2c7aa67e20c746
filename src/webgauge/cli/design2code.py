"""``webgauge design2code``: extract, build, generate, score, iqa, tool (each a library call)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import click

from webgauge.run.options import executor_kwargs, executor_options

__all__ = ["group"]


@click.group(name="design2code")
def group() -> None:
    """Multi-page resource-aware generation (MRWeb): resource lists, generation, metrics, IQA, tool."""


@group.command()
@click.argument("source")
@click.option("--depth", type=click.IntRange(min=0), default=0, show_default=True,
              help="Follow internal links this many clicks deep (0: only SOURCE).")
@click.option("--out", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the JSON here (default: print to stdout).")
@click.option("--width", type=int, default=1280, show_default=True, help="Viewport width in CSS px.")
@click.option("--height", type=int, default=800, show_default=True, help="Viewport height in CSS px.")
def extract(source: str, depth: int, out: Path | None, width: int, height: int) -> None:
    """Extract the resource list of SOURCE (an HTML file, a folder's index.html, or a loopback URL)."""
    from webgauge.browser import Browser, RenderProfile
    from webgauge.design2code.extract import extract_site
    from webgauge.pages import StaticServer

    async def go() -> dict:
        profile = RenderProfile(width=width, height=height)
        async with Browser.launch() as browser:
            if source.startswith(("http://", "https://")):
                site = await extract_site(browser, source, depth=depth, profile=profile)
            else:
                p = Path(source)
                if p.is_dir():
                    p = p / "index.html"
                if not p.is_file():
                    raise click.BadParameter(f"{source} is not an HTML file, a folder with index.html, or a URL",
                                             param_hint="SOURCE")
                with StaticServer(root=p.parent) as srv:
                    site = await extract_site(browser, srv.url(p.name), depth=depth, profile=profile)
        return {"version": "webgauge.design2code.site/1", "pages": {k: v.to_dict() for k, v in site.items()}}

    doc = asyncio.run(go())
    text = json.dumps(doc, indent=2)
    if out:
        out.write_text(text)
        click.echo(f"wrote {out} ({sum(len(p['resources']) for p in doc['pages'].values())} resources, "
                   f"{len(doc['pages'])} pages)")
    else:
        click.echo(text)


@group.command()
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write instances into.")
@click.option("--synthetic", type=click.IntRange(min=0), default=3, show_default=True,
              help="Number of seeded synthetic multi-page sites.")
@click.option("--seed", type=int, default=0, show_default=True, help="First synthetic seed.")
@click.option("--pages-per-site", type=click.IntRange(min=1, max=8), default=3, show_default=True,
              help="Pages per synthetic site (the last has the contact form).")
@click.option("--real", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              help="Folder of real HTML pages (e.g. ../shared/data/design2code/pages).")
@click.option("--real-limit", type=click.IntRange(min=1), default=None, help="Use at most this many real pages.")
def build(out: Path, synthetic: int, seed: int, pages_per_site: int, real: Path | None, real_limit: int | None) -> None:
    """Build instances: reference screenshots, resource lists and reference code."""
    from webgauge.design2code.dataset import build_instances

    insts, failures = asyncio.run(build_instances(out, synthetic=synthetic, seed=seed, pages_per_site=pages_per_site,
                                                  real=real, real_limit=real_limit))
    click.echo(f"built {len(insts)} instances in {out}; {len(failures)} failed")
    for f in failures:
        click.echo(f"  failed {f['job']}: {f['error']}", err=True)


@group.command()
@click.option("--instances", "instances_dir", type=click.Path(file_okay=False, exists=True, path_type=Path),
              required=True, help="Folder of built instances.")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Run directory (re-running resumes).")
@click.option("--model", default="baseline", show_default=True,
              help="'baseline' (no network) or a webgauge.models name, e.g. openai:gpt-4o.")
@click.option("--strategy", "strategies", multiple=True, type=click.Choice(["sc", "zs", "cot", "sr"]),
              default=("zs",), show_default=True,
              help="Prompting strategy; repeat for several: sc self-contained, zs zero-shot, cot chain-of-thought, "
                   "sr self-refine.")
@click.option("--base-url", default=None, help="Model endpoint (OpenAI-compatible providers).")
@click.option("--max-tokens", type=click.IntRange(min=1), default=8192, show_default=True,
              help="Output token cap per answer; a cut answer is recorded as truncated.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Use only the first N instances.")
@executor_options
def generate(instances_dir: Path, out: Path, model: str, strategies: tuple[str, ...], base_url: str | None,
             max_tokens: int, limit: int | None, **kwargs) -> None:
    """Generate multi-page sites for every instance with a model (or the baseline)."""
    from webgauge.design2code.runs import generate_run

    opts = {"max_tokens": max_tokens}
    if base_url:
        opts["base_url"] = base_url
    summary = generate_run(instances_dir, out, model=model, strategies=strategies, model_opts=opts, limit=limit,
                           **executor_kwargs(kwargs))
    click.echo(f"generated {summary.ok} sites ({summary.failed} failed, {summary.skipped_resumed} resumed) in {out}")


@group.command()
@click.argument("gen_run", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Scoring run directory [default: GEN_RUN/score].")
@click.option("--report", "report_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write the HTML report here [default: <scoring run>/report].")
@click.option("--clip-weights", default=None, envvar="WEBGAUGE_CLIP_WEIGHTS", show_envvar=True,
              help="Local CLIPModel folder (transformers format); without it CLIP is reported n/a.")
@click.option("--lpips-weights", default=None, envvar="WEBGAUGE_LPIPS_WEIGHTS", show_envvar=True,
              help="Local webgauge-lpips/1 file; without it LPIPS is reported n/a.")
@click.option("--no-functional", is_flag=True, default=False,
              help="Skip navigation, image and backend checks (visual and fine-grained only).")
@executor_options
def score(gen_run: Path, out: Path | None, report_dir: Path | None, clip_weights: str | None,
          lpips_weights: str | None, no_functional: bool, **kwargs) -> None:
    """Score a generation run (visual, functional, fine-grained) and write the report."""
    from webgauge.design2code.report import write_report
    from webgauge.design2code.runs import score_run

    summary, score_dir = score_run(gen_run, out, clip_weights=clip_weights, lpips_weights=lpips_weights,
                                   functional=not no_functional, **executor_kwargs(kwargs))
    path = write_report(score_dir, report_dir or score_dir / "report")
    click.echo(f"scored {summary.ok} sites ({summary.failed} failed); report: {path}")


@group.command()
@click.argument("ratings", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--scores", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="CSV pair,<metric>... with each metric's value per pair (else extra columns of RATINGS).")
@click.option("--out", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the full analysis as JSON here.")
def iqa(ratings: Path, scores: Path | None, out: Path | None) -> None:
    """Correlate metrics with human ratings (RATINGS: CSV rater,pair,rating): MRWeb Table 2."""
    from webgauge.design2code.iqa import TABLE_COLUMNS, TIER_COLUMNS, iqa_table, read_ratings_csv, read_scores_csv
    from webgauge.report import markdown_table

    rows, inline = read_ratings_csv(ratings)
    metric_scores = read_scores_csv(scores) if scores else inline
    if not metric_scores:
        raise click.UsageError("no metric values: pass --scores or add metric columns to RATINGS")
    result = iqa_table(rows, metric_scores)
    fmt = [{k: (f"{v:.3f}" if isinstance(v, float) else v) for k, v in r.items()} for r in result["rows"]]
    click.echo(markdown_table(fmt, list(TABLE_COLUMNS)))
    click.echo("\nper similarity tier (MRWeb Table 7; absolute values):")
    click.echo(markdown_table(fmt, list(TIER_COLUMNS)))
    ir = result["inter_rater"]
    click.echo(f"\ninter-rater SROCC: pairwise {ir['pairwise_srocc']}, leave-one-out {ir['leave_one_out_srocc']} "
               f"({ir['raters']} raters); {result['n_pairs']} pairs; {result['removed_outliers']} outlier ratings "
               f"removed; dropped raters: {result['dropped_raters'] or 'none'}")
    if out:
        out.write_text(json.dumps(result, indent=1, default=float))


@group.command()
@click.option("--port", type=int, default=0, show_default=True, help="Port on 127.0.0.1 (0: a free one).")
@click.option("--work-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where generated sites are kept [default: a temporary folder].")
def tool(port: int, work_dir: Path | None) -> None:
    """Serve the design-to-site tool on 127.0.0.1: upload designs, draw resources, generate, preview, zip."""
    from webgauge.design2code.tool import serve_tool

    serve_tool(port=port, work_dir=work_dir)


@group.command()
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for the demo's instances, runs and report.")
@click.option("--quick", is_flag=True, default=False, help="A smaller demo (about a minute).")
def demo(out: Path, quick: bool) -> None:
    """Build a small multi-page set, run the baseline, score and write the report (offline)."""
    from webgauge.design2code.demo import run_demo

    click.echo(f"report: {run_demo(out, quick=quick)}")
