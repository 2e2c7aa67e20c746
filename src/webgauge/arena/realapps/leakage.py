"""How much of a real app's held-out slice can be made without the secret.

The real-app counterpart of :mod:`webgauge.arena.tasks.leakage`, measured the same way on the
apps' content functions (``content.world(seed)``: pure functions, so nothing is installed
or served). Per app and family:

- ``reproduced``: the share of held-out tasks (built at
  :func:`~webgauge.arena.tasks.heldout.heldout_seeds` of the secret, by default the stand-in
  :data:`~webgauge.arena.tasks.leakage.TARGET_KEY`) whose *target* some of ``n_worlds``
  secret-less worlds also hold. A task's target is every content value its instruction or
  expected answer names (:func:`~webgauge.arena.tasks.leakage.named_values`): a string stored
  in the held-out world that is not fixed vocabulary (found in at least a quarter of the public
  worlds) and not an identifier (:class:`~webgauge.arena.tasks.leakage.Vocabulary`). The
  secret-less worlds are held-out-range seeds of the public
  :data:`~webgauge.arena.tasks.variety.MEASUREMENT_KEY`: the same generator as the held-out
  slice, without the secret.
- ``template_public``: held-out instructions worded like a public one (public seeds 0-49):
  the same sentence frame, where the frame is the instruction's tokens that occur in at least
  a quarter of the family's public instructions, every other run of tokens folded into one
  placeholder. Real-app families word their tasks in three or more frames, and a held-out world
  rewrites its frame's set phrases and opens or closes it in its own way (as the arena's own
  families do), so this stays low; ``core_public``: held-out instructions that are, verbatim, a
  public one.
- ``seed_named``: held-out tasks whose instruction or answer spells out their seed (or its
  128-bit part). A held-out seed is the whole secret of its world: the public code rebuilds
  everything from it, so this must be 0.

A world becomes the strings it stores through its ``to_json()`` (what the seed script writes
into the app), or its dataclasses as they are. Apps are registered in :data:`APPS` (name ->
a function giving the app's ``world`` and ``FAMILIES``); adding one is one entry.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..content.pools import HELDOUT_BASE
from ..core.task import Task
from ..tasks.heldout import heldout_seeds
from ..tasks.leakage import (
    TARGET_KEY,
    FamilyLeak,
    Vocabulary,
    content_values,
    named_values,
    stored_strings,
    vocabulary_of,
)
from ..tasks.variety import MEASUREMENT_KEY

__all__ = ["APPS", "AppLeak", "AppSource", "app_leakage_text", "measure_app_leakage", "world_state"]


@dataclass(frozen=True)
class AppSource:
    """What the measure needs of a real app: its content function and its task families."""

    name: str
    world: Callable[[int], Any]
    families: Mapping[str, Callable[[Any, int], Task]]


def _roundup() -> AppSource:
    from .roundup.content import world
    from .roundup.tasks import FAMILIES

    return AppSource("roundup", world, FAMILIES)


def _oscar() -> AppSource:
    from .oscar.content import world
    from .oscar.tasks import FAMILIES

    return AppSource("oscar", world, FAMILIES)


def _mediawiki() -> AppSource:
    from .mediawiki.content import world
    from .mediawiki.tasks import FAMILIES

    return AppSource("mediawiki", world, FAMILIES)


def _trac() -> AppSource:
    from .trac.content import world
    from .trac.tasks import FAMILIES

    return AppSource("trac", world, FAMILIES)


def _spirit() -> AppSource:
    from .spirit.content import world
    from .spirit.tasks import FAMILIES

    return AppSource("spirit", world, FAMILIES)


APPS: dict[str, Callable[[], AppSource]] = {"roundup": _roundup, "mediawiki": _mediawiki, "oscar": _oscar,
                                            "trac": _trac, "spirit": _spirit}
"""App name -> its :class:`AppSource` (imported when measured)."""


@dataclass(frozen=True)
class AppLeak(FamilyLeak):
    """:class:`~webgauge.arena.tasks.leakage.FamilyLeak` of a real-app family, plus the tasks that name their seed."""

    app: str = ""
    seed_named: int = 0

    def to_dict(self) -> dict:
        return {"app": self.app, **super().to_dict(), "seed_named": self.seed_named}


def _data(obj: object) -> object:
    if hasattr(obj, "to_json"):
        return obj.to_json()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    if isinstance(obj, (list, tuple)):
        return [_data(x) for x in obj]
    return obj


def world_state(world: object) -> dict:
    """A world as the state shape :func:`~webgauge.arena.tasks.leakage.content_values` reads (one JSON cell)."""
    return {"world": [{"json": json.dumps(_data(world), ensure_ascii=False, default=str)}]}


def _vocabulary(src: AppSource, seeds: Iterable[int]) -> Vocabulary:
    """Values common to a quarter of the public worlds ``seeds``, and their numbered patterns."""
    return vocabulary_of(world_state(src.world(seed)) for seed in seeds)


_TOKEN = re.compile(r"\w+|[^\w\s]")


def _frame_words(instructions: Iterable[str]) -> frozenset[str]:
    """The tokens found in at least a quarter of a family's public instructions: its sentence frame's words."""
    instructions = list(instructions)
    counts: dict[str, int] = {}
    for text in instructions:
        for tok in set(_TOKEN.findall(text)):
            counts[tok] = counts.get(tok, 0) + 1
    return frozenset(t for t, n in counts.items() if 4 * n >= len(instructions))


def _frame(text: str, words: frozenset[str]) -> str:
    """``text`` with every run of tokens outside ``words`` folded into one ``_``: its wording alone."""
    out: list[str] = []
    for tok in _TOKEN.findall(text):
        tok = tok if tok in words else "_"
        if tok != "_" or out[-1:] != ["_"]:
            out.append(tok)
    return " ".join(out)


def _names_seed(task: Task) -> bool:
    text = f"{task.instruction}\n{task.answer or ''}"
    return any(s in text for s in {str(task.seed), str(task.seed - HELDOUT_BASE)} if len(s) >= 6)


def _families(src: AppSource, families: Iterable[str] | None) -> dict[str, Callable[[Any, int], Task]]:
    if families is None:
        return dict(src.families)
    want = set(families)
    fams = {k: f for k, f in src.families.items() if k in want}
    if not fams:
        raise ValueError(f"no {src.name} family matches {sorted(want)}; known: {', '.join(sorted(src.families))}")
    return fams


def measure_app_leakage(app: str, families: Iterable[str] | None = None, *, n_worlds: int = 1000,
                        n_heldout: int = 50, secret: bytes | None = None, public_seeds: Iterable[int] = range(50),
                        vocabulary_seeds: Iterable[int] = range(20)) -> list[AppLeak]:
    """Per family of ``app``: how many held-out targets ``n_worlds`` secret-less worlds hold, how
    many held-out instructions are worded like public ones, and how many name their seed (sorted
    by family; see the module doc). ``secret``: the held-out secret measured (default
    :data:`~webgauge.arena.tasks.leakage.TARGET_KEY`, a stand-in)."""
    if app not in APPS:
        raise KeyError(f"no leakage source for real app {app!r}; known: {', '.join(sorted(APPS))}")
    src = APPS[app]()
    fams = _families(src, families)
    vocab = _vocabulary(src, vocabulary_seeds)
    public: dict[str, list[str]] = {}
    for seed in public_seeds:
        w = src.world(seed)
        for make in fams.values():
            t = make(w, seed)
            public.setdefault(t.family, []).append(t.instruction)
    words = {f: _frame_words(texts) for f, texts in public.items()}
    wording = {f: {_frame(t, words[f]) for t in texts} for f, texts in public.items()}
    held: list[tuple[str, set[str], bool, bool, bool]] = []  # family, targets, same wording, verbatim, seed named
    for seed in heldout_seeds(secret if secret is not None else TARGET_KEY, n_heldout):
        w = src.world(seed)
        values = content_values(world_state(w), vocab)
        for make in fams.values():
            t = make(w, seed)
            named = named_values(t.instruction, values) | named_values(t.answer or "", values)
            same = _frame(t.instruction, words.get(t.family, frozenset())) in wording.get(t.family, ())
            held.append((t.family, named, same, t.instruction in public.get(t.family, ()), _names_seed(t)))
    wanted = set().union(*(named for _, named, *_ in held)) if held else set()
    found: set[str] = set()
    for seed in heldout_seeds(MEASUREMENT_KEY, n_worlds):
        found.update(v for v in stored_strings(world_state(src.world(seed))) if v in wanted)
    rows: dict[str, list[int]] = {}
    for family, named, same, exact, seed_named in held:
        r = rows.setdefault(family, [0] * 6)
        r[0] += 1
        r[1] += bool(named)
        r[2] += bool(named & found)
        r[3] += same
        r[4] += exact
        r[5] += seed_named
    return [AppLeak(f, r[0], r[1], r[2], r[3], r[4], n_worlds, app=app, seed_named=r[5])
            for f, r in sorted(rows.items())]


def app_leakage_text(rows: Iterable[AppLeak]) -> str:
    """The rows as a table: targets, reproduced share, public wording, verbatim public, seed named."""
    rows = list(rows)
    lines = [f"real-app held-out leakage: targets held by {rows[0].worlds if rows else 0} secret-less worlds",
             f"  {'family':20s} {'tasks':>6s} {'targets':>8s} {'reproduced':>11s} {'same wording':>13s} "
             f"{'verbatim':>9s} {'seed named':>11s}"]
    for r in rows:
        lines.append(f"  {r.family:20s} {r.heldout_tasks:6d} {r.with_target:8d} {100 * r.reproduced_share:10.1f}% "
                     f"{100 * r.template_share:12.1f}% {100 * r.core_share:8.1f}% {r.seed_named:11d}")
    return "\n".join(lines)
