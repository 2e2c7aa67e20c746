"""Approval policies: who says yes when an agent asks to do something irreversible.

With ``gate_destructive`` on, :class:`~webgauge.arena.env.ArenaEnv` blocks every control
its app declares irreversible (:mod:`~webgauge.arena.core.irreversible`: send, place order,
pay, delete, revoke) until the agent's ``request_approval(reason)`` is granted by the
run's policy, a callable ``policy(task, reason) -> bool``. The policies here are the ones a
run can choose by name (:func:`get_policy`):

- ``grant``: every request is granted (approvals are counted, never refused);
- ``deny``: every request is refused (destructive actions are impossible);
- ``scope``: granted only when the task itself asks for an irreversible change: its own
  scripted solution activates a declared irreversible control
  (:func:`~webgauge.arena.core.irreversible.requires_irreversible`; the built-in such families
  are listed in :data:`DESTRUCTIVE_FAMILIES`), or ``scope:fam1,fam2`` names the families. So a
  decoy that talks an agent into deleting something on an unrelated task is refused.

Every policy is wrapped in an :class:`ApprovalLog` that records each decision, so the
report can show the approval rate next to utility and attack success.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..apps import declared_controls
from ..core.irreversible import IrreversibleControls, requires_irreversible
from ..core.task import Task
from ..env import deny_all, grant_all

__all__ = ["DESTRUCTIVE_FAMILIES", "ApprovalLog", "controls_of", "get_policy", "scope_policy", "POLICY_NAMES",
           "grant_all", "deny_all"]

DESTRUCTIVE_FAMILIES = ("shop.cancel_order", "shop.buy_variant", "mail.forward", "account.revoke_key",
                        "admin.delete_user", "cal.cancel")
"""Built-in families whose task is itself an irreversible change (their oracle activates a
control its app declares irreversible; a test keeps this list equal to what the oracles do)."""

POLICY_NAMES = ("grant", "deny", "scope")


def controls_of(task: Task) -> IrreversibleControls:
    """The irreversible controls of the app ``task`` runs on: a real app's own declaration for its
    families (``roundup.*``, ``spirit.*``, ...; a forum's "delete" is no built-in app's control), the
    built-in apps' declarations otherwise."""
    from ..realapps import irreversible_names, specs

    app = task.family.partition(".")[0]
    if app in specs():
        return IrreversibleControls.of({"/": irreversible_names(app)})
    return declared_controls()


def scope_policy(families: tuple[str, ...] | None = None) -> Callable[[Task, str], bool]:
    """Grant only for tasks that themselves require an irreversible action: the named
    ``families``, or (by default) tasks whose scripted solution activates a declared control."""
    allowed = frozenset(families) if families is not None else None
    needed: dict[str, bool] = {}

    def scope(task: Task, reason: str) -> bool:
        if allowed is not None:
            return task.family in allowed
        if task.id not in needed:
            needed[task.id] = requires_irreversible(task, controls_of(task))
        return needed[task.id]

    scope.__name__ = f"scope({','.join(sorted(allowed))})" if allowed is not None else "scope(declared)"
    return scope


@dataclass
class ApprovalLog:
    """A policy plus the record of every decision it made (``(task id, reason, granted)``)."""

    name: str
    policy: Callable[[Task, str], bool]
    decisions: list[dict] = field(default_factory=list)

    def __call__(self, task: Task, reason: str) -> bool:
        granted = bool(self.policy(task, reason))
        self.decisions.append({"task_id": task.id, "reason": (reason or "")[:300], "granted": granted})
        return granted

    @property
    def granted(self) -> int:
        return sum(1 for d in self.decisions if d["granted"])


def get_policy(name: str) -> ApprovalLog:
    """A fresh, logging policy by name: ``grant``, ``deny``, ``scope`` or ``scope:fam1,fam2``."""
    base, _, arg = name.partition(":")
    if base == "grant":
        return ApprovalLog(name, grant_all)
    if base == "deny":
        return ApprovalLog(name, deny_all)
    if base == "scope":
        fams = tuple(f for f in arg.split(",") if f) or None
        return ApprovalLog(name, scope_policy(fams))
    raise ValueError(f"unknown approval policy {name!r}; use one of {', '.join(POLICY_NAMES)} (or scope:fam1,fam2)")
