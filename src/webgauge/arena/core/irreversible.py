"""Irreversible controls, as each app declares them (never guessed from a CSS class).

Every app says which of its controls cannot be undone: ``AsgiApp.irreversible`` and
``Site.irreversible`` hold the accessible names of the buttons that send, pay, place an
order, delete or revoke. :class:`IrreversibleControls` maps each app's URL prefix to its
names; the environment's approval gate and its "moved" re-check ask it whether an action's
target is one of them (:meth:`IrreversibleControls.covers`), and the oracle asks it before
requesting approval. A control is matched by its accessible name (whitespace collapsed) and
by being a control (a button, link, menu item or submit input) on a page of the declaring
app, so a decoy button styled as dangerous but not declared is not gated, and a declared
control styled as harmless is.

An external app (:mod:`webgauge.arena.adapters.external`) passes its own declaration.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from ...browser import Element
    from .task import Task

__all__ = ["IrreversibleControls", "CONTROL_ROLES", "requires_irreversible"]

CONTROL_ROLES = frozenset({"button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "switch", "tab"})
"""Roles an activatable control can have (plus ``<button>`` and submit/button ``<input>`` tags)."""

_EPISODE = re.compile(r"^/e/[^/]+")


def _norm(name: str | None) -> str:
    return " ".join((name or "").split())


def _is_control(el: Element) -> bool:
    tag = (el.tag or "").lower()
    if tag == "button" or (el.role or "") in CONTROL_ROLES:
        return True
    return tag == "input" and (el.attrs.get("type") or "").lower() in ("submit", "button", "image")


@dataclass(frozen=True)
class IrreversibleControls:
    """Declared irreversible controls: URL prefix of an app -> accessible names of its controls.

    The prefix is a path inside the episode (``/shop``); the empty prefix covers every page
    (an external app that is served at its own origin).
    """

    by_prefix: Mapping[str, frozenset[str]]

    @classmethod
    def of(cls, declarations: Mapping[str, Iterable[str]]) -> IrreversibleControls:
        return cls({p.rstrip("/"): frozenset(_norm(n) for n in names if _norm(n)) for p, names in declarations.items()})

    def names_at(self, url: str) -> frozenset[str]:
        """The declared names of the app that serves ``url`` (a full URL or a path)."""
        path = _EPISODE.sub("", urlsplit(url).path if "://" in url else url.split("?")[0]) or "/"
        best, names = -1, frozenset[str]()
        for prefix, ns in self.by_prefix.items():
            if (prefix == "" or path == prefix or path.startswith(prefix + "/")) and len(prefix) > best:
                best, names = len(prefix), ns
        return names

    def covers(self, el: Element | None, url: str) -> bool:
        """Is ``el`` (an element of the page at ``url``) a declared irreversible control?"""
        return el is not None and _is_control(el) and _norm(el.name) in self.names_at(url)

    @property
    def all_names(self) -> frozenset[str]:
        return frozenset().union(*self.by_prefix.values()) if self.by_prefix else frozenset()


def requires_irreversible(task: Task, controls: IrreversibleControls) -> bool:
    """Does the task's own scripted solution activate a declared irreversible control?

    Read from the oracle's steps: a click (or key press) whose target is matched by one of the
    declared names (the built-in apps' declaration is :func:`webgauge.arena.apps.declared_controls`).
    The ``scope`` approval policy grants approval to such tasks only.
    """
    if task.oracle is None:
        return False
    names = controls.all_names
    for step in task.oracle():
        kind = type(step).__name__
        if kind == "ClickInRow" and _norm(step.button) in names:
            return True
        m = getattr(step, "target", None)
        if kind not in ("Click", "Press") or m is None or not hasattr(m, "name"):
            continue
        if any(v and _norm(v) in names for v in (m.name, m.name_contains, m.text)):
            return True
    return False
