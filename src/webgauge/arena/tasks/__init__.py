"""Task families: templates instantiated from seeds into :class:`~webgauge.arena.core.task.Task` values.

``build_tasks(seeds)`` is deterministic: the same seeds give the same tasks (same ids,
instructions, validators and fingerprints). Families read the seed state to pick targets.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

from ..apps import build_seed
from ..apps.db import dump_state
from ..core.irreversible import IrreversibleControls
from ..core.task import Task
from . import admin, calendar, forum, mail, maps, media, ops, shop, strata, visual, wiki, work
from .budgets import ORACLE_MAX
from .budgets import budgeted as _budgeted
from .common import State

__all__ = ["FAMILIES", "build_tasks", "seed_state", "worded"]

Family = Callable[[int, State], Task]


def worded(family: Family) -> Family:
    """``family`` speaking its seed's phrasing: public seeds get the templates as they are, a
    held-out world rewrites and frames them with its own key (:mod:`webgauge.arena.content.worded`)."""
    from ..content.worded import worded_build

    @functools.wraps(family)
    def build(seed: int, state: State) -> Task:
        return worded_build(seed, lambda: family(seed, state))

    return build


@functools.cache
def _controls() -> IrreversibleControls:
    from ..apps import declared_controls

    return declared_controls()


def budgeted(family: Family, strict: bool = True) -> Family:
    """``family`` with step budgets derived from its oracle's longest run (:mod:`.budgets`)."""
    return _budgeted(family, ORACLE_MAX, _controls, strict=strict)


FAMILIES: dict[str, Family] = {}
for _mod in (shop, work, mail, visual, wiki, admin, calendar, ops, forum, maps, media, strata):
    for _f in _mod.FAMILIES:
        FAMILIES[f"{_mod.__name__.rsplit('.', 1)[1]}.{_f.__name__}"] = budgeted(worded(_f))


def _add_plugin_families() -> None:
    """Families from other packages (entry-point group ``webgauge.arena.families``)."""
    from ..core.plugins import FAMILIES_GROUP, PluginError, load_plugins

    for name, obj in load_plugins(FAMILIES_GROUP):
        fams = [(f"{name}.{f.__name__}", f) for f in obj.FAMILIES] if hasattr(obj, "FAMILIES") else [(name, obj)]
        for key, fam in fams:
            if not callable(fam):
                raise PluginError(f"arena plug-in family {key!r} is not a function (seed, state) -> Task")
            if key in FAMILIES:
                raise PluginError(
                    f"arena plug-in family {key!r} clashes with an existing family; rename the entry point")
            FAMILIES[key] = budgeted(worded(fam), strict=False)


_add_plugin_families()


def seed_state(seed: int) -> State:
    """The seed's full state dump, from a database built in memory (a seed built before in this
    process is copied: :func:`~webgauge.arena.apps.build_seed`)."""
    import sqlite3

    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        build_seed(conn, seed)
        return dump_state(conn)
    finally:
        conn.close()


def build_tasks(seeds: Iterable[int] = (0, 1), families: Iterable[str] | None = None) -> list[Task]:
    """One task per (family, seed). ``families`` filters by family key or task family name."""
    want = set(families) if families is not None else None
    tasks = []
    for seed in seeds:
        state = seed_state(seed)
        for key, fam in FAMILIES.items():
            t = fam(seed, state)
            if want is None or key in want or t.family in want:
                tasks.append(t)
    if want is not None and not tasks:
        raise ValueError(f"no family matches {sorted(want)}; known: {', '.join(sorted(FAMILIES))}")
    return tasks
