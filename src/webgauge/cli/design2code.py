"""``webgauge design2code``: extract, build, import-mrweb, export-mrweb, generate, score, iqa,
tool, demo (each a library call)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

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
@click.option("--prompts", "prompt_set", type=click.Choice(["webgauge", "mrweb"]), default="webgauge",
              show_default=True, help="Prompt set: ours (richer resource list) or the MRWeb paper's Appendix C "
                                      "(Tailwind, action list of position/type/url).")
@executor_options
def generate(instances_dir: Path, out: Path, model: str, strategies: tuple[str, ...], base_url: str | None,
             max_tokens: int, limit: int | None, prompt_set: str, **kwargs) -> None:
    """Generate multi-page sites for every instance with a model (or the baseline)."""
    from webgauge.design2code.runs import generate_run

    opts: dict[str, Any] = {"max_tokens": max_tokens}
    if base_url:
        opts["base_url"] = base_url
    summary = generate_run(instances_dir, out, model=model, strategies=strategies, model_opts=opts, limit=limit,
                           prompts=prompt_set, **executor_kwargs(kwargs))
    click.echo(f"generated {summary.ok} sites ({summary.failed} failed, {summary.skipped_resumed} resumed) in {out}")


@group.command("import-mrweb")
@click.argument("src", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write instances into.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Import only the first N ids.")
@click.option("--width", type=click.IntRange(min=1), default=1920, show_default=True,
              help="Width in CSS px of the window the boxes were recorded in (MRWeb: 1920); scoring renders "
                   "reference and candidate at this size.")
@click.option("--height", type=click.IntRange(min=1), default=1080, show_default=True,
              help="Height in CSS px of that window (MRWeb: 1080).")
def import_mrweb_cmd(src: Path, out: Path, limit: int | None, width: int, height: int) -> None:
    """Import a folder in MRWeb's layout (<id>.html, <id>.png, <id>.json) as instances. The ids
    that import are kept when others fail; the exit status is non-zero when none imports."""
    from webgauge.design2code.mrweb import import_mrweb

    try:
        insts, failures = import_mrweb(src, out, limit, window=(width, height))
    except FileNotFoundError as exc:
        raise click.ClickException(str(exc)) from None
    dropped = sum(sum(i.meta.get("dropped_resource_types", {}).values()) for i in insts)
    click.echo(f"imported {len(insts)} instances into {out} (boxes recorded in a {width}x{height} window); "
               f"{len(failures)} failed; {dropped} resources of types without a webgauge meaning dropped")
    for inst in insts:
        for warning in inst.meta.get("warnings", []):
            click.echo(f"  warning {inst.id}: {warning}", err=True)
    for f in failures:
        click.echo(f"  failed {f['id']}: {f['error']}", err=True)
    if failures and not insts:
        raise click.ClickException(f"no id of {src} imported: all {len(failures)} failed (see above)")


@group.command("export-mrweb")
@click.argument("instances_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write <id>.html, <id>.png and <id>.json into.")
def export_mrweb_cmd(instances_dir: Path, out: Path) -> None:
    """Write an instance set in MRWeb's layout (backend routes have no MRWeb form and are left out)."""
    from webgauge.design2code.mrweb import export_mrweb

    res = export_mrweb(instances_dir, out)
    click.echo(f"wrote {res['pages']} pages to {out}; left out: {res['dropped'] or 'nothing'}")


@group.command()
@click.argument("gen_run", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--instances", "instances_dir", type=click.Path(file_okay=False, exists=True, path_type=Path),
              default=None, help="With a folder of outside generations as GEN_RUN: the instances they answer.")
@click.option("--method", default=None,
              help="Name of the outside method (recorded as the model) [default: GEN_RUN's folder name].")
@click.option("--url-match", default="webgauge", show_default=True,
              help="URL comparison for RER: 'webgauge' (our normalisation), 'mrweb' (MRWeb's: the browser's "
                   "href/src, a link's fragment alone), 'exact' (as written), plus flags of ours 'unescape' and "
                   "'nocache', comma-separated (e.g. 'webgauge,unescape,nocache').")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where everything goes [default: GEN_RUN/score for a generation run; GEN_RUN/../score-METHOD "
                   "for outside pages]. A generation run's scores go to OUT itself; outside pages are read into "
                   "OUT/generations and scored into OUT/score. The report goes to <scores>/report.")
@click.option("--report", "report_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write the HTML report here [default: <scores>/report, i.e. OUT/report for a generation run, "
                   "OUT/score/report for outside pages].")
@click.option("--clip-weights", default=None, envvar="WEBGAUGE_CLIP_WEIGHTS", show_envvar=True,
              help="Local CLIPModel folder (transformers format); without it CLIP is reported n/a.")
@click.option("--lpips-weights", default=None, envvar="WEBGAUGE_LPIPS_WEIGHTS", show_envvar=True,
              help="Local webgauge-lpips/1 file; without it LPIPS is reported n/a.")
@click.option("--no-functional", is_flag=True, default=False,
              help="Skip navigation, image and backend checks (visual and fine-grained only).")
@click.option("--metrics", "metrics", default="mrweb", show_default=True,
              help="Metric families, comma-separated: 'mrweb' (MRWeb's visual, functional and fine-grained; "
                   "always computed) and 'd2c' (Design2Code's visual score: Block-Match, Text, Position, Color, "
                   "CLIP and their overall, in its 1280x720 window).")
@executor_options
def score(gen_run: Path, instances_dir: Path | None, method: str | None, url_match: str, out: Path | None,
          report_dir: Path | None, clip_weights: str | None, lpips_weights: str | None, no_functional: bool,
          metrics: str, **kwargs) -> None:
    """Score a generation run, or a folder of pages generated elsewhere (GEN_RUN holding one
    <id>.html per instance, MRWeb's results/<method>/ layout, with --instances), and write the
    report (and scores.csv for `design2code iqa --scores`)."""
    from webgauge.design2code.report import write_report
    from webgauge.design2code.runs import import_generations, score_run
    from webgauge.design2code.score import check_families
    from webgauge.design2code.urls import parse_url_match

    try:
        parse_url_match(url_match)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--url-match") from None
    try:
        families = check_families(metrics.split(","))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--metrics") from None
    ex = executor_kwargs(kwargs)
    if not (gen_run / "spec.json").is_file():
        if instances_dir is None:
            raise click.UsageError(f"{gen_run} is not a generation run (no spec.json); to score pages generated "
                                   "elsewhere (<id>.html per instance) pass --instances")
        method = method or gen_run.resolve().name
        out = out or gen_run.resolve().parent / f"score-{method}"
        imported, missing = import_generations(gen_run, instances_dir, out / "generations", method=method, **ex)
        click.echo(f"read {imported.ok} outside generations of {method}; {len(missing)} instances have none")
        gen_run = out / "generations"
        out = out / "score"
    summary, score_dir = score_run(gen_run, out, clip_weights=clip_weights, lpips_weights=lpips_weights,
                                   functional=not no_functional, url_match=url_match, metrics=families, **ex)
    path = write_report(score_dir, report_dir or score_dir / "report")
    click.echo(f"scored {summary.ok} sites ({summary.failed} failed) into {score_dir}; report: {path}; "
               f"per-pair metrics: {path.parent / 'scores.csv'}")


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
