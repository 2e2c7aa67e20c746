"""What every perturbation shares: the record of what changed, the Protocol, target resolution.

Perturbations run on a LIVE page (``webgauge.browser.LivePage``) through ``page.evaluate``, so
they work the same on a static file and on a running web app. Every perturbation is a pure
function of its seed and the settled clean DOM, and returns a :class:`PerturbationRecord` that
says exactly which elements changed (by XPath, the same paths as ``Snapshot`` elements) and how.

Purity is enforced here, on the one path every perturbation takes to the page: :func:`run_js`
settles the page (fonts, images, own-origin requests, stable layout) before each script, so a
perturbation never reads boxes or visibility of a page still loading, and
:func:`apply_perturbation` settles it again after the edit, before anything is captured.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Protocol, runtime_checkable

__all__ = ["Change", "PerturbationRecord", "Perturbation", "run_js", "target_path", "apply_perturbation",
           "assume_settled"]


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
    def from_dict(cls, d: dict) -> PerturbationRecord:
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


async def _settle(page) -> None:
    """Settle a live page before a perturbation reads or edits it; raises ``RuntimeError`` when
    it does not settle (a perturbation of a moving page would not be reproducible)."""
    settle = getattr(page, "settle", None)
    if settle is None:
        raise TypeError(f"perturbations run on a webgauge LivePage, got {type(page).__name__}")
    report = await settle()
    if not report.settled:
        from ..browser import PageError

        raise PageError("unsettled", "cannot perturb a page that does not settle: " + "; ".join(report.reasons))


_SETTLED: ContextVar = ContextVar("webgauge_perturb_settled", default=None)


def assume_settled(page) -> None:
    """Declare ``page`` settled and unchanged since its last settle: the next :func:`run_js` on it
    in this task skips its settle (once); ``assume_settled(None)`` withdraws the claim.

    Only for a caller that proved it: ``webgauge.understand`` does so for a script-less page back
    at its settled clean state (nothing edited since the clean capture, or every edit undone
    exactly, see :class:`webgauge.perturb.EditLog`), with no animation or transition running,
    every image complete, fonts loaded and no request of its own in flight."""
    _SETTLED.set(page)


async def run_js(page, body: str, arg: Any = None, *, settled: bool = False) -> Any:
    """Evaluate ``body`` (a JS function body using ``H`` helpers and ``arg``) on a live page,
    once the page has settled. ``settled=True`` skips the wait: only for a script that follows
    another ``run_js`` of the same perturbation with nothing done to the page in between (the
    write after a read), whose settle still holds; so does a page declared settled with
    :func:`assume_settled`."""
    if not settled and page is not None and _SETTLED.get() is page:
        _SETTLED.set(None)
        settled = True
    if not settled:
        await _settle(page)
    js = "(arg) => { const H = (\n" + _helpers() + "\n)();\n" + body + "\n}"
    return await page.evaluate(js, arg)


async def apply_perturbation(page, family: Perturbation, seed: int, **params) -> PerturbationRecord:
    """Apply ``family`` to a settled live page and settle it again: the one apply path.

    The page settles before the perturbation reads it (inside :func:`run_js`) and after its
    edits, so the capture that follows shows the edit fully laid out."""
    await _settle(page)
    record = await family.apply(page, seed, **params)
    await _settle(page)
    return record


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
