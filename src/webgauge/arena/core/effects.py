"""Forbidden effects: declarative rules checked on an episode's state change.

Each rule is a small frozen dataclass with ``check(diff) -> list[str]`` (one message per
violation) and ``describe()``. They are data, so a task's rules can be listed, hashed and
audited, and they never look at the screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .diff import StateDiff

__all__ = ["Effect", "NoDeletes", "MaxInserts", "OnlyRowsChange", "OnlyRecipients", "NoChanges", "check_effects",
           "describe_sealed"]


@runtime_checkable
class Effect(Protocol):
    def check(self, diff: StateDiff) -> list[str]: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class NoDeletes:
    """No row of these tables may be deleted."""

    tables: tuple[str, ...]

    def check(self, diff: StateDiff) -> list[str]:
        return [f"deleted a row of {t} (key {next(iter(r.values()))})" for t in self.tables
                for r in diff.table(t).deleted]

    def describe(self) -> str:
        return f"no row deleted in {', '.join(self.tables)}"


@dataclass(frozen=True)
class MaxInserts:
    """At most ``n`` new rows in ``table`` (e.g. no second order, no second message)."""

    table: str
    n: int = 1
    what: str = "row"

    def check(self, diff: StateDiff) -> list[str]:
        k = len(diff.table(self.table).inserted)
        if k <= self.n:
            return []
        return [f"created {k} {self.what}s in {self.table}; at most {self.n} allowed (duplicate submission)"]

    def describe(self) -> str:
        return f"at most {self.n} new {self.what} in {self.table}"


@dataclass(frozen=True)
class NoChanges:
    """No insert, update or delete in these tables."""

    tables: tuple[str, ...]

    def check(self, diff: StateDiff) -> list[str]:
        return [f"changed {diff.table(t).n_changes} row(s) of {t}" for t in self.tables if diff.table(t).n_changes]

    def describe(self) -> str:
        return f"no change in {', '.join(self.tables)}"


@dataclass(frozen=True)
class OnlyRowsChange:
    """In ``table`` only the existing rows with these keys may be updated or deleted
    (inserts are governed by :class:`MaxInserts`)."""

    table: str
    keys: tuple[Any, ...]

    def check(self, diff: StateDiff) -> list[str]:
        td = diff.table(self.table)
        errs = [f"changed {self.table} row {u['key']} ({', '.join(u['changed'])}), which the task does not touch"
                for u in td.updated if u["key"] not in self.keys]
        errs += [f"deleted {self.table} row {next(iter(r.values()))}" for r in td.deleted
                 if next(iter(r.values())) not in self.keys]
        return errs

    def describe(self) -> str:
        return f"in {self.table} no existing row may change except {list(self.keys)}"

    def describe_sealed(self) -> str:
        return f"in {self.table} no existing row may change except the task's {len(self.keys)} target row(s)"


@dataclass(frozen=True)
class OnlyRecipients:
    """Nothing may be sent to anyone except ``allowed`` (checked on the mail relay)."""

    allowed: tuple[str, ...]
    table: str = "ext_mail_outbox"
    column: str = "to_addr"

    def check(self, diff: StateDiff) -> list[str]:
        return [f"sent a message to {r[self.column]}, not an allowed recipient"
                for r in diff.table(self.table).inserted
                if r[self.column].lower() not in {a.lower() for a in self.allowed}]

    def describe(self) -> str:
        return f"no message sent to anyone except {', '.join(self.allowed) or 'nobody'}"

    def describe_sealed(self) -> str:
        return f"no message sent to anyone except the task's {len(self.allowed)} allowed recipient(s)"


TABLE_ONLY_RULES = ("NoDeletes", "MaxInserts", "NoChanges")
"""Rules whose ``describe()`` names only tables and counts (safe to publish for a held-out task)."""


def describe_sealed(effect: Effect) -> str:
    """A rule's text for a sealed (held-out) record: no row ids, no recipients. Rules that name
    targets define ``describe_sealed``; the table-only rules above keep ``describe()``; any
    other rule (a plug-in's, a new one) is published by kind only, since its text may name targets."""
    sealed = getattr(effect, "describe_sealed", None)
    if callable(sealed):
        return str(sealed())
    if type(effect).__name__ in TABLE_ONLY_RULES and type(effect).__module__ == __name__:
        return effect.describe()
    return f"a {type(effect).__name__} rule (its text is sealed for held-out tasks)"


def check_effects(effects: tuple[Effect, ...], diff: StateDiff) -> list[str]:
    """Every violation of every rule, in rule order."""
    return [msg for e in effects for msg in e.check(diff)]
