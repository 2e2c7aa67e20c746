"""Step budgets with slack: every family's budget is its oracle's longest run plus a margin.

The oracle's run is counted from its script, without a browser (:func:`oracle_actions`): one
action per scripted step (in ``dom`` mode the script as :func:`~webgauge.arena.core.script.by_element`
plays it; in ``screenshot`` mode each step's pointer actions), the final ``done`` when the script
does not end with one, and one ``request_approval`` when the script activates a declared
irreversible control (the oracle asks once per episode). The longest run over the public seeds
0-199 is recorded per family in a checked-in table (:data:`ORACLE_MAX` for the arena's own
families; each real app's tasks module has its own ``ORACLE_MAX``), which
``python -m webgauge.arena.tasks.budget_table`` prints from the families as they are. A task's
``max_steps`` is then at least that maximum plus :func:`margin`, and at least its own run plus the
margin (a held-out world's oracle may run longer than every public one), so an agent a few actions
slower than the oracle still fits. The screenshot budget adds the pointer translation's extra
actions on top (:attr:`~webgauge.arena.core.task.Task.pointer_extra_steps`), which keeps the same
slack there.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..core.irreversible import IrreversibleControls, requires_irreversible
from ..core.script import Done, by_element
from ..core.task import Task

__all__ = ["MODES", "ORACLE_MAX", "budgeted", "margin", "maxima", "needed", "oracle_actions", "with_budget"]

MODES = ("screenshot+tree", "dom", "screenshot")


def margin(n: int) -> int:
    """The slack over an oracle run of ``n`` actions: a quarter of it, at least three actions."""
    return max(3, math.ceil(n / 4))


def needed(n: int) -> int:
    """The smallest budget for a family whose oracle's longest run is ``n`` actions."""
    return n + margin(n)


def oracle_actions(task: Task, mode: str = "screenshot+tree", irreversible: IrreversibleControls | None = None) -> int:
    """How many actions the scripted oracle takes on ``task`` in observation ``mode`` when nothing
    is rejected (no retry, no pop-up, no scroll): its steps, the final ``done`` and an approval request."""
    if task.oracle is None:
        raise ValueError(f"task {task.id} has no scripted oracle: its budget cannot be derived")
    steps = list(task.oracle())
    if mode == "dom":
        steps = by_element(steps)
    n = sum(s.pointer_actions for s in steps) if mode == "screenshot" else len(steps)
    if not steps or not isinstance(steps[-1], Done):
        n += 1  # the oracle says done when its script is finished
    if irreversible is not None and requires_irreversible(task, irreversible):
        n += 1  # it asks for approval before the irreversible control
    return n


def with_budget(task: Task, family_max: int, irreversible: IrreversibleControls | None = None) -> Task:
    """``task`` with ``max_steps`` raised to the family's derived budget (and to its own run's)."""
    own = oracle_actions(task, irreversible=irreversible)
    want = max(task.max_steps, needed(family_max), needed(own))
    return task if want == task.max_steps else dataclasses.replace(task, max_steps=want)


def budgeted(make: Callable[..., Task], table: Mapping[str, int],
             irreversible: Callable[[], IrreversibleControls | None],
             key: Callable[[Task], str] = lambda t: t.family, strict: bool = True) -> Callable[..., Task]:
    """The family ``make`` with its tasks' budgets derived from ``table`` (:func:`with_budget`).
    ``strict``: a family missing from the table is an error naming the command that prints it (a
    plug-in family, not strict, gets its own run plus the margin, or keeps its budget when it has no
    scripted solution)."""

    @functools.wraps(make)
    def build(*args: Any) -> Task:
        task = make(*args)
        if task.oracle is None and not strict:
            return task  # a plug-in family without a scripted solution keeps the budget it declares
        k = key(task)
        if strict and k not in table:
            raise KeyError(f"family {task.family!r} ({k!r}) has no oracle maximum in its budget table; run "
                           "python -m webgauge.arena.tasks.budget_table and check in the table it prints")
        return with_budget(task, table.get(k, 0), irreversible())

    return build


