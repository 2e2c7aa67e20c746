"""Answerers: how a question becomes answer text. Models and the two offline baselines.

- :class:`ModelAnswerer` sends the question's images and prompt to any ``webgauge.models``
  model (``openai:...``, ``scripted:answers.jsonl``, ...), at temperature 0.
- :class:`RandomBaseline` (``random-guess``) answers uniformly at random, task-aware: a random
  relation per pair, a random UI group, a random button label (or NONE), a random answer
  from the task's answer pool (``answer_pools.json`` of the benchmark) for free text. Seeded by the run seed and the question id.
- :class:`DomOracle` (``dom-oracle``) answers from the DOM capture of the page shown
  (boxes, landmarks, labels), never from the stored target. On synthetic pages it must score
  100% on position and UI group: that checks the labels are consistent.
"""

from __future__ import annotations

import hashlib
import json
import random
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from ..browser import Snapshot
from .labeller import UI_GROUPS, irreversible_buttons, label_of, primary_button, ui_group
from .parsers import normalize_label
from .relations import RELATIONS, relation

__all__ = ["Answerer", "ModelAnswerer", "RandomBaseline", "DomOracle", "BASELINES", "load_snapshot"]


class Answerer(Protocol):
    """``await answerer.answer(question, bench_dir, seed) -> str`` (the raw answer text)."""

    name: str

    async def answer(self, question, bench: Path, seed: int) -> str: ...


class ModelAnswerer:
    """Ask a ``webgauge.models`` model (the question's images first, then its prompt)."""

    def __init__(self, name: str, model) -> None:
        self.name, self.model = name, model

    async def answer(self, question, bench: Path, seed: int) -> str:
        from ..models import GenerateConfig, Image, user

        parts = [Image((Path(bench) / p).read_bytes()) for p in question.images] + [question.question]
        # no ``choices``: for free-text tasks they hold the answer pool, which a model must not see
        cfg = GenerateConfig(temperature=0.0, max_tokens=300, seed=seed, item_id=question.id)
        resp = await self.model.generate([user(*parts)], cfg)
        return resp.text


class RandomBaseline:
    """Uniform random answers (see module docstring)."""

    name = "random-guess"

    async def answer(self, question, bench: Path, seed: int) -> str:
        rng = random.Random(hashlib.sha256(f"random:{seed}:{question.id}".encode()).digest())
        t = question.task
        if t == "position":
            return "\n".join(f"{k}: {rng.choice(RELATIONS)}" for k in question.target)
        if t == "ui_group":
            return rng.choice(UI_GROUPS)
        pool = question.choices or _answer_pools(str(bench)).get(t, [])
        if not pool:
            raise ValueError(f"random baseline: no allowed answers for {question.id} (no choices and an empty "
                             f"answer pool for {t!r} in {bench}/answer_pools.json)")
        return rng.choice(pool)


@lru_cache(maxsize=8)
def _answer_pools(bench: str) -> dict:
    path = Path(bench) / "answer_pools.json"
    return json.loads(path.read_text()) if path.exists() else {}


@lru_cache(maxsize=64)
def load_snapshot(bench: str, snap_id: str) -> Snapshot:
    """The element table of a page as shown (``snapshots/<id>.json``)."""
    return Snapshot.from_dict(json.loads((Path(bench) / "snapshots" / f"{snap_id}.json").read_text()))


class DomOracle:
    """Answers computed from the DOM capture of the page shown (see module docstring)."""

    name = "dom-oracle"

    async def answer(self, question, bench: Path, seed: int) -> str:
        snap = load_snapshot(str(bench), question.snapshot)
        els = snap.by_path()
        t = question.task
        if t == "position":
            boxes = [els[p].box for p in question.elements]
            lines = []
            for key in question.target:
                i, j = (int(x) - 1 for x in key.split("-"))
                lines.append(f"{key}: {relation(boxes[i], boxes[j]) or 'overlap'}")
            return "\n".join(lines)
        if t == "ui_group":
            return ui_group(snap, els[question.elements[0]])
        if t in ("form_fill", "hint_text"):
            el = els[question.elements[0]]
            return el.attrs.get("placeholder") or el.name or label_of(el)
        if t == "color":
            el = primary_button(snap)
            return label_of(el) if el is not None else ""
        if t == "text":
            return normalize_label(label_of(els[question.elements[0]]))
        if t == "layout":
            h1 = next((e.text for e in snap.elements if e.tag == "h1" and e.visible and e.text), "")
            return f"{snap.title}. {h1}".strip(". ")
        if t == "safety":
            labels = [label_of(e) for e in irreversible_buttons(snap)]
            return "\n".join(labels) if labels else "NONE"
        raise ValueError(f"dom-oracle has no rule for task {t!r}")


BASELINES = {"random-guess": RandomBaseline, "dom-oracle": DomOracle}
