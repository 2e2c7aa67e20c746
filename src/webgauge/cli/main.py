"""The ``webgauge`` command: a thin layer where every command is a library call."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path

import click

from webgauge import __version__
from webgauge.run.options import executor_options

__all__ = ["main", "cli"]

#: Sub-groups imported only when used: name -> (module, help).
LAZY_GROUPS = {
    "understand": ("webgauge.cli.understand", "Page-understanding benchmark: build, run, report."),
    "design2code": ("webgauge.cli.design2code",
                    "Multi-page resource-aware generation: extract, build, generate, score."),
    "arena": ("webgauge.cli.arena", "Browser-agent tasks in self-hosted web apps."),
    "models": ("webgauge.cli.models", "Model providers: list them, ping one."),
    "run": ("webgauge.cli.run", "Inspect run directories (status, failures, overview)."),
    "report": ("webgauge.cli.report", "Render reports (HTML to PNG)."),
}


class LazyGroup(click.Group):
    """A click group whose sub-groups are imported on first use (fast ``--help``)."""

    def list_commands(self, ctx):
        present = {n for n, (m, _) in LAZY_GROUPS.items() if importlib.util.find_spec(m) is not None}
        return sorted(set(super().list_commands(ctx)) | present)

    def get_command(self, ctx, name):
        cmd = super().get_command(ctx, name)
        if cmd is not None or name not in LAZY_GROUPS or importlib.util.find_spec(LAZY_GROUPS[name][0]) is None:
            return cmd
        module, _ = LAZY_GROUPS[name]
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:
            missing = getattr(exc, "name", None) or str(exc)
            raise click.ClickException(
                f"`webgauge {name}` needs a package that is not installed ({missing}). "
                "Install the extras with `pip install -e '.[all]'` (or run `make test`, which bootstraps).") from None
        group = mod.group
        group.name = name
        return group

    def format_commands(self, ctx, formatter):
        rows = []
        for name in self.list_commands(ctx):
            if name in LAZY_GROUPS and name not in self.commands:
                rows.append((name, LAZY_GROUPS[name][1]))
            else:
                cmd = self.commands[name]
                rows.append((name, cmd.get_short_help_str(80)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="webgauge")
@click.option("--chromium", metavar="PATH", default=None,
              help="Chromium/Chrome executable to use [default: found automatically; env WEBGAUGE_CHROMIUM].")
def cli(chromium: str | None) -> None:
    """webgauge: reproducible benchmarks for multimodal models and browser agents on real web UIs.

    Everything runs offline on this machine by default (system Chromium, loopback servers,
    SQLite); `--executor ray` scales runs out. Start with `webgauge demo`.
    """
    if chromium:
        os.environ["WEBGAUGE_CHROMIUM"] = chromium  # worker processes inherit it


@cli.command()
@click.argument("pages", nargs=-1, required=True)
@click.option("--out", "out", type=click.Path(path_type=Path), required=True,
              help="Run directory to write (resumes if it exists).")
@click.option("--width", default=1280, show_default=True, help="Viewport width in CSS px.")
@click.option("--height", default=800, show_default=True, help="Viewport height in CSS px.")
@click.option("--scale", "dsf", default=1.0, show_default=True, help="Device scale factor.")
@click.option("--viewport-only", is_flag=True, help="Screenshot the viewport instead of the full page.")
@click.option("--timeout", default=30.0, show_default=True, help="Seconds allowed per page (load and capture).")
@click.option("--limit", type=int, default=None, help="Capture at most this many pages.")
@click.option("--force", is_flag=True, help="Start the run directory afresh instead of resuming.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@executor_options
def capture(pages, out, width, height, dsf, viewport_only, timeout, limit, force, quiet, **kwargs):
    """Capture PAGES (HTML files, folders of pages, or 127.0.0.1 URLs) into a run directory.

    Each page yields a screenshot, the element table and the aria snapshot; bad pages are
    recorded as failures and the run goes on. Writes OUT/capture.html.
    """
    from webgauge.browser import RenderProfile
    from webgauge.pages import load_pages
    from webgauge.pages.jobs import capture_work_items
    from webgauge.report.capture_report import write_capture_report
    from webgauge.run import RunSpec, executor_kwargs, run_items

    try:
        refs = load_pages(pages, limit=limit)
    except (ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    profile = RenderProfile(width=width, height=height, device_scale_factor=dsf)
    spec = RunSpec(suite="capture", options={"profile": profile.to_dict(), "full_page": not viewport_only,
                                             "timeout": timeout})
    summary = run_items(out, spec, capture_work_items(refs, profile, not viewport_only, timeout),
                        handler="webgauge.pages.jobs:capture_item", progress=not quiet, force=force,
                        **executor_kwargs(kwargs))
    report = write_capture_report(out)
    click.echo(f"captured {summary.ok} pages ({summary.failed} failed, {summary.skipped_resumed} resumed) "
               f"-> {report}")


@cli.command()
@click.option("--out", type=click.Path(path_type=Path), default=Path("runs/demo"), show_default=True,
              help="Folder for every demo run and report.")
@click.option("--full", is_flag=True,
              help="Every suite at its full demo size (about 15 minutes) instead of the few-minute default.")
@click.option("--suite", "suites", multiple=True,
              type=click.Choice(["capture", "understand", "design2code", "arena", "arena-variants"]),
              help="Run only these parts [default: all].")
def demo(out: Path, full: bool, suites: tuple[str, ...]) -> None:
    """Run the main job offline on the embedded default: capture the bundled pages, then each
    suite's demo with its no-network baselines, and write OUT/index.html."""
    from webgauge.demo import run_demo

    index, failures = run_demo(out, full=full, suites=suites or None)
    click.echo(f"demo report: {index}")
    if failures:
        for name, err in failures.items():
            click.echo(f"  {name} failed: {err}", err=True)
        sys.exit(1)


@cli.command()
def doctor() -> None:
    """Check this machine: Chromium, fonts, optional extras and the real-page corpus."""
    from webgauge.doctor import run_doctor

    ok = run_doctor(click.echo)
    sys.exit(0 if ok else 1)


def main() -> None:
    cli(prog_name="webgauge")


if __name__ == "__main__":
    main()
