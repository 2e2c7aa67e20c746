"""Two fixed answer sets for a benchmark, for harness parity tests (not collected by pytest).

Set ``a`` is mostly the dom-heuristic's answers, set ``b`` mostly random guesses; both have
unparseable answers mixed in, so scores spread over 0..1, some answers fail to parse, and the
two models differ (the consensus targets of one come from the other).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from webgauge.understand import DomHeuristic, RandomBaseline, read_questions

JUNK = "I cannot tell from the screenshot."


async def _answers(bench: Path) -> dict[str, dict[str, str]]:
    oracle, rnd = DomHeuristic(), RandomBaseline()
    out: dict[str, dict[str, str]] = {"a": {}, "b": {}}
    for i, q in enumerate(sorted(read_questions(bench), key=lambda q: q.id)):
        good, guess = await oracle.answer(q, bench, 0), await rnd.answer(q, bench, 0)
        out["a"][q.id] = JUNK if i % 7 == 3 else guess if i % 5 == 1 else good
        out["b"][q.id] = JUNK if i % 6 == 2 else good if i % 3 == 0 else guess
    return out


def write_answer_sets(bench: Path, folder: Path) -> dict[str, tuple[Path, Path]]:
    """``{"a": (scripted.jsonl, answers.json), "b": ...}`` under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, answers in asyncio.run(_answers(bench)).items():
        scripted = folder / f"{name}.jsonl"
        scripted.write_text("".join(json.dumps({"item_id": k, "answer": v}) + "\n" for k, v in answers.items()))
        plain = folder / f"{name}.json"
        plain.write_text(json.dumps(answers))
        out[name] = (scripted, plain)
    return out
