"""``webgauge/design2code`` for Inspect: generate every page of built instances with any Inspect model.

    inspect eval webgauge/design2code -T instances=INST -T strategy=zs --model openai/gpt-4o

One sample per (instance, page): the messages ``webgauge design2code generate`` sends for the
strategy (``sc``, ``zs`` or ``cot``; the ``webgauge`` or ``mrweb`` prompt set), the design
screenshot given as its file path inside the instance folder. The scorer takes the code out of
the answer with the suite's extractor (fences, doctype or bare HTML) and scores whether code was
found (1 for ``ok``; ``truncated`` and ``missing`` score 0, the status is kept). The visual and
functional metrics need the generated site served and rendered in Chromium: they come from
``webgauge design2code score`` on a run of ``webgauge design2code generate``. Self-refine
(``sr``) renders the first answer between turns and runs only there.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageUser,
    ContentImage,
    ContentText,
    GenerateConfig,
)
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState, generate

from ..codeextract import extract_code
from ..dataset import load_instances
from ..generate import page_tasks
from ..prompts import PROMPT_SETS, build_messages

__all__ = ["ITEM_KEY", "code_found", "design2code", "page_samples"]

ITEM_KEY = "webgauge_item"
STRATEGIES = ("sc", "zs", "cot")


def page_samples(instances: str | Path, strategy: str = "zs", prompts: str = "webgauge",
                 limit: int | None = None) -> list[Sample]:
    """One Inspect sample per page of every instance under ``instances``."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy {strategy!r} is not available in Inspect (choose one of {STRATEGIES}); "
                         "self-refine renders between turns: run `webgauge design2code generate --strategy sr`")
    if prompts not in PROMPT_SETS:
        raise ValueError(f"unknown prompt set {prompts!r}; choose one of {tuple(PROMPT_SETS)}")
    out = []
    for inst in load_instances(instances, limit):
        shots = {p.name: str((inst.root / p.screenshot).resolve()) for p in inst.pages}
        for pt in page_tasks(inst, strategy, prompts):
            item = f"{inst.id}/{pt.page}"
            messages = []
            for m in build_messages(pt):
                content = [ContentText(text=x) if isinstance(x, str) else ContentImage(image=shots[pt.page])
                           for x in m.content]
                if m.role == "system":
                    messages.append(ChatMessageSystem(content=content))
                else:
                    messages.append(ChatMessageUser(content=content, metadata={ITEM_KEY: item}))
            out.append(Sample(id=item, input=messages, target="",
                              metadata={"instance": inst.id, "page": pt.page, "strategy": strategy,
                                        "prompts": prompts, "instance_dir": str(inst.root.resolve())}))
    return out


@scorer(metrics=[mean()])
def code_found():
    """1 when the answer holds complete code (status ``ok``), else 0; the status is the answer."""

    async def score(state: TaskState, target: Target) -> Score:
        got = extract_code(state.output.completion if state.output else "")
        if state.output is not None and state.output.stop_reason == "max_tokens" and got.status == "ok":
            got = type(got)(got.code, "truncated", got.source)
        return Score(value=1.0 if got.status == "ok" else 0.0, answer=got.status,
                     metadata={"status": got.status, "source": got.source, "chars": len(got.code)})

    return score


@task
def design2code(instances: str, strategy: str = "zs", prompts: str = "webgauge", max_tokens: int = 8192) -> Task:
    """Built design2code instances as an Inspect task (see module docstring)."""
    samples = page_samples(instances, strategy, prompts)
    return Task(dataset=MemoryDataset(samples, name=f"webgauge-design2code:{Path(instances).name}"),
                solver=generate(), scorer=code_found(),
                config=GenerateConfig(temperature=0.0, max_tokens=int(max_tokens)),
                metadata={"webgauge": {"suite": "design2code", "instances": str(Path(instances).resolve()),
                                       "strategy": strategy, "prompts": prompts}})
