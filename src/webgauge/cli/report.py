"""``webgauge report ...``: turn report pages into pictures."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

__all__ = ["group"]


@click.group(name="report", help="Work with HTML reports.")
def group() -> None:
    pass


@group.command(help="Render an HTML report to a full-page PNG with the system Chromium (offline).")
@click.argument("html", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("png", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--width", type=click.IntRange(min=100), default=1280, show_default=True, help="Page width in CSS px.")
@click.option("--root", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Folder to serve (must contain HTML); use the run directory when the report links to ../blobs.")
def render(html: Path, png: Path, width: int, root: Path | None) -> None:
    from webgauge.report.render import render_html_to_png

    click.echo(f"wrote {asyncio.run(render_html_to_png(html, png, width=width, root=root))}")
