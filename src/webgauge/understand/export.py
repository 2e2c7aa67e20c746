"""Writing a benchmark folder that ``datasets.load_dataset`` reads, plus fine-tuning splits.

Layout::

    BENCH/README.md              dataset card; YAML ``configs`` name one config per task
    BENCH/data/<task>.jsonl      one question per line (or .parquet with --format parquet)
    BENCH/images/<sha256>.png    every image once
    BENCH/snapshots/<id>.json    element tables of the pages shown (for the dom-heuristic)
    BENCH/splits/<task>/{train,validation,test}.jsonl   chat ``messages`` + ``images``
    BENCH/answer_pools.json      per free-text task, the sorted targets (the random baseline's draws)
    BENCH/manifest.json          counts, drops, checks, file hashes and the manifest sha256

Splits are by page (no page in two splits), seeded, 8:1:1. Each row is
``{"id", "messages": [user: images + question, assistant: answer], "images": [paths]}``,
the conversational vision format that TRL's SFTTrainer and LLaMA-Factory read.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

__all__ = ["write_questions", "write_splits", "page_splits", "SPLITS", "write_card", "write_manifest", "answer_text",
           "read_questions"]


def answer_text(q) -> str | None:
    """The reference answer of a question as the text a model should produce (None if unknown)."""
    t = q.target
    if t is None:
        return None
    if q.task == "position":
        return "\n".join(f"{k}: {v}" for k, v in t.items())
    if q.task == "safety":
        return "\n".join(t) if t else "NONE"
    return str(t)


def write_questions(root: Path, questions: list, fmt: str = "jsonl") -> list[str]:
    """Write ``data/<task>.<fmt>``; returns the task names written."""
    if fmt not in ("jsonl", "parquet"):
        raise ValueError(f"format must be 'jsonl' or 'parquet', got {fmt!r}")
    data = root / "data"
    data.mkdir(parents=True, exist_ok=True)
    tasks = sorted({q.task for q in questions})
    for task in tasks:
        rows = [q.to_dict() for q in sorted(questions, key=lambda q: q.id) if q.task == task]
        for r in rows:
            r["meta"] = json.dumps(r["meta"], sort_keys=True)
        if fmt == "jsonl":
            (data / f"{task}.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            for r in rows:
                r["target"] = json.dumps(r["target"], sort_keys=True)
            pq.write_table(pa.Table.from_pylist(rows), data / f"{task}.parquet")
    return tasks


def read_questions(root: Path, task: str | None = None) -> list:
    """Read questions back from ``data/`` (JSONL or Parquet)."""
    from .questions import Question

    out = []
    for path in sorted((Path(root) / "data").iterdir()):
        if task and path.stem != task:
            continue
        if path.suffix == ".jsonl":
            rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        elif path.suffix == ".parquet":
            import pyarrow.parquet as pq

            rows = pq.read_table(path).to_pylist()
            for r in rows:
                r["target"] = json.loads(r["target"])
        else:
            continue
        for r in rows:
            r["meta"] = json.loads(r["meta"]) if isinstance(r["meta"], str) else r["meta"]
            out.append(Question.from_dict(r))
    return out


SPLITS = ("train", "validation", "test")


def page_splits(pages, seed: int) -> dict[str, str]:
    """``{page: "train" | "validation" | "test"}``: the seeded by-page 8:1:1 split of a benchmark."""
    pages = sorted(set(pages))
    random.Random(f"split:{seed}").shuffle(pages)
    n = len(pages)
    n_train, n_val = round(0.8 * n), round(0.1 * n)
    return {p: "train" if i < n_train else "validation" if i < n_train + n_val else "test"
            for i, p in enumerate(pages)}


def write_splits(root: Path, questions: list, seed: int) -> dict[str, dict[str, int]]:
    """Seeded by-page 8:1:1 train/validation/test splits in chat ``messages`` format."""
    split_of = page_splits({q.page for q in questions}, seed)
    counts: dict[str, dict[str, int]] = {}
    for task in sorted({q.task for q in questions}):
        folder = root / "splits" / task
        folder.mkdir(parents=True, exist_ok=True)
        rows: dict[str, list[Any]] = {"train": [], "validation": [], "test": []}
        for q in sorted(questions, key=lambda q: q.id):
            answer = answer_text(q)
            if q.task != task or answer is None:
                continue
            content = [{"type": "image"} for _ in q.images] + [{"type": "text", "text": q.question}]
            rows[split_of[q.page]].append({"id": q.id, "images": q.images, "messages": [
                {"role": "user", "content": content},
                {"role": "assistant", "content": [{"type": "text", "text": answer}]}]})
        for name, rs in rows.items():
            (folder / f"{name}.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rs))
        counts[task] = {k: len(v) for k, v in rows.items()}
    return counts


def _definitions() -> str:
    from . import labeller, relations, scorers

    def doc(mod):
        return mod.__doc__.strip()

    return "\n\n".join(["### Position relations and difficulty", doc(relations), "### Heuristic labels (real pages)",
                         doc(labeller), "### Scores", doc(scorers)])


def write_card(root: Path, tasks: list[str], fmt: str, seed: int) -> None:
    """README.md with ``configs`` so ``datasets.load_dataset(str(root), task)`` works."""
    ext = "jsonl" if fmt == "jsonl" else "parquet"
    lines = ["---", "configs:"]
    for t in tasks:
        lines += [f"- config_name: {t}", f"  data_files: data/{t}.{ext}"]
    for t in tasks:
        # an empty split file makes load_dataset fail ("corresponds to no data"): list only the
        # splits that hold rows (a tiny benchmark may have all its pages in train)
        splits = [s for s in ("train", "validation", "test")
                  if (root / "splits" / t / f"{s}.jsonl").is_file()
                  and (root / "splits" / t / f"{s}.jsonl").stat().st_size]
        if splits:
            lines += [f"- config_name: {t}_sft", "  data_files:"] + [
                f"  - split: {s}\n    path: splits/{t}/{s}.jsonl" for s in splits]
    lines += ["---", "", f"# webgauge understand benchmark (seed {seed})", "",
              "Questions built by `webgauge understand build`. Image paths are relative to this folder;",
              "`meta` is a JSON string" + (" and so is `target`." if fmt == "parquet" else "."),
              "`target_source` says where each label came from: generator, dom, heuristic, human or consensus",
              "(consensus targets are null here and are computed from the models' answers at scoring time).", "",
              "```python", "from datasets import load_dataset",
              "ds = load_dataset('path/to/BENCH', 'position')        # questions",
              "sft = load_dataset('path/to/BENCH', 'position_sft')   # train/validation/test messages", "```", "",
              "## Definitions", "", _definitions(), ""]
    (root / "README.md").write_text("\n".join(lines))


def write_manifest(root: Path, info: dict) -> dict:
    """Hash every file (but the manifest) and write ``manifest.json``; returns the manifest."""
    files = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.name != "manifest.json"):
        files[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()
    manifest = {**info, "files": files, "sha256": digest}
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest
