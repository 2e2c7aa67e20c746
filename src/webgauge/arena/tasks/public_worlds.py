"""One pass over the public worlds, shared by the variety and leakage measures.

Both measures build every public seed's world (seeds 0-199) and each family's task in it:
variety keeps the instructions, oracle lengths and strata; leakage keeps the wording the
instructions were made from and the apps' fixed vocabulary (values common to the first 20
worlds). :func:`public_worlds` builds each world once and keeps all of it, so
``webgauge arena report --variety``, which runs both measures, builds the 200 worlds once
instead of twice (and the vocabulary's 20 a third time).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

__all__ = ["PublicWorlds", "public_worlds", "Vocabulary", "VocabularyCounter", "vocabulary_of", "stored_strings"]


def stored_strings(state: dict) -> Iterator[str]:
    """Every string a world stores (JSON cells opened into their string leaves)."""
    for rows in state.values():
        for row in rows:
            for v in row.values():
                if not isinstance(v, str):
                    continue
                yield v
                if v[:1] in "{[":
                    try:
                        yield from _leaves(json.loads(v))
                    except ValueError:
                        pass


def _leaves(obj: object) -> Iterator[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _leaves(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _leaves(v)


_DIGITS = re.compile(r"\d+")


def _skeleton(v: str) -> str:
    return _DIGITS.sub("#", v)


@dataclass(frozen=True)
class Vocabulary:
    """What every world has: values common to the public worlds, and the patterns of their numbered values."""

    values: frozenset[str] = frozenset()
    patterns: frozenset[str] = frozenset()

    def is_content(self, v: str) -> bool:
        """Long enough, has letters, not fixed vocabulary, not an identifier (see the module doc)."""
        if len(v) < 3 or len(v) > 80 or not any(c.isalpha() for c in v) or v in self.values:
            return False
        digits = sum(c.isdigit() for c in v)
        return digits < 0.3 * len(v) and not (digits and _skeleton(v) in self.patterns)


def vocabulary_of(states: Iterable[dict]) -> Vocabulary:
    """The :class:`Vocabulary` of these worlds' states: values found in at least a quarter of them,
    and the numbered patterns of all their values."""
    counter = VocabularyCounter()
    for state in states:
        counter.add(state)
    return counter.vocabulary()


class VocabularyCounter:
    """:func:`vocabulary_of` one world at a time (a pass that builds the worlds for more than this)."""

    def __init__(self) -> None:
        self.worlds = 0
        self.counts: dict[str, int] = {}
        self.patterns: set[str] = set()

    def add(self, state: dict) -> None:
        self.worlds += 1
        for v in set(stored_strings(state)):
            self.counts[v] = self.counts.get(v, 0) + 1
            if any(c.isdigit() for c in v):
                self.patterns.add(_skeleton(v))

    def vocabulary(self) -> Vocabulary:
        n = self.worlds
        return Vocabulary(frozenset(v for v, k in self.counts.items() if 4 * k >= n), frozenset(self.patterns))


def _wanted(families: Iterable[str] | None) -> dict:
    """Family key -> function for the families asked for (by key or by public family name)."""
    from . import FAMILIES, seed_state

    if families is None:
        return dict(FAMILIES)
    want = set(families)
    keys = {k: f for k, f in FAMILIES.items() if k in want}
    rest = want - set(keys)
    if rest:  # public names (``mail.forward``) differ from some keys (``work.forward_mail``): map them once
        state = seed_state(0)
        keys.update({k: f for k, f in FAMILIES.items() if k not in keys and f(0, state).family in rest})
    if not keys:
        raise ValueError(f"no family matches {sorted(want)}; known: {', '.join(sorted(FAMILIES))}")
    return keys


@dataclass
class PublicWorlds:
    """What each family's tasks in the public worlds ``seeds`` are (keyed by public family name)."""

    families: tuple[str, ...]  # the family keys measured
    instructions: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    tasks: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    oracle_steps: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    stratum: dict[str, tuple[str, bool]] = field(default_factory=dict)  # pattern, visual
    signatures: dict[str, set[tuple]] = field(default_factory=lambda: defaultdict(set))  # templates and frame
    cores: dict[str, set[tuple]] = field(default_factory=lambda: defaultdict(set))  # templates alone
    vocabulary: Vocabulary = Vocabulary()  # of the worlds ``vocabulary_seeds`` (empty when none were asked)

    def functions(self) -> dict:
        """Family key -> family function, for the families measured."""
        from . import FAMILIES

        return {k: FAMILIES[k] for k in self.families}


def public_worlds(families: Iterable[str] | None = None, seeds: Iterable[int] = range(200),
                  vocabulary_seeds: Iterable[int] = range(20), progress: bool = False) -> PublicWorlds:
    """Build each public world once and each family's task in it (``families``: keys or public
    names, None for all). A vocabulary seed outside ``seeds`` gets its world built too.
    ``progress`` shows a bar over the worlds."""
    from tqdm import tqdm

    from ..content.phrasing import recording
    from . import seed_state

    fams = _wanted(families)
    seeds = tuple(seeds)
    vocab_seeds = set(vocabulary_seeds)
    out = PublicWorlds(tuple(fams))
    counter = VocabularyCounter()
    for seed in tqdm(seeds, desc="public worlds", unit="world", disable=not progress):
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
