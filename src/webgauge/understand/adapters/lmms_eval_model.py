"""``lmms-eval --model webgauge_scripted --model_args answers=FILE``: replayed answers, no weights.

A model for lmms-eval that answers each exported question with the answer a file holds for its
id: the ``scripted:`` replay format of ``webgauge understand run`` (JSON lines
``{"item_id": ..., "answer": ...}``) or one JSON object ``{question id: answer}``. It opens every
question's images through the task's own ``doc_to_visual`` (as a real model would), so the task
folder is exercised end to end; a question the file has no answer for is an error naming it.

Registered with lmms-eval through the ``lmms_eval.models`` entry point (:func:`manifest`), so it
is there wherever webgauge is installed beside lmms-eval. Importing this module needs lmms-eval.
"""

from __future__ import annotations

import json
from pathlib import Path

from lmms_eval.api.model import lmms

__all__ = ["MODEL_ID", "ScriptedAnswers", "manifest", "read_answers"]

MODEL_ID = "webgauge_scripted"


def read_answers(path: str | Path) -> dict[str, str]:
    """``{question id: answer}`` from a scripted JSONL file or one JSON object."""
    text = Path(path).read_text()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict) and "item_id" not in data:
        return {str(k): str(v) for k, v in data.items()}
    out: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            row = json.loads(line)
            if not isinstance(row, dict) or "item_id" not in row or "answer" not in row:
                raise ValueError(f"{path}:{n}: expected {{\"item_id\": ..., \"answer\": ...}} or one JSON object")
            out[str(row["item_id"])] = str(row["answer"])
    return out


class ScriptedAnswers(lmms):
    """Replays answers by question id (see module docstring)."""

    def __init__(self, answers: str = "", **kwargs) -> None:
        super().__init__()
        if not answers:
            raise ValueError("webgauge_scripted needs --model_args answers=FILE (scripted JSONL or a JSON object)")
        self.path = str(answers)
        self.answers = read_answers(self.path)

    def generate_until(self, requests) -> list[str]:
        out = []
        for _context, _gen_kwargs, doc_to_visual, doc_id, task, split in [r.args for r in requests]:
            doc = self.task_dict[task][split][doc_id]
            if doc_to_visual is not None:
                doc_to_visual(doc)
            qid = str(doc["id"])
            if qid not in self.answers:
                raise KeyError(f"{self.path} has no answer for question {qid!r} (task {task})")
            out.append(self.answers[qid])
        return out

    def loglikelihood(self, requests):
        raise NotImplementedError("webgauge_scripted only generates (the webgauge tasks are generate_until)")

    def generate_until_multi_round(self, requests):
        raise NotImplementedError("webgauge_scripted answers single-turn questions only")


def manifest():
    """The ``lmms_eval.models`` entry point: this model under the name ``webgauge_scripted``."""
    from lmms_eval.models.registry_v2 import ModelManifest

    return ModelManifest(model_id=MODEL_ID, simple_class_path=f"{__name__}.ScriptedAnswers")
