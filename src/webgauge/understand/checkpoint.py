"""Resuming a killed build: one file per finished page under ``<out>/.partial/``.

A build writes, as each page finishes, everything that page adds to the benchmark (its
questions, its counts, its no-op samples, or its failure) to ``.partial/pages/<n>.json``,
atomically (a temporary file renamed into place). Images are content-addressed and also written
atomically, so a build killed at any point (``kill -9`` included) leaves only whole files.
``build_benchmark(..., resume=True)`` (``webgauge understand build --resume``) reads the
finished pages back, builds only the others and writes the same folder a build that was never
interrupted writes; ``.partial/`` is removed once the benchmark is written. ``.partial/build.json``
holds the build's parameters: resuming with other parameters is refused.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .questions import Question

__all__ = ["PageResult", "Checkpoint"]

PARTIAL = ".partial"


@dataclass
class PageResult:
    """What one page adds to a benchmark (``failure`` set when the page failed)."""

    questions: list[Question] = field(default_factory=list)
    drops: Counter = field(default_factory=Counter)
    checks: Counter = field(default_factory=Counter)
    noop: Counter = field(default_factory=Counter)
    fallbacks: Counter = field(default_factory=Counter)
    extra_rejected: Counter = field(default_factory=Counter)
    sizes: list = field(default_factory=list)
    rejected: list = field(default_factory=list)
    stats: Counter = field(default_factory=Counter)
    #: per task, what became of the page: ``"text:kept"``, ``"text:lost"`` or ``"text:not_applicable"``
    outcomes: Counter = field(default_factory=Counter)
    failure: dict | None = None

    _COUNTERS = ("drops", "checks", "noop", "fallbacks", "extra_rejected", "stats", "outcomes")

    def to_dict(self) -> dict:
        d = {k: dict(getattr(self, k)) for k in self._COUNTERS}
        return {**d, "questions": [q.to_dict() for q in self.questions], "sizes": [list(s) for s in self.sizes],
                "rejected": self.rejected, "failure": self.failure}

    @classmethod
    def from_dict(cls, d: dict) -> PageResult:
        return cls(questions=[Question.from_dict(q) for q in d["questions"]],
                   sizes=[tuple(s) for s in d["sizes"]], rejected=d["rejected"], failure=d["failure"],
                   **{k: Counter(d[k]) for k in cls._COUNTERS})


class Checkpoint:
    """The finished pages of a build in ``root/.partial`` (see module docstring)."""

    def __init__(self, root: Path, params: dict) -> None:
        self.dir = Path(root) / PARTIAL
        self.params = json.loads(json.dumps(params, sort_keys=True, default=str))

    @staticmethod
    def exists(root: Path) -> bool:
        return (Path(root) / PARTIAL / "build.json").exists()

    def start(self) -> None:
        (self.dir / "pages").mkdir(parents=True, exist_ok=True)
        self._write(self.dir / "build.json", json.dumps(self.params, indent=1, sort_keys=True))

    def load(self) -> dict[int, PageResult]:
        """The finished pages, by source index. Raises ``ValueError`` when the folder's build
        had other parameters (resuming would mix two benchmarks)."""
        path = self.dir / "build.json"
        if not path.exists():
            raise ValueError(f"{self.dir.parent} holds no interrupted build to resume (no {PARTIAL}/build.json); "
                             "build without --resume")
        had = json.loads(path.read_text())
        if had != self.params:
            diff = sorted(k for k in set(had) | set(self.params) if had.get(k) != self.params.get(k))
            raise ValueError(f"cannot resume {self.dir.parent}: it was built with other {', '.join(diff)}; "
                             "resume with the same options, or pass --force to start over")
        done = {}
        for f in sorted((self.dir / "pages").glob("*.json")):
            done[int(f.stem)] = PageResult.from_dict(json.loads(f.read_text()))
        return done

    def save(self, index: int, result: PageResult) -> None:
        self._write(self.dir / "pages" / f"{index:06d}.json", json.dumps(result.to_dict(), sort_keys=True))

    def remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    @staticmethod
    def _write(path: Path, text: str) -> None:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
