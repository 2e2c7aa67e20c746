"""The held-out slice's content needs the secret: public seeds unchanged, held-out names coined per
world, targets not reproduced by worlds built without the secret, wording not the public one."""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path

from webgauge.arena.content.pools import POOLS
from webgauge.arena.content.synth import STYLES, coin, space_size
from webgauge.arena.tasks import FAMILIES, seed_state
from webgauge.arena.tasks.heldout import heldout_seeds
from webgauge.arena.tasks.leakage import measure_leakage
from webgauge.arena.tasks.variety import MEASUREMENT_KEY

SECRET = b"secrecy-test-secret-0123456789abcdef"
HASHES = Path(__file__).parent / "data" / "public_slice_hashes.json"


def test_public_worlds_and_instructions_are_unchanged():
    """Seeds 0-29 of every family and the worlds of seeds 0-5 hash as they did before held-out
    content was coined (regenerate the fixture only for a deliberate change of public content:
    see the loop below)."""
    want = json.loads(HASHES.read_text())
    fam = {k: hashlib.sha256() for k in FAMILIES}
    worlds = {}
    for seed in range(want["seeds"]):
        state = seed_state(seed)
        if seed < want["world_seeds"]:
            worlds[str(seed)] = hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()[:16]
        for k, f in FAMILIES.items():
            t = f(seed, state)
            fam[k].update(json.dumps([t.id, t.instruction, t.answer]).encode())
    assert worlds == want["worlds"]
    got = {k: h.hexdigest()[:16] for k, h in fam.items() if k in want["families"]}
    changed = sorted(k for k in want["families"] if got.get(k) != want["families"][k])
    assert not changed, f"public tasks changed: {changed}"


def test_coined_words_read_like_names_and_span_a_large_space():
    rng = random.Random(3)
    for style in STYLES:
        words = [coin(rng, style) for _ in range(300)]
        assert all(re.fullmatch(r"[A-Za-z]+", w) and not re.search(r"(.)\1\1|[aeiou]{3}|[^aeiou]{4}", w.lower())
                   for w in words), style
        assert all(w[0].isupper() for w in words) == (style != "codename"), style
        assert len(set(words)) >= 295 and space_size(style) > 5_000_000, style
    listed = {w.lower() for parts in POOLS.values() for half in parts.values() for w in half}
    assert not {w.lower() for w in (coin(rng, "brand") for _ in range(2000))} & listed


def test_heldout_instructions_name_coined_content_in_their_own_words():
    seed = heldout_seeds(SECRET, 1)[0]
    state = seed_state(seed)
    t = FAMILIES["shop.buy_variant"](seed, state)
    line = t.instruction
    assert any(p["model"] in line for p in state["shop_products"])  # names the world's product
    assert not any(f"{a} " in line for a in POOLS["adjective"]["public"] + POOLS["adjective"]["heldout"])
    public = {FAMILIES["shop.buy_variant"](s, seed_state(s)).instruction.split(" one ")[0] for s in range(12)}
    assert line.split(" one ")[0] not in public  # framed and worded apart from the public templates
    again = FAMILIES["shop.buy_variant"](seed, seed_state(seed))
    assert again.instruction == line and again.fingerprint == t.fingerprint  # deterministic


def test_secretless_worlds_reproduce_at_most_5_percent_of_heldout_targets():
    """The CLI measures with 1,000 worlds (`arena report --variety`); 100 here keep the test short."""
    rows = measure_leakage(n_worlds=100, n_heldout=10, secret=SECRET, public_seeds=range(20))
    state = seed_state(0)
    assert len(rows) == len({f(0, state).family for f in FAMILIES.values()})
    by = {r.family: r for r in rows}
    for fam in ("shop.buy_variant", "wiki.lookup", "admin.count_status", "cal.book", "forum.moderate"):
        assert by[fam].with_target == by[fam].heldout_tasks == 10, fam  # these name content in every instance
    assert sum(r.with_target for r in rows) >= 0.8 * sum(r.heldout_tasks for r in rows)
    too_many = {r.family: r.reproduced_share for r in rows if r.reproduced_share > 0.05}
    assert not too_many, too_many
    assert sum(r.template_public for r in rows) == 0  # no held-out instruction is worded like a public one
    assert sum(r.core_public for r in rows) < 0.8 * sum(r.heldout_tasks for r in rows)  # set phrases rewritten too


def test_the_measurement_sees_reproduced_targets():
    """A 'secret' the secret-less worlds also use reproduces every target: the measure can fail."""
    rows = measure_leakage(["shop.buy_variant", "wiki.lookup"], n_worlds=3, n_heldout=3, secret=MEASUREMENT_KEY,
                           public_seeds=range(5))
    got = [(r.family, r.reproduced, r.with_target) for r in rows]
    assert got == [("shop.buy_variant", 3, 3), ("wiki.lookup", 3, 3)]


def test_variety_and_leakage_share_one_pass_over_the_public_worlds(monkeypatch):
    """`arena report --variety` builds each public world once for both measures (twice before, and
    the vocabulary's worlds a third time), and the shared pass gives the rows each measure gives alone."""
    import webgauge.arena.tasks as tasks_pkg
    from webgauge.arena.tasks.public_worlds import public_worlds
    from webgauge.arena.tasks.variety import measure_variety

    fams = ["wiki.lookup", "shop.buy_variant"]
    alone_v = measure_variety(fams, public_seeds=range(12), n_heldout=3)
    alone_l = measure_leakage(fams, n_worlds=3, n_heldout=3, public_seeds=range(12), vocabulary_seeds=range(4))
    built: list[int] = []
    real = tasks_pkg.seed_state
    monkeypatch.setattr(tasks_pkg, "seed_state", lambda s: built.append(s) or real(s))
    public = public_worlds(fams, range(12), vocabulary_seeds=range(4))
    assert built == list(range(12))  # each public world once; the vocabulary's are among them
    assert measure_variety(fams, n_heldout=3, public=public) == alone_v
    assert measure_leakage(fams, n_worlds=3, n_heldout=3, public=public) == alone_l
    assert len(built) == 12 + 3 + 3 + 3 and all(s >= 2**64 for s in built[12:])  # then held-out-range worlds only
    assert {r.family for r in alone_v} == {"wiki.lookup", "shop.buy_variant"} and alone_v[0].public_tasks == 12
