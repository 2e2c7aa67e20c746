"""What every perturbation shares: the record of what changed, the Protocol, target resolution.

Perturbations run on a LIVE page (``webgauge.browser.LivePage``) through ``page.evaluate``, so
they work the same on a static file and on a running web app. Every perturbation is a
deterministic function of its seed and returns a :class:`PerturbationRecord` that says exactly
which elements changed (by XPath, the same paths as ``Snapshot`` elements) and how.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Protocol, runtime_checkable

__all__ = ["Change", "PerturbationRecord", "Perturbation", "run_js", "target_path"]


@dataclass
class Change:
    """One edit: the element's XPath before the edit, what was edited, old and new values."""

    path: str
    what: str
    before: Any = None
    after: Any = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class PerturbationRecord:
    """Exactly what a perturbation did to a page.

    ``tracked`` maps XPaths of protected elements (e.g. the call-to-action) before the edit to
    their XPaths after it, so checks can compare the same element across a DOM rewrite.
    """

    family: str
    seed: int
    params: dict = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)
    tracked: dict[str, str] = field(default_factory=dict)

    @property
    def changed_paths(self) -> list[str]:
        return [c.path for c in self.changes]

    def to_dict(self) -> dict:
        return {"family": self.family, "seed": self.seed, "params": self.params,
                "changes": [c.to_dict() for c in self.changes], "tracked": self.tracked}

    @classmethod
    def from_dict(cls, d: dict) -> "PerturbationRecord":
        return cls(family=d["family"], seed=d["seed"], params=d.get("params", {}),
                   changes=[Change(**c) for c in d.get("changes", [])], tracked=d.get("tracked", {}))


@runtime_checkable
class Perturbation(Protocol):
    """A perturbation family: ``await family.apply(page, seed, **params) -> PerturbationRecord``."""

    name: str

    async def apply(self, page, seed: int, **params) -> PerturbationRecord: ...


@lru_cache(maxsize=1)
def _helpers() -> str:
    return resources.files(__package__).joinpath("helpers.js").read_text()


async def run_js(page, body: str, arg: Any = None) -> Any:
    """Evaluate ``body`` (a JS function body using ``H`` helpers and ``arg``) on a live page."""
    js = "(arg) => { const H = (\n" + _helpers() + "\n)();\n" + body + "\n}"
    return await page.evaluate(js, arg)


async def target_path(page, target) -> str:
    """XPath (or ``css=`` selector) of a target: an ``Element``, an XPath, ``css=...`` or an
    element id from a capture of this page."""
    if hasattr(target, "path"):
        return target.path
    if not isinstance(target, str) or not target:
        raise TypeError(f"target must be an Element, an XPath, 'css=...' or an element id, got {target!r}")
    if target.startswith("/") or target.startswith("css="):
        return target
    snap = await page.capture(with_screenshot=False, with_aria=False)
    try:
        return snap.element(target).path
    except KeyError:
        raise ValueError(f"element id {target!r} is not on the page; pass an Element, an XPath "
                         "or a 'css=' selector") from None
