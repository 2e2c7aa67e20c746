"""Instruction variety: every task family, the arena's own and the real apps', words its tasks in at
least three sentence frames and gives at least 150 distinct instructions over the public seeds
0-199; no public instruction names its seed; held-out worlds frame their instructions with an
opening or closing that no public instruction has.

The real apps' tasks are built from their content functions (``content.world(seed)``), so this
needs no installed app. A sentence frame is the sequence of templates a task's instruction was
filled from (:func:`webgauge.arena.content.phrasing.recording`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest

from webgauge.arena.content.phrasing import recording
from webgauge.arena.core.task import Task
from webgauge.arena.realapps.leakage import APPS
from webgauge.arena.tasks import FAMILIES, seed_state
from webgauge.arena.tasks.heldout import heldout_seeds
from webgauge.arena.tasks.variety import MEASUREMENT_KEY

SEEDS = range(200)
MIN_FRAMES = 3
MIN_DISTINCT = 150
HELD = 8  # held-out worlds checked per family


@dataclass
class Variety:
    frames: set[tuple[str, ...]] = field(default_factory=set)
    instructions: set[str] = field(default_factory=set)
    openers: set[tuple[str, str]] = field(default_factory=set)  # (opening, closing) around the instruction


Builder = Callable[[int], Iterator[Callable[[], Task]]]  # seed -> the seed's task builders


def own_builders(seed: int) -> Iterator[Callable[[], Task]]:
    state = seed_state(seed)
    for fam in FAMILIES.values():
        yield lambda fam=fam: fam(seed, state)


def real_builders(seed: int) -> Iterator[Callable[[], Task]]:
    for source in (make() for make in APPS.values()):
        world = source.world(seed)
        for fam in source.families.values():
            yield lambda fam=fam, world=world: fam(world, seed)


def measure(builders: Builder, seeds) -> dict[str, Variety]:
    out: dict[str, Variety] = {}
    for seed in seeds:
        for build in builders(seed):
            with recording() as rec:
                task = build()
            v = out.setdefault(task.family, Variety())
            v.frames.add(rec.core)
            v.instructions.add(task.instruction)
            v.openers.add((rec.opener, rec.closer))
            assert not re.search(rf"\bseed\s*{task.seed}\b|\(s(eed)?\s*\d+\)", task.instruction, re.IGNORECASE), (
                f"{task.id} names its seed: {task.instruction!r}")
    return out


def check(measured: dict[str, Variety], label: str) -> list[str]:
    """The families below the bar (and the minimum, printed for the record)."""
    lo_frames = min(measured.items(), key=lambda kv: len(kv[1].frames))
    lo_distinct = min(measured.items(), key=lambda kv: len(kv[1].instructions))
    print(f"\n{label}: {len(measured)} families; fewest frames {len(lo_frames[1].frames)} ({lo_frames[0]}), "
          f"fewest distinct instructions over {len(SEEDS)} seeds {len(lo_distinct[1].instructions)} "
          f"({lo_distinct[0]})")
    return [f"{f}: {len(v.frames)} frames, {len(v.instructions)} distinct" for f, v in sorted(measured.items())
            if len(v.frames) < MIN_FRAMES or len(v.instructions) < MIN_DISTINCT]


@pytest.fixture(scope="module")
def real_public() -> dict[str, Variety]:
    return measure(real_builders, SEEDS)


@pytest.mark.timeout(1800)  # 200 worlds per app; the forum's (2,200 topics each) take a few minutes on a loaded machine
def test_real_app_families_have_three_frames_and_150_distinct_instructions(real_public):
    assert {f.split(".")[0] for f in real_public} >= {"roundup", "oscar"}
    assert len(real_public) == sum(len(make().families) for make in APPS.values())
    below = check(real_public, "real-app families")
    assert not below, below
    assert all(v.openers == {("", "")} for v in real_public.values()), "public instructions carry no framing"


@pytest.mark.timeout(1800)  # 58 families x 200 worlds: half a minute idle, a few minutes on a loaded machine
def test_own_families_have_three_frames_and_150_distinct_instructions():
    own = measure(own_builders, SEEDS)
    assert len(own) == len(FAMILIES)
    below = check(own, "own families")
    assert not below, below


def test_heldout_worlds_frame_real_app_instructions_apart_from_public_ones(real_public):
    held = measure(real_builders, heldout_seeds(MEASUREMENT_KEY, HELD))
    assert set(held) == set(real_public)
    for family, v in held.items():
        assert not v.instructions & real_public[family].instructions, family
        assert all(o or c for o, c in v.openers), f"{family}: a held-out instruction without its world's framing"
        assert len(v.openers) > 1, f"{family}: every held-out world frames it the same way"


def test_the_check_catches_a_family_with_one_frame_or_few_instructions():
    # a family that says the same thing at every seed, and one worded three ways with five targets
    import dataclasses
    import random

    from webgauge.arena.content.pools import phrase

    def planted(family: str, seed: int, say: Callable[[], str]) -> Callable[[], Task]:
        t = next(iter(real_builders(seed)))()
        return lambda: dataclasses.replace(t, id=f"{family}.s{seed}", family=family, instruction=say())

    def flat(seed: int) -> Iterator[Callable[[], Task]]:
        yield planted("flat", seed, lambda: phrase(random.Random(0), ("Do it.",)))
        yield planted("few", seed, lambda: phrase(random.Random(seed), ("Do {x}.", "Please do {x}.", "{x}, please."),
                                                  x=seed % 5))
        yield planted("fine", seed, lambda: phrase(random.Random(seed), ("Do {x}.", "Please do {x}.", "{x}, please."),
                                                   x=seed))

    below = check(measure(flat, SEEDS), "planted")
    assert [b.split(":")[0] for b in below] == ["few", "flat"], below

    def leaky(seed: int) -> Iterator[Callable[[], Task]]:
        yield planted("leak", seed, lambda: f"File it (seed {seed}).")

    with pytest.raises(AssertionError, match="names its seed"):
        measure(leaky, range(3))
