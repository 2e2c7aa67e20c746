"""Entity pools and held-out hygiene: disjoint pools, 128-bit seeds, salted hashes, sealed rules."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from webgauge.arena.content.pools import (
    HELDOUT_BASE,
    POOLS,
    Pool,
    phrase,
    pool_for,
    pool_sizes,
    slice_of_seed,
    slice_of_value,
)
from webgauge.arena.core.records import EpisodeRecord
from webgauge.arena.outputs.package import _seal
from webgauge.arena.tasks.heldout import heldout_seeds, instruction_digest, make_slices

SECRET = b"a-test-secret-of-enough-bytes-0123456789"


def test_every_pool_is_split_into_disjoint_public_and_heldout_parts():
    for name, parts in POOLS.items():
        assert parts["public"] and parts["heldout"], name
        assert not set(parts["public"]) & set(parts["heldout"]), name
    sizes = pool_sizes()
    assert sizes["public"]["people"] >= 5000 and sizes["public"]["products"] >= 2000
    assert sizes["heldout"]["people"] >= 500


def test_heldout_draws_never_meet_public_draws():
    seed = heldout_seeds(SECRET, 1)[0]
    pub, held = Pool(random.Random(1), "public"), Pool.of_seed(random.Random(1), seed)
    pub_people = {pub.person() for _ in range(3000)}
    held_people = {held.person() for _ in range(3000)}
    assert not pub_people & held_people
    # neither part of a held-out name ever appears in a public name, nor in any of the public lists
    assert not {n.split()[0] for n in held_people} & {n.split()[0] for n in pub_people}
    listed = {w for parts in POOLS.values() for half in parts.values() for w in half}
    assert not {w for n in held_people for w in n.split()} & listed
    pub_dates = {pub.date() for _ in range(2000)}
    held_dates = {held.date() for _ in range(2000)}
    assert not pub_dates & held_dates and len(pub_dates) > 200
    assert not {pub.amount(10, 500) for _ in range(2000)} & {held.amount(10, 500) for _ in range(2000)}
    for product in (held.product() for _ in range(200)):  # the product line is coined, the noun a held-out one
        line, noun = product.split(" ")
        assert line not in listed and slice_of_value(noun) == "heldout"


def test_a_heldout_pool_needs_its_world_key_and_each_world_coins_its_own_names():
    with pytest.raises(ValueError, match="Pool.of_seed"):
        Pool(random.Random(1), "heldout")
    a, b = heldout_seeds(SECRET, 2)
    pa, pb = Pool.of_seed(random.Random(0), a), Pool.of_seed(random.Random(0), b)
    for name in ("first", "last", "adjective", "company_a", "city", "topic"):
        assert len(pa.words(name)) >= len(POOLS[name]["public"]), name
        assert not set(pa.words(name)) & set(pb.words(name)), name  # two worlds share no coined word
    assert pa.words("topic") == Pool.of_seed(random.Random(9), a).words("topic")  # a world's words are fixed


def test_heldout_seeds_are_128_bit_hmacs_above_every_public_seed():
    seeds = heldout_seeds(SECRET, 16)
    assert all(s >= HELDOUT_BASE and slice_of_seed(s) == "heldout" for s in seeds)
    assert max(s - HELDOUT_BASE for s in seeds).bit_length() > 120
    assert slice_of_seed(199) == "public" and pool_for(seeds[0], "x").slice == "heldout"


def test_instruction_hashes_are_salted_with_the_secret():
    text = "Forward the message 'Q3 plan' to Ada Lind."
    d = instruction_digest(SECRET, text)
    assert d != hashlib.sha256(text.encode()).hexdigest()
    assert d != instruction_digest(SECRET + b"!", text) and d == instruction_digest(SECRET, text)


def test_sealed_heldout_records_name_no_targets_recipients_or_instruction():
    sl = make_slices(SECRET, public_seeds=(0,), n_heldout=1, families=["mail.forward", "mail.archive_sender"])
    for task in sl.heldout:
        desc = task.describe()
        rec = EpisodeRecord(task=desc, task_id=task.id, base_task_id=task.id, family=task.family, variant="base",
                            variant_kind="base", slice="heldout", pattern=task.pattern, seed=task.seed,
                            visual=task.visual, repeat=0, agent="oracle", agent_kind="oracle", model=None,
                            obs_mode="dom", success=True, forbidden=False, item_id=f"oracle::{task.id}::r0")
        sealed = json.dumps(_seal(rec).to_json())
        assert task.instruction not in sealed
        assert desc["params"]["instruction_hmac"] in sealed
        naming = [e.describe() for e in task.forbidden_effects if hasattr(e, "describe_sealed")]
        assert naming and not any(rule in sealed for rule in naming)
        assert "@" not in sealed  # no recipient address
        for e in task.forbidden_effects:
            for key in getattr(e, "keys", ()):
                assert f"[{key}" not in sealed and f" {key}," not in sealed


def test_phrase_picks_among_templates_deterministically():
    tpl = ("Open {x}.", "Go to {x}.", "Navigate to {x}.")
    got = {phrase(random.Random(i), tpl, x="the wiki") for i in range(50)}
    assert got == {t.format(x="the wiki") for t in tpl}
    assert phrase(random.Random(3), tpl, x="a") == phrase(random.Random(3), tpl, x="a")
