"""Step budgets with slack: in every observation mode, every task of every family (the arena's own and
the real apps', seeds 0-199 and a sample of held-out worlds) gives the scripted oracle's run at least
:func:`~webgauge.arena.tasks.budgets.margin` actions of slack, so an agent a few actions slower than
the oracle still fits; and the checked-in oracle tables hold every family's longest run.

The oracle's run is counted from its script (no browser; ``tests/arena/test_modes.py`` plays it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from webgauge.arena.apps import declared_controls
from webgauge.arena.core.irreversible import IrreversibleControls
from webgauge.arena.core.script import Click, Done, Go, Match
from webgauge.arena.core.task import Task
from webgauge.arena.realapps.leakage import APPS
from webgauge.arena.tasks import FAMILIES, seed_state
from webgauge.arena.tasks.budgets import MODES, ORACLE_MAX, budgeted, margin, oracle_actions, short_family, with_budget
from webgauge.arena.tasks.heldout import heldout_seeds
from webgauge.arena.tasks.variety import MEASUREMENT_KEY

SEEDS = range(200)


def real_apps() -> list[tuple[object, IrreversibleControls]]:
    """Each real app's tasks module and its irreversible controls."""
    import importlib

    out = []
    for app in APPS:
        mod = importlib.import_module(f"webgauge.arena.realapps.{app}.tasks")
        out.append((mod, IrreversibleControls.of({"": mod.IRREVERSIBLE})))
    return out


def own_tasks(seeds) -> Iterator[Task]:
    for seed in seeds:
        state = seed_state(seed)
        for fam in FAMILIES.values():
            yield fam(seed, state)


def real_tasks(seeds) -> Iterator[tuple[Task, IrreversibleControls, dict[str, int], str]]:
    for mod, controls in real_apps():
        world = APPS[mod.__name__.split(".")[3]]().world
        for seed in seeds:
            w = world(seed)
            for make in mod.FAMILIES.values():  # type: ignore[attr-defined]
                t = make(w, seed)
                yield t, controls, mod.ORACLE_MAX, short_family(t)


def short_of_slack(task: Task, controls: IrreversibleControls) -> list[str]:
    """The modes in which ``task``'s budget leaves the oracle less than the margin (``dom``: not on visual tasks)."""
    base = oracle_actions(task, "screenshot+tree", controls)
    out = []
    for mode in MODES:
        if mode == "dom" and task.visual:
            continue
        run = oracle_actions(task, mode, controls)
        if task.budget(mode) < run + margin(base):
            out.append(f"{task.id} [{mode}]: budget {task.budget(mode)}, oracle {run}, margin {margin(base)}")
    return out


@pytest.mark.timeout(1800)  # 58 families x 200 worlds: half a minute idle, a few minutes on a loaded machine
def test_own_families_leave_the_oracle_slack_in_every_mode():
    controls = declared_controls()
    short: list[str] = []
    longest: dict[str, int] = {}
    n = 0
    for t in own_tasks([*SEEDS, *heldout_seeds(MEASUREMENT_KEY, 4)]):
        n += 1
        short += short_of_slack(t, controls)
        if t.seed < 200:
            longest[t.family] = max(longest.get(t.family, 0), oracle_actions(t, irreversible=controls))
    assert n == (len(SEEDS) + 4) * len(FAMILIES)
    assert not short, short[:10]
    stale = {f: (ORACLE_MAX.get(f), n) for f, n in longest.items() if ORACLE_MAX.get(f, -1) < n}
    assert not stale, f"ORACLE_MAX is stale (table, measured): {stale}; run python -m webgauge.arena.tasks.budget_table"
    print(f"\nown families: {len(longest)}, longest oracle run {max(longest.values())} "
          f"({max(longest, key=longest.__getitem__)})")


@pytest.mark.timeout(1800)  # 210 worlds per app; the forum's (2,200 topics each) take minutes on a loaded machine
def test_real_app_families_leave_the_oracle_slack_in_every_mode():
    short: list[str] = []
    longest: dict[tuple[str, str], tuple[int, int]] = {}
    for t, controls, table, key in real_tasks([*SEEDS, *heldout_seeds(MEASUREMENT_KEY, 10)]):
        short += short_of_slack(t, controls)
        if t.seed < 200:
            run = oracle_actions(t, irreversible=controls)
            old = longest.get((t.family, key), (0, 0))
            longest[(t.family, key)] = (max(old[0], run), max(old[1], t.max_steps))
            assert table.get(key, -1) >= run, (
                f"{t.id}: oracle run {run} > table {table.get(key)}; run python -m webgauge.arena.tasks.budget_table")
    assert not short, short[:10]
    assert len(longest) == sum(len(make().families) for make in APPS.values())
    print("\nreal-app budgets (family: longest oracle run over seeds 0-199 -> largest budget):")
    for (family, _), (run, budget) in sorted(longest.items()):
        print(f"  {family:18s} {run:3d} -> {budget:3d}")


def test_the_check_and_the_derivation_catch_a_budget_without_slack():
    # mediawiki.rename's shape before budgets had slack: an oracle of 40 steps (41 actions with done) in a budget of 40
    mod, controls = real_apps()[0]
    t, *_ = next(real_tasks([0]))
    steps = [Go("/"), *[Click(Match(role="link", name=f"l{k}")) for k in range(39)]]
    tight = dataclasses.replace(t, max_steps=40, oracle=lambda: steps, visual=False)
    assert oracle_actions(tight, irreversible=controls) == 41
    assert short_of_slack(tight, controls)
    fixed = with_budget(tight, family_max=0, irreversible=controls)
    assert fixed.max_steps == 41 + margin(41) and not short_of_slack(fixed, controls)
    # the family's longest run lifts a short task's budget too (the budget does not tell one seed from another)
    short = dataclasses.replace(t, max_steps=5, oracle=lambda: [Done("x")])
    assert with_budget(short, family_max=30, irreversible=controls).max_steps == 30 + margin(30)
    # an approval request and the closing done count; a script ending in done gets none added
    approve = dataclasses.replace(t, oracle=lambda: [Click(Match(role="button", name=controls_name(controls)))])
    assert oracle_actions(approve, irreversible=controls) == 3
    # a family missing from its table is an error naming the command that prints it
    with pytest.raises(KeyError, match="budget_table"):
        budgeted(lambda w, s: t, {}, lambda: controls)(None, 0)


def controls_name(controls: IrreversibleControls) -> str:
    (name,) = sorted(controls.all_names)[:1]
    return name
