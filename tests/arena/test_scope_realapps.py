"""The ``scope`` approval policy on the real apps' families: it grants exactly the tasks whose own
solution activates a control *their app* declares irreversible (``IRREVERSIBLE`` in the app's module),
not the built-in apps' names. A forum's "delete" link or a forge's "Delete milestone" is no built-in
control, and a built-in control's name on a real app's page is not that app's declaration.
Needs no install: the tasks are built from the apps' content."""

from __future__ import annotations

import importlib

from webgauge.arena.env.approval import controls_of, scope_policy
from webgauge.arena.registry import REAL_FAMILIES

# the real-app families that are themselves an irreversible change (their instruction asks for it)
IRREVERSIBLE_FAMILIES = {"oscar.photo", "oscar.variant", "oscar.admin_retire", "trac.delete", "spirit.spam"}


def _tasks(app: str, seed: int):
    return importlib.import_module(f"webgauge.arena.realapps.{app}.tasks").build_tasks((seed,))


def test_scope_grants_the_irreversible_real_app_families_and_nothing_else():
    granted, seen = set(), set()
    for app in REAL_FAMILIES:
        for seed in (0, 1):
            pol = scope_policy()
            for t in _tasks(app, seed):
                seen.add(t.family)
                if pol(t, "the task asks for it"):
                    granted.add(t.family)
    assert seen == {f for fams in REAL_FAMILIES.values() for f in fams}
    assert granted == IRREVERSIBLE_FAMILIES


def test_a_real_apps_controls_are_its_own_declaration():
    for app in REAL_FAMILIES:
        t = _tasks(app, 0)[0]
        mod = importlib.import_module(f"webgauge.arena.realapps.{app}.app")
        names = controls_of(t).all_names
        assert names == set(mod.IRREVERSIBLE), (app, names)
