"""Held-out slice audit: what a sealed record may show, and held-out content disjoint from public."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from webgauge.arena.core.effects import OnlyRecipients, OnlyRowsChange, describe_sealed
from webgauge.arena.core.records import EpisodeRecord
from webgauge.arena.runner import SEALED_SEED, seal_heldout_content
from webgauge.arena.tasks import FAMILIES, seed_state
from webgauge.arena.tasks.heldout import heldout_seeds, make_slices

SECRET = b"another-test-secret-with-enough-bytes-42"
MINE = ("wiki.", "admin.", "calendar.")  # the families this audit keeps disjoint (keys of FAMILIES)


@dataclass(frozen=True)
class _PluginRule:
    """A rule from outside the core whose text names its target (no describe_sealed)."""

    target: str

    def check(self, diff) -> list[str]:
        return []

    def describe(self) -> str:
        return f"only the row of {self.target} may change"


def _record(task) -> dict:
    return EpisodeRecord(task=task.describe(), task_id=task.id, base_task_id=task.id, family=task.family,
                         variant="base", variant_kind="base", slice="heldout", pattern=task.pattern, seed=task.seed,
                         visual=task.visual, repeat=0, agent="oracle", agent_kind="oracle", model=None, obs_mode="dom",
                         success=True, forbidden=False, item_id=f"oracle::{task.id}::r0").to_json()


def test_a_rule_without_a_sealed_text_is_published_by_kind_only():
    rule = _PluginRule("Ada Lind <ada.lind@example.test>")
    text = describe_sealed(rule)
    assert "Ada" not in text and "@" not in text and "_PluginRule" in text
    assert describe_sealed(OnlyRowsChange("admin_users", (17, 23))) .count("2 target row") == 1
    assert "x@y.test" not in describe_sealed(OnlyRecipients(("x@y.test",)))


def test_sealed_records_of_every_family_name_no_target_recipient_seed_or_instruction():
    sl = make_slices(SECRET, public_seeds=(0,), n_heldout=1)
    assert {t.family for t in sl.heldout} == {t.family for t in sl.public}
    for task in sl.heldout:
        sealed = seal_heldout_content(_record(task))
        text = json.dumps(sealed)
        assert task.instruction not in text and str(task.seed) not in text, task.family
        assert sealed["seed"] == sealed["task"]["seed"] == SEALED_SEED
        assert EpisodeRecord.from_json(sealed).slice == "heldout"  # still a valid record
        for e in task.forbidden_effects:
            for key in getattr(e, "keys", ()):
                assert not re.search(rf"[\[ ']{re.escape(str(key))}[\],']",
                                     " ".join(sealed["task"]["forbidden_effects"])), \
                    (task.family, key)
            for to in getattr(e, "allowed", ()):
                assert to not in text, (task.family, to)


_QUOTED = re.compile(r"(?:^|[\s(])'([^']+)'")
UI_LABELS = {"Show email column", "Retention (days)"}  # names of controls the task must use: the interface, not content


def test_heldout_instructions_quote_nothing_a_public_instruction_quotes():
    """Titles, summaries and names quoted in held-out instructions come from the held-out pools."""
    fams = {k: f for k, f in FAMILIES.items() if k.startswith(MINE)}
    public: dict[str, set[str]] = {k: set() for k in fams}
    for seed in range(40):
        state = seed_state(seed)
        for k, f in fams.items():
            public[k] |= set(_QUOTED.findall(f(seed, state).instruction))
    shared = {}
    for seed in heldout_seeds(SECRET, 8):
        state = seed_state(seed)
        for k, f in fams.items():
            common = set(_QUOTED.findall(f(seed, state).instruction)) & public[k] - UI_LABELS
            if common:
                shared[k] = sorted(common)
    assert not shared, shared
