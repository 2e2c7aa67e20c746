"""Versioned prompts: one text file per task in ``prompts/``, the same for clean and perturbed input.

Each file starts with ``version: N``; the prompt id is ``<task>@<N>`` and is recorded with
every question and in every run spec, so results name the exact wording they came from.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["load_prompt", "prompt_id", "render_prompt", "all_prompts"]

TASK_FILES = ("position", "ui_group", "form_fill", "hint_text", "color", "text", "layout", "safety")


@cache
def _read(task: str) -> tuple[int, str]:
    if task not in TASK_FILES:
        raise ValueError(f"no prompt for task {task!r}; tasks are {TASK_FILES}")
    raw = resources.files(__package__).joinpath("prompts").joinpath(f"{task}.txt").read_text()
    head, _, body = raw.partition("\n")
    if not head.startswith("version:"):
        raise ValueError(f"prompt file {task}.txt must start with 'version: N'")
    return int(head.split(":", 1)[1]), body.strip()


def load_prompt(task: str) -> str:
    """The prompt template of ``task`` (without its version line)."""
    return _read(task)[1]


def prompt_id(task: str) -> str:
    """``"<task>@<version>"``."""
    return f"{task}@{_read(task)[0]}"


def render_prompt(task: str, **fields) -> str:
    """The prompt of ``task`` with its ``{fields}`` filled in."""
    return load_prompt(task).format(**fields) if fields else load_prompt(task)


def all_prompts() -> dict[str, str]:
    """``{prompt_id: template}`` for every task, for run specs."""
    return {prompt_id(t): load_prompt(t) for t in TASK_FILES}
