"""The benchmark's unit: a :class:`Question`, and the per-page context task builders share.

A question is plain JSON: the prompt text, image paths relative to the benchmark folder, the
target answer and where it came from (``target_source``: ``generator``, ``dom`` (computed from
element boxes), ``heuristic``, ``human`` or ``consensus``, the last filled at scoring time),
the allowed answers (``choices``), and for the ``dom-heuristic`` baseline the snapshot shown and
the XPaths of the elements asked about. Robustness questions come in pairs that share ``pair``:
``variant`` is ``clean`` or the perturbation applied.
"""

from __future__ import annotations

import asyncio
import json
import random
import weakref
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Protocol, TypedDict, cast
from urllib.parse import urlsplit

from ..browser import Element
from ..perturb import EditLog, assume_settled
from .images import ImageStore

__all__ = ["TASKS", "Question", "QuestionDict", "QuestionMeta", "PageContext", "TaskBuilder", "SnapshotStore",
           "hide_caret", "snapshot_dict"]

TASKS = ("position", "ui_group", "form_fill", "hint_text", "color", "text", "layout", "safety")


class QuestionMeta(TypedDict, total=False):
    """What a question records beside its target; each task fills the keys it has."""
    label: str  # the element's label (ui_group, form_fill, hint_text, text)
    placeholder: str  # form_fill: the field's placeholder
    page_height: int  # position: the page's height in CSS px
    labels: list[str]  # position: the compared elements' labels
    perturbation: dict[str, Any]  # robustness: the edit's record (PerturbationRecord.to_dict())
    changed_pixels: float  # robustness: the share of pixels the edit changed
    perturbed_label: str  # text: the label after the edit
    extra: bool  # text: an extra kind (not in the paper's set)
    fallbacks: list[dict[str, str]]  # text: the buttons tried before the one used, and why each failed
    replaced_label: dict[str, Any]  # a human correction: the target and source it replaced
    annotator: str  # a human correction: who made it


class QuestionDict(TypedDict):
    """A question as its JSONL row (``Question.to_dict``; ``Question.from_dict`` reads it back)."""
    id: str
    task: str
    page: str
    source: str
    prompt_id: str
    question: str
    images: list[str]
    target: Any
    target_source: str
    difficulty: str
    variant: str
    pair: str | None
    choices: list[str]
    snapshot: str
    elements: list[str]
    meta: QuestionMeta


@dataclass
class Question:
    """One benchmark question (see module docstring)."""

    id: str
    task: str
    page: str
    source: str
    prompt_id: str
    question: str
    images: list[str]
    target: Any
    target_source: str
    difficulty: str = "all"
    variant: str = "clean"
    pair: str | None = None
    choices: list[str] = field(default_factory=list)
    snapshot: str = ""
    elements: list[str] = field(default_factory=list)
    meta: QuestionMeta = field(default_factory=lambda: QuestionMeta())

    def to_dict(self) -> QuestionDict:
        return cast(QuestionDict, asdict(self))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Question:
        return cls(**d)


_ELEMENT_FIELDS = tuple(f.name for f in fields(Element))


def snapshot_dict(snapshot) -> dict:
    """``snapshot.to_dict()``, the same dict, made without ``dataclasses.asdict`` (which deep-copies
    every field of every element: a sixth of a build's main-thread time)."""
    d = replace(snapshot, elements=[]).to_dict()
    els = []
    for e in snapshot.elements:
        row = {k: getattr(e, k) for k in _ELEMENT_FIELDS}
        row["box"], row["attrs"] = list(e.box), dict(e.attrs)
        els.append(row)
    d["elements"] = els
    return d


_HIDE_CARET_JS = """async () => {
  const field = (a) => !!a && (a.isContentEditable || a.matches('input, textarea'));
  // autofocus is applied at the first rendering update after the load, which may not have run yet
  const auto = [...document.querySelectorAll('[autofocus]')].some(field);
  if (auto && !field(document.activeElement))
    await new Promise((done) => { requestAnimationFrame(() => setTimeout(done, 0)); setTimeout(done, 500); });
  if (!auto && !field(document.activeElement)) return false;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync('*, *::before, *::after { caret-color: transparent !important; }');
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  return true;
}"""


