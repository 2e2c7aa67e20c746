"""Helpers shared by task families: reading rows out of a state dump."""

from __future__ import annotations

from typing import Any

__all__ = ["State", "rows_by", "new_rows", "with_article"]

State = dict[str, list[dict[str, Any]]]


_SILENT_H = ("hour", "honest", "honour", "heir")
_YOU_SOUND = ("uni", "use", "usu", "uti", "eu", "one", "once")


def with_article(noun: str) -> str:
    """``noun`` after the indefinite article its first sound takes: "an Onyx lamp", "a Tan lamp"."""
    w = noun.lower()
    vowel = w.startswith(_SILENT_H) or (w[:1] in "aeiou" and not w.startswith(_YOU_SOUND))
    return f"{'an' if vowel else 'a'} {noun}"


def rows_by(state: State, table: str, key: str) -> dict[Any, dict]:
    """Rows of ``table`` keyed by column ``key`` (the last row wins on duplicates)."""
    return {r[key]: r for r in state.get(table, [])}


def new_rows(state: State, table: str, old_ids: set, key: str = "id") -> list[dict]:
    """Rows whose ``key`` was not in the seed."""
    return [r for r in state.get(table, []) if r[key] not in old_ids]
