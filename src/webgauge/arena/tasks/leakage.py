"""How much of the held-out slice can be made without the secret.

Two numbers per family, measured by building worlds and tasks (no browser):

- ``reproduced``: the share of held-out tasks whose *target* a thousand worlds built from
  seeds chosen without the secret also contain. A task's target is every content value its
  instruction or expected answer names: a value stored in the held-out world (a product
  line, a page title, a person, a team, a room, an email address, ...) that is not part of
  the apps' fixed vocabulary (a value found in at least a quarter of the public worlds, such
  as a colour, a size, a role or a status) and not an identifier (a value that is at least 30%
  digits, such as ``AS-5048`` or a date, or a public pattern with a number in it, such as
  ``Reorder request 417``: those are drawn from small numeric ranges in every world and name
  nothing by themselves). The task counts as reproduced if *any* of its
  target values is stored in any of the secret-less worlds. The secret-less worlds are
  held-out-range seeds derived from a public key, so they run exactly the generator the
  held-out slice runs, with the one thing missing an attacker lacks.
- ``template_public``: the share of held-out instructions whose wording (the sentence
  templates used and the frame around them) is also the wording of a public instruction of
  the family (public seeds 0-199); ``core_public`` ignores the frame and compares the
  templates alone.

Families whose held-out instructions name no content value (they ask about counts or
codes only) report ``with_target = 0``; their reproduced share is 0 of 0.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tqdm import tqdm

from .public_worlds import PublicWorlds, Vocabulary, public_worlds, stored_strings, vocabulary_of

__all__ = ["FamilyLeak", "Vocabulary", "measure_leakage", "TARGET_KEY", "content_values",
           "named_values", "public_vocabulary", "stored_strings", "vocabulary_of"]

TARGET_KEY = b"webgauge-arena-leakage-target-key-v1"
"""The stand-in secret whose held-out slice is measured when no secret is given (reproducible numbers)."""


@dataclass(frozen=True)
class FamilyLeak:
    family: str
    heldout_tasks: int
    with_target: int  # held-out tasks naming at least one content value
    reproduced: int  # of those, tasks with a value that some secret-less world stores
    template_public: int  # held-out instructions worded exactly like a public one (frame and templates)
    core_public: int  # held-out instructions whose templates (frame aside) a public one uses
    worlds: int  # secret-less worlds searched

    @property
    def reproduced_share(self) -> float:
        return self.reproduced / self.with_target if self.with_target else 0.0

    @property
    def template_share(self) -> float:
        return self.template_public / self.heldout_tasks if self.heldout_tasks else 0.0

    @property
    def core_share(self) -> float:
        return self.core_public / self.heldout_tasks if self.heldout_tasks else 0.0

    def to_dict(self) -> dict:
        return {"family": self.family, "heldout_tasks": self.heldout_tasks, "with_target": self.with_target,
                "reproduced": self.reproduced, "reproduced_share": round(self.reproduced_share, 4),
                "template_public": self.template_public, "template_share": round(self.template_share, 4),
                "core_public": self.core_public, "core_share": round(self.core_share, 4), "worlds": self.worlds}


_NO_VOCABULARY = Vocabulary()


def content_values(state: dict, vocabulary: Vocabulary = _NO_VOCABULARY) -> set[str]:
    """The content values a world stores (see the module doc)."""
    return {v for v in set(stored_strings(state)) if vocabulary.is_content(v)}


def _spans(text: str, limit: int = 80) -> Iterator[str]:
    """Every substring of ``text`` that starts and ends at a word boundary (up to ``limit`` characters)."""
    starts = [i for i, c in enumerate(text) if c.isalnum() and (i == 0 or not text[i - 1].isalnum())]
    ends = [j for j in range(1, len(text) + 1)
            if (text[j - 1].isalnum() or text[j - 1] == ")") and (j == len(text) or not text[j].isalnum())]
    for i in starts:
        for j in ends:
            if i < j <= i + limit:
                yield text[i:j]


def named_values(text: str, values: set[str]) -> set[str]:
    """The ``values`` that ``text`` names (as whole words)."""
    return {s for s in _spans(text) if s in values}


def public_vocabulary(seeds: Iterable[int] = range(20)) -> Vocabulary:
    """The :class:`Vocabulary` of the public worlds ``seeds``."""
    from . import seed_state

    return vocabulary_of(seed_state(seed) for seed in seeds)


def measure_leakage(families: Iterable[str] | None = None, *, n_worlds: int = 1000, n_heldout: int = 50,
                    secret: bytes | None = None, public_seeds: Iterable[int] = range(200),
                    vocabulary_seeds: Iterable[int] = range(20), public: PublicWorlds | None = None,
                    progress: bool = False) -> list[FamilyLeak]:
    """Per family: how many held-out targets ``n_worlds`` secret-less worlds reproduce, and how
    many held-out instructions are worded like public ones (sorted by family).

    ``secret`` is the held-out secret whose slice is measured (default :data:`TARGET_KEY`, a
    stand-in; pass the real one to measure the real slice). The secret-less worlds are
    held-out-range seeds of the public :data:`~webgauge.arena.tasks.variety.MEASUREMENT_KEY`.
    ``public`` (from :func:`~webgauge.arena.tasks.public_worlds.public_worlds`, with a vocabulary)
    stands for ``families``, ``public_seeds`` and ``vocabulary_seeds``: its worlds are not built again.
    ``progress`` shows a bar over the secret-less worlds."""
    from ..content.phrasing import recording
    from . import seed_state
    from .heldout import heldout_seeds
    from .variety import MEASUREMENT_KEY

    if public is None:
        public = public_worlds(families, public_seeds, vocabulary_seeds)
    fams = public.functions()
    vocab = public.vocabulary
    held: list[tuple[str, set[str], bool, bool]] = []  # family, target values, same wording, same core
    for seed in heldout_seeds(secret if secret is not None else TARGET_KEY, n_heldout):
        state = seed_state(seed)
        values = content_values(state, vocab)
        for fam in fams.values():
            with recording() as rec:
                t = fam(seed, state)
            named = named_values(t.instruction, values) | named_values(t.answer or "", values)
            held.append((t.family, named, rec.signature in public.signatures.get(t.family, ()),
                         rec.core in public.cores.get(t.family, ())))
    wanted = set().union(*(named for _, named, _, _ in held)) if held else set()
    found: set[str] = set()
    for seed in tqdm(heldout_seeds(MEASUREMENT_KEY, n_worlds), desc="secret-less worlds", unit="world",
                     disable=not progress):
        found.update(v for v in stored_strings(seed_state(seed)) if v in wanted)
    rows: dict[str, list[int]] = {}
    for family, named, same, core in held:
        r = rows.setdefault(family, [0, 0, 0, 0, 0])
        r[0] += 1
        r[1] += bool(named)
        r[2] += bool(named & found)
        r[3] += same
        r[4] += core
    return [FamilyLeak(f, r[0], r[1], r[2], r[3], r[4], n_worlds) for f, r in sorted(rows.items())]


def random_secret() -> bytes:
    """A fresh secret, for a measurement nobody can have prepared for."""
    return secrets.token_bytes(32)
