"""Print the oracle-length tables the step budgets derive from (:mod:`webgauge.arena.tasks.budgets`).

``python -m webgauge.arena.tasks.budget_table`` builds every family's tasks at seeds 0-199 (no
browser) and prints, per table, the Python literal to check in: the arena's own families'
``ORACLE_MAX`` in ``arena/tasks/budgets.py`` and each real app's in its ``tasks.py``.
"""

from __future__ import annotations

import argparse
import importlib

from ..apps import declared_controls
from ..core.irreversible import IrreversibleControls
from . import FAMILIES, seed_state
from .budgets import maxima, short_family, table_text

__all__ = ["main"]


def main() -> None:
    ap = argparse.ArgumentParser(description="print the oracle-length tables the step budgets derive from")
    ap.add_argument("--seeds", type=int, default=200)
    args = ap.parse_args()
    controls = declared_controls()
    own: dict[str, int] = {}
    for seed in range(args.seeds):
        state = seed_state(seed)
        unbudgeted = (getattr(fam, "__wrapped__", fam) for fam in FAMILIES.values())
        for k, v in maxima((fam(seed, state) for fam in unbudgeted), controls).items():
            own[k] = max(own.get(k, 0), v)
    print("# webgauge/arena/tasks/budgets.py\n" + table_text(own))
    for app in ("roundup", "mediawiki", "oscar", "trac", "spirit"):
        content = importlib.import_module(f"webgauge.arena.realapps.{app}.content")
        tasks = importlib.import_module(f"webgauge.arena.realapps.{app}.tasks")
        real: dict[str, int] = {}
        for seed in range(args.seeds):
            w = content.world(seed)
            got = maxima((make.__wrapped__(w, seed) for make in tasks.FAMILIES.values()),
                         IrreversibleControls.of({"": tasks.IRREVERSIBLE}), key=short_family)
            for k, v in got.items():
                real[k] = max(real.get(k, 0), v)
        print(f"# webgauge/arena/realapps/{app}/tasks.py\n" + table_text(real))


if __name__ == "__main__":
    main()