async def hide_caret(live) -> bool:
    """Hide the text caret of a page that loaded with a focused text field (``autofocus``): it
    blinks, so two captures of the same page differed by it (page 2293 of the shared corpus).
    An adopted style sheet makes every caret transparent: no node or attribute is added, the
    element keeps its focus (and focus ring), and the pixels are those of the caret's off phase.
    Returns whether the page had such a field: a focused one, or one with ``autofocus`` (waited for a
    frame when not focused yet: the browser focuses it at its first rendering update after the load,
    and in the headless shell under load the check once ran before that). Call after every load or
    reload. The build reloads such a page between its edits instead of undoing them (see
    ``PageContext.begin_edit``)."""
    return bool(await live.evaluate(_HIDE_CARET_JS))


class SnapshotStore:
    """Writes the element tables of captures (no PNG) under ``snapshots/<id>.json``, without
    ``aria`` and ``blocked_requests``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        (self.root / "snapshots").mkdir(parents=True, exist_ok=True)
        self._written: dict[str, weakref.ref] = {}  # snapshot id -> the capture written there

    def put(self, snap_id: str, snapshot) -> str:
        ref = self._written.get(snap_id)
        if ref is not None and ref() is snapshot:  # every task stores the same clean capture
            return snap_id
        self._written[snap_id] = weakref.ref(snapshot)
        d = snapshot_dict(snapshot)
        d.pop("aria", None)
        # the external requests the page made and the browser blocked depend on when the browser
        # parsed and styled the page (a race in the browser, not page content): not written
        d.pop("blocked_requests", None)
        parts = urlsplit(snapshot.url)
        origin = f"{parts.scheme}://{parts.netloc}" if parts.netloc else None
        text = json.dumps(d, sort_keys=True)
        if origin:  # the loopback port changes from build to build: keep URLs origin-relative
            text = text.replace(origin, "")
        (self.root / "snapshots" / f"{snap_id}.json").write_text(text)
        return snap_id


@dataclass
class PageContext:
    """Everything a task builder needs for one page: the live page, its clean capture,
    generator truth (synthetic pages only), a seeded RNG and the stores to write into."""

    page_id: str
    source: str
    live: Any
    clean: Any
    truth: dict | None
    rng: random.Random
    seed: int
    images: ImageStore
    snapshots: SnapshotStore
    crops: int = 4
    all_layout_levels: bool = False
    drops: Counter = field(default_factory=Counter)
    checks: Counter = field(default_factory=Counter)
    noop: Counter = field(default_factory=Counter)
    sizes: list = field(default_factory=list)
    rejected: list = field(default_factory=list)
    #: text kinds rejected on a page before the next kind was tried ("text-shuffle->text-reverse": n)
    fallbacks: Counter = field(default_factory=Counter)
    #: our extra perturbations (the homoglyph) rejected by a check: reported, never a page drop
    extra_rejected: Counter = field(default_factory=Counter)
    reload_every_edit: bool = False
    #: the page's caret was hidden (:func:`hide_caret`): its edits are never undone in place
    caret_hidden: bool = False
    stats: Counter = field(default_factory=Counter)
    dirty: bool = False
    #: the page is its settled clean state: nothing edited since the clean capture, or every edit
    #: undone exactly (the next edit's first script need not settle it again, see begin_edit)
    at_clean: bool = True
    _log: Any = None
    _from_clean: bool = False
    _drawing: dict = field(default_factory=dict)

    def draw(self, make_png) -> str:
        """Start drawing a question image (``make_png()`` returns its PNG bytes) in a worker
        thread and return a placeholder for its path; the page's builders go on meanwhile (the
        browser renders the next perturbation while Pillow encodes). :meth:`drawn_images`
        resolves the placeholders once the page's questions are built. The image is the same
        as drawn in place: only when it is encoded changes."""
        key = f"\0pending-image-{len(self._drawing)}"
        self._drawing[key] = asyncio.ensure_future(asyncio.to_thread(lambda: self.images.put(make_png())))
        return key

    async def drawn_images(self) -> dict[str, str]:
        """Wait for every image started with :meth:`draw`: ``{placeholder: path}``. Raises the
        first drawing error (after all have finished)."""
        keys, futs = list(self._drawing), list(self._drawing.values())
        self._drawing = {}
        done = await asyncio.gather(*futs, return_exceptions=True)
        for res in done:
            if isinstance(res, BaseException):
                raise res
        return dict(zip(keys, done, strict=True))

    def by_html_id(self, snapshot=None) -> dict:
        """Elements of a capture keyed by their HTML ``id`` attribute."""
        snap = snapshot or self.clean
        return {e.attrs["id"]: e for e in snap.elements if e.attrs.get("id")}

    def qid(self, task: str, n: int | str) -> str:
        return f"{task}-{self.page_id}-{n}"

    async def begin_edit(self) -> None:
        """Call before editing the live page: make sure it is the clean page (reload it if an
        earlier edit could not be undone exactly) and start recording the edits.

        When the page is provably still its settled clean state (a script-less page, nothing
        edited since the clean capture or every edit undone exactly, and at the start of the log
        no animation or transition running, every image loaded, fonts loaded, no request of its
        own in flight), the perturbation's first script skips its settle
        (:func:`webgauge.perturb.assume_settled`): a page with no script and nothing pending
        cannot move, and its DOM is the one that settled."""
        if self.dirty:
            await self._reload()
            self.dirty = False
            self.at_clean = False
            self.stats["reloads"] += 1
        self._from_clean, self.at_clean = self.at_clean, False
        if self.caret_hidden and not self.reload_every_edit:
            # under the caret-hiding style sheet an undo was not pixel-exact (page 2293: the
            # anti-aliased corners of the buttons it had recolored differed by one level under the
            # low-contrast filter that came next): such a page is reloaded between its edits
            self.stats["not undone: caret hidden"] += 1
        elif not self.reload_every_edit:
            # no settle needed here: the log reads only the DOM, which a script-less page does
            # not change while it settles; the edit itself settles the page before it reads it
            self._log = EditLog(self.live)
            await self._log.start()
            if self._from_clean and self._log.quiet and not self.live.pending_requests():
                assume_settled(self.live)
                self.stats["settles skipped"] += 1

    async def end_edit(self) -> None:
        """Call once the edited page has been captured: undo the edits where that is provably
        exact (:class:`webgauge.perturb.EditLog`), else leave the page to be reloaded before
        the next edit (never after the last one: nothing reads the page then)."""
        assume_settled(None)  # an edit that ran no perturbation script leaves no claim behind
        log, self._log = self._log, None
        if log is not None and await log.undo():
            self.stats["undone"] += 1
            self.at_clean = self._from_clean
            return
        self.dirty = True
        if self.reload_every_edit:  # the old path, kept for the bench: reload after every edit
            await self._reload()
            self.dirty = False
            self.stats["reloads"] += 1
        elif log is not None:
            self.stats["not undone: " + (log.why or "not eligible")] += 1

    async def reset(self) -> None:
        """Reload the page now, so the next edit starts from the clean DOM."""
        await self._reload()
        self.dirty = False
        self.at_clean = False

    async def _reload(self) -> None:
        await self.live.reload()
        # animations and transitions stand still at a fixed point (finished, or an endless one
        # cancelled; ones an edit starts frozen as they start): a perturbation reads
        # computed colours and boxes, which a running animation would make depend on the machine's load
        await self.live.freeze_animations()
        await hide_caret(self.live)


class TaskBuilder(Protocol):
    """Builds one task's questions for one page: ``await builder(ctx) -> list[Question]``."""

    name: str

    async def __call__(self, ctx: PageContext) -> list[Question]: ...
