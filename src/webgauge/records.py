"""Typed, versioned result records: what every suite writes into a run directory.

Each suite declares its record types as dataclasses that subclass :class:`Record`, with a
``SCHEMA`` name and a ``VERSION``. :meth:`Record.to_json` writes the fields plus a
``"schema": "<name>/<version>"`` tag; :meth:`Record.from_json` reads them back and fails
with a :class:`RecordSchemaError` that names both versions when the stored record was
written by another version (or by webgauge before records were typed). Everything a
report groups by (model, agent, observation mode, variant, slice, seed, repeat) is a
field, never parsed out of an item id.

>>> @dataclass
... class Answer(Record):
...     SCHEMA: ClassVar[str] = "example.answer"
...     VERSION: ClassVar[int] = 1
...     model: str
...     text: str
>>> Answer.from_json(Answer("m", "A").to_json())
Answer(model='m', text='A')
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

__all__ = ["Record", "RecordSchemaError", "record_types", "record_type"]

R = TypeVar("R", bound="Record")

_REGISTRY: dict[str, type[Record]] = {}


class RecordSchemaError(ValueError):
    """A stored record does not match the record type that reads it."""


@dataclass
class Record:
    """Base of every stored record. Subclasses are dataclasses with JSON-native fields.

    Fields may be ``str``, ``int``, ``float``, ``bool``, ``None``, lists and dicts of
    those, or other :class:`Record` subclasses (nested, and lists of them), which are
    written as their own tagged JSON.
    """

    SCHEMA: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.SCHEMA:
            other = _REGISTRY.get(cls.SCHEMA)
            if other is not None and other.__qualname__ != cls.__qualname__:
                raise TypeError(
                    f"record schema {cls.SCHEMA!r} is declared twice ({other.__qualname__}, {cls.__qualname__})")
            _REGISTRY[cls.SCHEMA] = cls

    @classmethod
    def schema_tag(cls) -> str:
        """``"<name>/<version>"``, the tag written into every record of this type."""
        if not cls.SCHEMA:
            raise TypeError(f"{cls.__qualname__} declares no SCHEMA name")
        return f"{cls.SCHEMA}/{cls.VERSION}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict of the fields, tagged with ``schema``."""
        out: dict[str, Any] = {"schema": self.schema_tag()}
        for f in dataclasses.fields(self):
            out[f.name] = _dump(getattr(self, f.name))
        return out

    @classmethod
    def from_json(cls: type[R], data: dict[str, Any]) -> R:
        """Read a record written by :meth:`to_json` (same schema name and version)."""
        if not isinstance(data, dict):
            raise RecordSchemaError(f"a {cls.schema_tag()} record must be a JSON object, got {type(data).__name__}")
        tag = data.get("schema")
        if tag is None:
            raise RecordSchemaError(
                f"this record has no schema tag: it was written by webgauge before typed records "
                f"(expected {cls.schema_tag()}); re-run the command that produced it with this version")
        if tag != cls.schema_tag():
            raise RecordSchemaError(
                f"record schema is {tag}, but this webgauge reads {cls.schema_tag()}; re-run the command that "
                f"produced it with this version, or read it with the webgauge version that wrote it")
        hints = typing.get_type_hints(cls)
        kwargs: dict[str, Any] = {}
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names - {"schema"})
        if unknown:
            raise RecordSchemaError(f"{tag} record has fields this version does not know: {unknown}")
        for f in dataclasses.fields(cls):
            if f.name in data:
                kwargs[f.name] = _load(hints.get(f.name), data[f.name])
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise RecordSchemaError(f"{tag} record lacks the required field {f.name!r}")
        return cls(**kwargs)


def record_types() -> dict[str, type[Record]]:
    """Every record type imported so far, by schema name."""
    return dict(_REGISTRY)


def record_type(tag: str) -> type[Record]:
    """The record type for a ``"<name>/<version>"`` tag (its module must be imported)."""
    name, _, version = tag.rpartition("/")
    cls = _REGISTRY.get(name)
    if cls is None:
        raise RecordSchemaError(f"unknown record schema {tag!r}; known: {sorted(_REGISTRY)}")
    if str(cls.VERSION) != version:
        raise RecordSchemaError(f"record schema is {tag}, but this webgauge reads {cls.schema_tag()}")
    return cls


def _dump(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_json()
    if isinstance(value, (list, tuple)):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _dump(v) for k, v in value.items()}
    return value


def _record_class(tp: Any) -> type[Record] | None:
    return tp if isinstance(tp, type) and issubclass(tp, Record) else None


def _load(tp: Any, value: Any) -> Any:
    """Rebuild nested records (``X``, ``X | None``, ``list[X]``, ``dict[str, X]``)."""
    if value is None or tp is None:
        return value
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        recs = [a for a in args if _record_class(a)]
        return _load(recs[0], value) if recs and isinstance(value, dict) else value
    if cls := _record_class(tp):
        return cls.from_json(value)
    if origin in (list, tuple) and args and _record_class(args[0]) and isinstance(value, list):
        return [args[0].from_json(v) for v in value]
    if origin is dict and len(args) == 2 and _record_class(args[1]) and isinstance(value, dict):
        return {k: args[1].from_json(v) for k, v in value.items()}
    return value
