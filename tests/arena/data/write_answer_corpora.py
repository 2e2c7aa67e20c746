"""Wrote ``answers_natural.jsonl``, ``answers_hedges.jsonl`` and ``answer_types.json`` once.

    .venv/bin/python tests/arena/data/write_answer_corpora.py

Every line is one answer: ``type`` (a key of ``answer_types.json``), ``truth``, ``answer`` and
``expect`` ("pass" or "fail"), decided by how the answer was written (a natural form of the
truth, or the truth with another value or a qualifier), never by the judge. The first lines of
each file are the cases written by hand (the ones the judge once got wrong). The answer types
are the ones the arena's families declare, taken from the seed-0 worlds. Re-running rewrites
the same files (seeded); the tests read the files and never call this.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import answer_forms as af  # noqa: E402

from webgauge.arena.core.answers import COUNT, DATE, EMAIL, code  # noqa: E402
from webgauge.arena.realapps.mediawiki.tasks import build_tasks as wiki_tasks  # noqa: E402
from webgauge.arena.tasks import FAMILIES, seed_state  # noqa: E402

PER_TYPE = 120

HAND_NATURAL = [
    ("person", "Paloma Holm", "Holm, Paloma"), ("person", "Paloma Holm", "Paloma  Holm"),
    ("person", "Paloma Holm", "Paloma\u00a0Holm"), ("person", "Paloma Holm", "Paloma\nHolm"),
    ("owner", "José Núñez", "Jose Nunez"), ("asset_code", "AS-2442", "AS-2442 (expires 26 March 2027)"),
    ("count", "4", "There are 4; each one is solved."), ("count", "0", "There are no suspended accounts."),
    ("date", "2026-04-04", "04-04-2026"), ("date", "2027-03-26", "26/03/2027"),
    ("date", "2027-03-26", "March 26th, 2027"), ("count", "0", "none"), ("count", "0", "zero"),
]
HAND_HEDGES = [
    ("count", "2", "2 or ③"), ("count", "2", "2 or iii"), ("count", "2", "2 or Ⅲ"), ("count", "2", "2 or higher"),
    ("count", "2", "at least 2"), ("count", "2", "≈2"), ("count", "2", "2-ish"), ("asset_code", "AS-3345", "AS-3345/6"),
    ("asset_code", "AS-3345", "AS-3345 (or -3354)"), ("date", "2026-04-04", "2026-04-04 or later"),
    ("date", "2026-04-04", "3-4 April 2026"), ("person", "Paloma Holm", "Paloma Holm or J. Holm"),
    ("email", "a.obi@corp.example", "a.obi@corp.example or m.castillo\uff20corp.example"),
    ("count", "2", "2 or З"), ("count", "4", '{"answer": 4, "confidence": 0.8}'), ("count", "3", "3 to 4"),
    ("count", "3", "3-4"), ("date", "2026-04-05", "04/05/2026"), ("date", "2026-04-04", "Friday, 4 April 2026"),
]


def _types() -> dict[str, dict]:
    z = seed_state(0)
    t = {k: FAMILIES[k](0, z) for k in FAMILIES}
    forum = t["forum.upvote_solution"].answer_type
    wiki = [x for x in wiki_tasks((0,), families=["mediawiki.district", "mediawiki.older"])]
    owner_seed = next(s for s in range(50) if FAMILIES["wiki.lookup"](s, seed_state(s)).answer_type.kind == "name")
    owner = FAMILIES["wiki.lookup"](owner_seed, seed_state(owner_seed)).answer_type
    out = {
        "count": COUNT, "date": DATE, "email": EMAIL, "person": forum, "owner": owner,
        "team": t["wiki.owner_to_admin"].answer_type, "district": wiki[0].answer_type, "town": wiki[1].answer_type,
        "asset_code": code("AS", r"\d{4}", label="asset code"),
        "cost_centre": code("CC", r"\d{4}", label="cost centre"),
        "booking_reference": t["calendar.booking_reference"].answer_type,
        "share_code": t["maps.share_place"].answer_type, "key_prefixes": t["ops.rotate_keys"].answer_type,
        "starters": t["forum.top_authors"].answer_type,
    }
    d = {k: v.to_dict() for k, v in out.items()}
    # the owner type: the names of every person, plus the accented names a natural answer folds
    d["owner"]["candidates"] = sorted({*d["owner"]["candidates"], "José Núñez", "Zoë Ångström", "Søren Łukasiewicz"})
    return d


def _kind(typ: dict) -> str:
    if typ["kind"] == "number":
        return "count"
    if typ["many"]:
        return "names" if typ["kind"] == "name" else "codes"
    return typ["kind"]


def _truths(key: str, typ: dict, rng: random.Random) -> str:
    import datetime as dt
    kind = _kind(typ)
    if kind == "count":
        return str(rng.choice([0, 0, 1, 2, 3, 4, 5, 7, 9, 11, 12, 17, 19, 20, 21, 40, 99, 173, 384, 1730]))
    if kind == "date":
        return (dt.date(2025, 1, 1) + dt.timedelta(days=rng.randrange(900))).isoformat()
    if kind == "email":
        return rng.choice(["a.obi", "m.castillo", "j.holm", "p.nunez", "k.laine2"]) + "@corp.example"
    if kind == "code":
        body = "".join(rng.choice("0123456789" if typ["body"] == r"\d{4}" else "0123456789ABCDEF")
                       for _ in range(4 if typ["body"] == r"\d{4}" else 6))
        return f"{typ['prefix']}{typ['sep']}{body}"
    if kind == "codes":
        return ", ".join(f"wg_{rng.randrange(16 ** 6):06x}" for _ in range(rng.randint(2, 5)))
    if kind == "names":
        return ", ".join(rng.sample(typ["candidates"], rng.randint(2, 5)))
    if key == "owner" and rng.random() < 0.2:
        return rng.choice(["José Núñez", "Zoë Ångström", "Søren Łukasiewicz"])
    return rng.choice(typ["candidates"])


def main() -> None:
    rng = random.Random(20261207)
    types = _types()
    natural = [{"type": k, "truth": t, "answer": a, "expect": "pass"} for k, t, a in HAND_NATURAL]
    hedges = [{"type": k, "truth": t, "answer": a, "expect": "fail"} for k, t, a in HAND_HEDGES]
    for key, typ in types.items():
        kind, cands, sep, person = _kind(typ), tuple(typ["candidates"]), typ["sep"], af.is_person(typ["label"])
        for _ in range(PER_TYPE):
            truth = _truths(key, typ, rng)
            natural.append({"type": key, "truth": truth, "answer": af.natural(kind, truth, rng, cands, sep, person),
                            "expect": "pass"})
            if rng.random() < 0.5 or kind in ("names", "codes"):
                answer = af.qualified(kind, truth, rng, cands, sep, person)
            else:
                other = _truths(key, typ, rng)
                while other == truth:
                    other = _truths(key, typ, rng)
                answer = af.two_values(kind, truth, other, rng, cands, sep, person)
            if kind in ("names", "codes") and rng.random() < 0.5:  # a set with one member too many
                extra = _truths(key, typ, rng).split(", ")[0]
                if extra not in truth.split(", "):
                    answer = af.natural(kind, f"{truth}, {extra}", rng, cands, sep, person)
            hedges.append({"type": key, "truth": truth, "answer": answer, "expect": "fail"})
    (HERE / "answer_types.json").write_text(json.dumps(types, indent=1, ensure_ascii=False) + "\n")
    for name, rows in (("answers_natural.jsonl", natural), ("answers_hedges.jsonl", hedges)):
        (HERE / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"{len(natural)} natural, {len(hedges)} hedges, {len(types)} answer types")


if __name__ == "__main__":
    main()
