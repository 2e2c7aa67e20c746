"""Answerers: how a question becomes answer text. Models and the three offline baselines.

- :class:`ModelAnswerer` sends the question's images and prompt to any ``webgauge.models``
  model (``openai:...``, ``scripted:answers.jsonl``, ...), at temperature 0.
- :class:`RandomBaseline` (``random-guess``) answers uniformly at random, task-aware: a random
  relation per pair, a random UI group, a random button label (or NONE), a random answer
  from the task's answer pool (``answer_pools.json`` of the benchmark) for free text. Seeded by the run seed and the
  question id.
  On the free-text tasks that pool is every distinct target of the task in the benchmark, or,
  where the targets are consensus (real pages' purposes and field values), the task's generic
  answers (:mod:`webgauge.understand.vocabulary`): it answers every item. On a small benchmark
  the pool holds few answers, so a draw is often right or shares the target's words. It is the
  floor of an answerer that knows the task's answer vocabulary, not of one that knows nothing.
- :class:`LabelOracle` (``label-oracle``) answers the question's label, where the task has one
  fixed at build time (generator truth, or computed from the DOM): a real upper bound, the
  scorer's ceiling. Where the target is a consensus of the models' answers (real pages' call-to-
  action and purpose, and text robustness, scored against the models' centroid as in the paper)
  there is no label to give: the question is not asked and the report shows ``n/a``.
- :class:`DomHeuristic` (``dom-heuristic``, formerly ``dom-oracle``) answers from the DOM capture
  of the page shown, never from the stored target, and never by re-running a labeller: what it
  sees, per task, is position: the boxes of the elements asked about (so it scores 100, the
  relations are computed from those boxes); UI group: the boxed element's box alone, where it
  sits on the page (top 120 px, bottom 150 px, a narrow element at a side; no landmark, no class
  name: :func:`~webgauge.understand.labeller.position_group`); form filling and hint text: the
  field's placeholder, accessible name or label; color: the largest button in the first screen;
  text: the button's own label; layout: the page title and first heading; safety: buttons whose
  label names an irreversible action. It is a heuristic everywhere but position, not a bound.
- A task a benchmark cannot measure (all targets one class, see
  :mod:`webgauge.understand.measurable`) is still answered; the report flags it instead of scoring it.
"""

from __future__ import annotations

import hashlib
import json
import random
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from ..browser import Snapshot
from .labeller import UI_GROUPS, irreversible_buttons, label_of, position_group, primary_button
from .parsers import normalize_label
from .relations import RELATIONS, relation

__all__ = ["BASELINES", "RENAMED", "baseline_note", "Answerer", "DomHeuristic", "LabelOracle", "ModelAnswerer",
           "RandomBaseline", "load_snapshot"]


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


class LabelOracle:
    """The question's build-time label as the answer (see module docstring)."""

    name = "label-oracle"

    @staticmethod
    def applies(question) -> bool:
        """Whether the question has a label fixed at build time that it is scored against."""
        return question.target is not None and question.task != "text"

    async def answer(self, question, bench: Path, seed: int) -> str:
        if not self.applies(question):
            raise ValueError(f"label-oracle: {question.id} has no build-time label (it is scored against a "
                             "consensus of the models' answers); the oracle is n/a there")
        t, target = question.task, question.target
        if t == "position":
            return "\n".join(f"{k}: {v}" for k, v in target.items())
        if t == "safety":
            return "\n".join(target) if target else "NONE"
        return str(target)


class DomHeuristic:
    """Answers computed from the DOM capture of the page shown (see module docstring)."""

    name = "dom-heuristic"

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
        if t == "ui_group":  # position alone: never the labeller that made the target
            return position_group(snap, els[question.elements[0]])
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
        raise ValueError(f"dom-heuristic has no rule for task {t!r}")


def baseline_note(bench: str | Path | None = None) -> str:
    """What the three baselines are, in one paragraph for the report and the demo's landing page
    (plain text); with ``bench``, the sizes of its free-text answer pools."""
    pools = _answer_pools(str(bench)) if bench is not None else {}
    sizes = ", ".join(f"{t} {len(pools[t])}" for t in ("layout", "form_fill", "hint_text") if pools.get(t))
    return ("Baselines. label-oracle answers each question's build-time label: an upper bound, n/a where the "
            "target is a consensus of the models' answers (real pages' call-to-action and purpose, text "
            "robustness). dom-heuristic answers from the page's DOM without the labellers: the boxes (position, "
            "which it reproduces), where the boxed element sits (UI group: position alone, no landmark or class "
            "name), placeholders and labels (forms, hints), the title and first heading (layout); a heuristic "
            "everywhere but position. random-guess answers at random; on the free-text tasks it draws from the "
            "task's answer pool, every distinct target of that task in this benchmark, or generic answers where "
            "no target is known at build time"
            + (f" (here: {sizes} answers)" if sizes else "")
            + ". A small pool makes a draw often right or close in wording: it is the floor of an answerer that "
              "knows the task's answers, not of one that knows nothing.")


BASELINES = {"random-guess": RandomBaseline, "label-oracle": LabelOracle, "dom-heuristic": DomHeuristic}
#: baseline names that changed, with the name to use now
RENAMED = {"dom-oracle": "dom-heuristic (the DOM heuristic; the upper bound is label-oracle)"}
