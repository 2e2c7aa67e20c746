"""How varied the task families are: distinct instructions and held-out novelty.

Two numbers per family, both measured by building the tasks (no browser):

- ``distinct``: how many different instructions the family produces over the public seeds
  0–199 (the issue asks for at least 20);
- ``novelty``: the share of tasks built from held-out-range seeds whose instruction never
  appears among those public instructions (the issue asks for at least 90%). The held-out
  seeds come from :func:`~webgauge.arena.tasks.heldout.heldout_seeds` with a fixed, public
  measurement key, so the number is reproducible; the real held-out slice uses a secret key
  and the same generator, so it has the same novelty in expectation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from .public_worlds import PublicWorlds, public_worlds

__all__ = ["FamilyVariety", "measure_variety", "novelty_rate", "MEASUREMENT_KEY"]

MEASUREMENT_KEY = b"webgauge-arena-variety-measurement-key-v1"


@dataclass(frozen=True)
class FamilyVariety:
    family: str
    distinct: int  # distinct instructions over the public seeds
    public_tasks: int
    heldout_tasks: int
    heldout_new: int  # held-out tasks whose instruction is not a public one
    oracle_steps: float = 0.0  # mean length of the scripted solution over the public seeds
    pattern: str = ""
    visual: bool = False

    @property
    def novelty(self) -> float:
        return self.heldout_new / self.heldout_tasks if self.heldout_tasks else 0.0

    def to_dict(self) -> dict:
        return {"family": self.family, "distinct": self.distinct, "public_tasks": self.public_tasks,
                "heldout_tasks": self.heldout_tasks, "heldout_new": self.heldout_new,
                "novelty": round(self.novelty, 4), "oracle_steps": round(self.oracle_steps, 2),
                "pattern": self.pattern, "visual": self.visual}


def measure_variety(families: Iterable[str] | None = None, public_seeds: Iterable[int] = range(200),
                    n_heldout: int = 50, public: PublicWorlds | None = None) -> list[FamilyVariety]:
    """Distinct public instructions and held-out novelty per family (sorted by family).

    Each seed's state is built once and shared by the families measured (only those: a
    ``families`` filter builds no other family's tasks), and nothing but the instruction,
    the oracle length and the stratum is kept per task. ``public`` (from
    :func:`~webgauge.arena.tasks.public_worlds.public_worlds`) stands for ``families`` and
    ``public_seeds``: its worlds are not built again.
    """
    from . import seed_state
    from .heldout import heldout_seeds

    if public is None:
        public = public_worlds(families, public_seeds, vocabulary_seeds=())
    fams = public.functions()
    seen, n_pub, steps, meta = public.instructions, public.tasks, public.oracle_steps, public.stratum
    n_held: dict[str, int] = defaultdict(int)
    new: dict[str, int] = defaultdict(int)
    for seed in heldout_seeds(MEASUREMENT_KEY, n_heldout):
        state = seed_state(seed)
        for fam in fams.values():
            t = fam(seed, state)
            n_held[t.family] += 1
            new[t.family] += t.instruction not in seen[t.family]
    return [FamilyVariety(f, len(seen[f]), n_pub[f], n_held[f], new[f], steps[f] / n_pub[f], *meta[f])
            for f in sorted(n_pub)]


def novelty_rate(rows: Iterable[FamilyVariety]) -> float:
    """The held-out novelty over all families (new held-out instructions / held-out tasks)."""
    rows = list(rows)
    held = sum(r.heldout_tasks for r in rows)
    return sum(r.heldout_new for r in rows) / held if held else 0.0
