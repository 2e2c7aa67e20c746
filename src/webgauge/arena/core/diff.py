"""Row-level differences between two state dumps (the "state change" of a step or episode).

Rows are keyed by their table's first column, which is the primary key of every arena table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["StateDiff", "TableDiff", "diff_states"]

State = dict[str, list[dict[str, Any]]]


@dataclass
class TableDiff:
    inserted: list[dict[str, Any]] = field(default_factory=list)
    deleted: list[dict[str, Any]] = field(default_factory=list)
    updated: list[dict[str, Any]] = field(default_factory=list)  # {"key", "before", "after", "changed": [cols]}

    @property
    def n_changes(self) -> int:
        return len(self.inserted) + len(self.deleted) + len(self.updated)


@dataclass
class StateDiff:
    tables: dict[str, TableDiff] = field(default_factory=dict)

    def table(self, name: str) -> TableDiff:
        return self.tables.get(name, TableDiff())

    @property
    def n_changes(self) -> int:
        return sum(t.n_changes for t in self.tables.values())

    @property
    def empty(self) -> bool:
        return self.n_changes == 0

    def changed_keys(self) -> set[tuple[str, Any]]:
        """``(table, key)`` of every changed row."""
        out: set[tuple[str, Any]] = set()
        for name, t in self.tables.items():
            for r in t.inserted + t.deleted:
                out.add((name, _key(r)))
            for u in t.updated:
                out.add((name, u["key"]))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {name: {"inserted": t.inserted, "deleted": t.deleted, "updated": t.updated}
                for name, t in self.tables.items() if t.n_changes}


def _key(row: dict[str, Any]) -> Any:
    return next(iter(row.values()))


def diff_states(before: State, after: State, ignore: tuple[str, ...] = ("sqlite_sequence",)) -> StateDiff:
    """What changed from ``before`` to ``after``, table by table, row by row."""
    out = StateDiff()
    for name in sorted(set(before) | set(after)):
        rows_before, rows_after = before.get(name), after.get(name)
        # a table not re-read, or read again equal (a state sent over HTTP is new lists of equal rows)
        if name in ignore or rows_before is rows_after or rows_before == rows_after:
            continue
        b = {_key(r): r for r in rows_before or []}
        a = {_key(r): r for r in rows_after or []}
        td = TableDiff()
        td.inserted = [a[k] for k in a if k not in b]
        td.deleted = [b[k] for k in b if k not in a]
        for k in a:
            if k in b and a[k] != b[k]:
                changed = sorted(c for c in set(a[k]) | set(b[k]) if a[k].get(c) != b[k].get(c))
                td.updated.append({"key": k, "before": b[k], "after": a[k], "changed": changed})
        if td.n_changes:
            out.tables[name] = td
    return out
