"""Click options shared by suite commands that run items (executor choice and resume)."""

from __future__ import annotations

from collections.abc import Callable

import click

__all__ = ["executor_options", "executor_kwargs"]


def executor_options(fn: Callable) -> Callable:
    """Add ``--executor``, ``--ray-address``, ``--workers`` and ``--retry-failed`` to a command.

    The values arrive as keyword arguments ``executor``, ``ray_address``, ``workers`` and
    ``retry_failed``, which match :func:`webgauge.run.run_items`; use
    :func:`executor_kwargs` to pick them out of ``**kwargs``.
    """
    options = [
        click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
                     help="Where items run: local worker processes, or a Ray cluster (needs webgauge[ray])."),
        click.option("--ray-address", default=None, metavar="ADDRESS",
                     help="Ray cluster to join (e.g. ray://head:10001 or 'auto'); default starts a local Ray."),
        click.option("--workers", type=click.IntRange(min=1), default=None,
                     help="Worker processes / Ray actors, each with its own browser [default: min(2, cpus) "
                          "locally, the cluster's CPUs on Ray]."),
        click.option("--retry-failed", is_flag=True, default=False,
                     help="On resume, run again the items whose last attempt failed."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def executor_kwargs(kwargs: dict) -> dict:
    """The subset of a command's kwargs that :func:`run_items` takes from :func:`executor_options`."""
    return {k: kwargs[k] for k in ("executor", "ray_address", "workers", "retry_failed") if k in kwargs}