def maxima(tasks: Iterable[Task], irreversible: IrreversibleControls | None = None,
           key: Callable[[Task], str] = lambda t: t.family) -> dict[str, int]:
    """The longest oracle run (element mode) per family (``key``) over ``tasks``."""
    out: dict[str, int] = {}
    for t in tasks:
        k = key(t)
        out[k] = max(out.get(k, 0), oracle_actions(t, irreversible=irreversible))
    return out


def table_text(table: Mapping[str, int], name: str = "ORACLE_MAX") -> str:
    """``table`` as the Python literal checked in beside the families."""
    rows = "".join(f"    {k!r}: {v},\n" for k, v in sorted(table.items()))
    return f"{name}: dict[str, int] = {{\n{rows}}}\n"


# The arena's own families: the oracle's longest run (element mode) over seeds 0-199, by task family.
# Printed by ``python -m webgauge.arena.tasks.budget_table``; tests/arena/test_budgets.py checks it.
ORACLE_MAX: dict[str, int] = {
    "account.rename": 4,
    "account.revoke_key": 6,
    "account.rotate_keys": 16,
    "admin.count_status": 4,
    "admin.deactivate_across_pages": 22,
    "admin.deactivate_group": 17,
    "admin.delete_user": 7,
    "admin.flag_email": 6,
    "admin.set_role": 6,
    "board.drag": 3,
    "board.multi_archive": 5,
    "board.triage": 20,
    "cal.book": 7,
    "cal.booking_reference": 7,
    "cal.cancel": 6,
    "cal.cancel_team_day": 14,
    "cal.wiki_review": 11,
    "dash.ack_team": 15,
    "dash.escalate": 5,
    "dash.peak_month": 7,
    "desks.book": 6,
    "desks.team_visit": 17,
    "forum.attach_file": 7,
    "forum.carry_solution": 11,
    "forum.count_solved": 3,
    "forum.moderate": 17,
    "forum.top_authors": 12,
    "forum.upvote_solution": 5,
    "forum.wiki_reply": 10,
    "mail.archive_sender": 8,
    "mail.cleanup": 21,
    "mail.forward": 9,
    "maps.drop_pin": 5,
    "maps.nearest": 5,
    "maps.route": 12,
    "maps.share_place": 2,
    "maps.zone": 5,
    "media.details_resize": 9,
    "media.match_brief": 5,
    "media.rights_expiry": 14,
    "media.share_to_brief": 9,
    "media.tag_matches": 21,
    "media.ticket_code": 6,
    "shop.buy_variant": 11,
    "shop.cancel_order": 4,
    "shop.cheapest": 19,
    "shop.mobile_address": 9,
    "shop.promo_tab": 11,
    "shop.reorder_from_mail": 35,
    "shop.sticky_add": 5,
    "strata.buy_again": 6,
    "strata.mobile_cart": 8,
    "strata.mobile_star": 6,
    "strata.snooze_top": 8,
    "wiki.lookup": 4,
    "wiki.owner_to_admin": 10,
    "wiki.team_retention": 24,
    "wiki.update_fact": 8,
}


def short_family(task: Task) -> str:
    """A real app's family name after the app's prefix (what its ``ORACLE_MAX`` is keyed by)."""
    return task.family.rsplit(".", 1)[-1]


def budgeted_app(families: Mapping[str, Callable[..., Task]], table: Mapping[str, int],
                 irreversible: tuple[str, ...] | frozenset[str] | list[str]) -> dict[str, Callable[..., Task]]:
    """A real app's families with budgets from its ``table`` (keyed by :func:`short_family`) and its
    irreversible control names."""
    def controls() -> IrreversibleControls:
        return IrreversibleControls.of({"": irreversible})

    return {name: budgeted(make, table, controls, key=short_family) for name, make in families.items()}
