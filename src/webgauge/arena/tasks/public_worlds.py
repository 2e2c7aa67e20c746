"""One pass over the public worlds, shared by the variety and leakage measures.

Both measures build every public seed's world (seeds 0-199) and each family's task in it:
variety keeps the instructions, oracle lengths and strata; leakage keeps the wording the
instructions were made from and the apps' fixed vocabulary (values common to the first 20
worlds). :func:`public_worlds` builds each world once and keeps all of it, so
``webgauge arena report --variety``, which runs both measures, builds the 200 worlds once
instead of twice (and the vocabulary's 20 a third time).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from .leakage import Vocabulary, VocabularyCounter

__all__ = ["PublicWorlds", "public_worlds"]


@dataclass
class PublicWorlds:
    """What each family's tasks in the public worlds ``seeds`` are (keyed by public family name)."""

    families: tuple[str, ...]  # the family keys measured
    seeds: tuple[int, ...]
    instructions: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    tasks: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    oracle_steps: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    stratum: dict[str, tuple[str, bool]] = field(default_factory=dict)  # pattern, visual
    signatures: dict[str, set[tuple]] = field(default_factory=lambda: defaultdict(set))  # templates and frame
    cores: dict[str, set[tuple]] = field(default_factory=lambda: defaultdict(set))  # templates alone
    vocabulary: Vocabulary = Vocabulary()  # of the worlds ``vocabulary_seeds`` (empty when none were asked)


def public_worlds(families: Iterable[str] | None = None, seeds: Iterable[int] = range(200),
                  vocabulary_seeds: Iterable[int] = range(20)) -> PublicWorlds:
    """Build each public world once and each family's task in it (``families``: keys or public
    names, None for all). A vocabulary seed outside ``seeds`` gets its world built too."""
    from ..content.phrasing import recording
    from . import seed_state
    from .variety import _wanted

    fams = _wanted(families)
    seeds = tuple(seeds)
    vocab_seeds = set(vocabulary_seeds)
    out = PublicWorlds(tuple(fams), seeds)
    counter = VocabularyCounter()
    for seed in seeds:
        state = seed_state(seed)
        if seed in vocab_seeds:
            counter.add(state)
        for fam in fams.values():
            with recording() as rec:
                t = fam(seed, state)
            out.instructions[t.family].add(t.instruction)
            out.tasks[t.family] += 1
            out.oracle_steps[t.family] += len(t.oracle())
            out.stratum[t.family] = (t.pattern, t.visual)
            out.signatures[t.family].add(rec.signature)
            out.cores[t.family].add(rec.core)
    for seed in sorted(vocab_seeds - set(seeds)):
        counter.add(seed_state(seed))
    if vocab_seeds:
        out.vocabulary = counter.vocabulary()
    return out
