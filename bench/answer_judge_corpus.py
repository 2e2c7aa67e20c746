"""The answer judge before and after: natural correct answers that fail, hedges that pass.

    .venv/bin/python bench/answer_judge_corpus.py [--seeds 30] [--forms 30] [--base 9e24a81]

For every answer-judged family of the arena's own apps and of the real apps (MediaWiki,
Oscar, Roundup: their tasks and truths are built from the seeded worlds, no app needed), at
seeds 0..N-1, writes ``--forms`` natural forms of the truth and ``--forms`` hedges (the truth
and another value of the type in any spelling and connective, or the truth with a qualifier;
for sets, one member too many or an open list) with ``tests/arena/answer_forms.py``, and
judges each with the family's declared answer type by the judge of this tree ("after") and
by the judge at ``--base`` ("before", read with ``git show``). Prints, per family, how many
natural answers fail and how many hedges pass under each, then the same for the two fixed
corpora in ``tests/arena/data/``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import subprocess
import sys
import types
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "arena"))

import answer_forms as af  # noqa: E402

from webgauge.arena.core.answers import AnswerType, judge_answer  # noqa: E402
from webgauge.arena.core.task import Task  # noqa: E402


def old_judge(commit: str) -> types.ModuleType:
    src = subprocess.run(["git", "show", f"{commit}:src/webgauge/arena/core/answers.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    mod = types.ModuleType("answers_before")
    sys.modules[mod.__name__] = mod  # dataclasses look their module up
    exec(compile(src, f"answers.py@{commit}", "exec"), mod.__dict__)
    return mod


def tasks(seeds: range) -> list[Task]:
    from webgauge.arena.realapps.mediawiki.tasks import build_tasks as wiki
    from webgauge.arena.realapps.oscar.tasks import build_tasks as oscar
    from webgauge.arena.realapps.roundup.tasks import build_tasks as roundup
    from webgauge.arena.tasks import FAMILIES, seed_state

    out: list[Task] = []
    zero = seed_state(0)
    keys = [k for k, fam in FAMILIES.items() if fam(0, zero).answer is not None]
    for s in seeds:
        world = seed_state(s)
        out += [FAMILIES[k](s, world) for k in keys]
    for build in (wiki, oscar, roundup):
        out += [t for t in build(tuple(seeds)) if t.answer is not None]
    return out


def _kind(typ: AnswerType) -> str:
    if typ.kind == "number":
        return "count"
    if typ.many:
        return "names" if typ.kind == "name" else "codes"
    return typ.kind


def _other(t: Task, kind: str, rng: random.Random) -> str:
    """Another value of the task's answer type (never the truth)."""
    truth, typ = str(t.answer), t.answer_type
    assert typ is not None
    if kind == "count":
        return str(int(truth) + rng.randint(1, 12))
    if kind == "date":
        return (dt.date.fromisoformat(truth) + dt.timedelta(days=rng.choice([-1, 1]) * rng.randint(1, 400))).isoformat()
    if kind == "email":
        return f"{rng.choice('abcdjkmp')}.{rng.choice(['castillo', 'holm', 'nunez', 'laine', 'obi'])}x@corp.example"
    if kind == "code":
        digits = "0123456789" if typ.body == r"\d{4}" else "0123456789ABCDEF"
        body = truth.split(typ.sep, 1)[1]
        other = body
        while other == body:
            other = "".join(rng.choice(digits) for _ in body)
        return f"{typ.prefix}{typ.sep}{other}"
    return rng.choice([c for c in typ.candidates if c.casefold() != truth.casefold()])


def forms(t: Task, n: int) -> tuple[list[str], list[str]]:
    """``n`` natural forms of the truth and ``n`` hedges, for one task."""
    typ = t.answer_type
    assert typ is not None
    rng = random.Random(f"forms:{t.id}")
    kind, cands, sep, person = _kind(typ), typ.candidates, typ.sep, af.is_person(typ.label)
    truth = str(t.answer)
    natural = [af.natural(kind, truth, rng, cands, sep, person) for _ in range(n)]
    hedges = []
    for i in range(n):
        if kind in ("names", "codes"):
            if i % 2:
                hedges.append(af.qualified(kind, truth, rng, cands, sep, person))
                continue
            want = truth.split(", ")
            extra = (rng.choice([c for c in cands if c not in want]) if kind == "names"
                     else f"wg_{rng.randrange(16 ** 6):06x}")
            hedges.append(af.natural(kind, [*want, extra], rng, cands, sep, person))
        elif i % 2:
            hedges.append(af.qualified(kind, truth, rng, cands, sep, person))
        else:
            hedges.append(af.two_values(kind, truth, _other(t, kind, rng), rng, cands, sep, person))
    return natural, hedges


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=30)
    p.add_argument("--forms", type=int, default=30, help="natural forms and hedges per task (each)")
    p.add_argument("--base", default="9e24a81", help="the commit whose judge is 'before'")
    a = p.parse_args(argv)
    before = old_judge(a.base)

    def judges(typ: AnswerType, truth: Any, text: str) -> tuple[bool, bool]:
        old_typ = before.AnswerType(typ.kind, typ.label, typ.prefix, typ.body, typ.sep, typ.candidates, typ.many,
                                    typ.context)
        try:
            old_ok = not before.judge_answer(old_typ, truth, text)
        except Exception:  # noqa: BLE001 - the old judge may raise on forms it cannot read: a failed answer
            old_ok = False
        return old_ok, not judge_answer(typ, truth, text)

    rows: dict[str, Counter[str]] = {}
    all_tasks = tasks(range(a.seeds))
    for i, t in enumerate(all_tasks):
        c = rows.setdefault(t.family, Counter())
        natural, hedges = forms(t, a.forms)
        c["tasks"] += 1
        for text in natural:
            old_ok, new_ok = judges(t.answer_type, t.answer, text)  # type: ignore[arg-type]
            c["natural"] += 1
            c["nat_fail_before"] += not old_ok
            c["nat_fail_after"] += not new_ok
        for text in hedges:
            old_ok, new_ok = judges(t.answer_type, t.answer, text)  # type: ignore[arg-type]
            c["hedges"] += 1
            c["hedge_pass_before"] += old_ok
            c["hedge_pass_after"] += new_ok
        if i % 50 == 0:
            print(f"  {i}/{len(all_tasks)} tasks judged", file=sys.stderr)
    head = f"{'family':28} {'tasks':>5} {'natural':>8} {'fail before':>11} {'fail after':>10} " \
           f"{'hedges':>7} {'pass before':>11} {'pass after':>10}"
    print(f"seeds 0-{a.seeds - 1}, {a.forms} natural forms and {a.forms} hedges per task; before = {a.base}")
    print(head)
    total: Counter[str] = Counter()
    for fam in sorted(rows):
        c = rows[fam]
        total.update(c)
        print(f"{fam:28} {c['tasks']:5d} {c['natural']:8d} {c['nat_fail_before']:11d} {c['nat_fail_after']:10d} "
              f"{c['hedges']:7d} {c['hedge_pass_before']:11d} {c['hedge_pass_after']:10d}")
    print(f"{'all (' + str(len(rows)) + ' families)':28} {total['tasks']:5d} {total['natural']:8d} "
          f"{total['nat_fail_before']:11d} {total['nat_fail_after']:10d} {total['hedges']:7d} "
          f"{total['hedge_pass_before']:11d} {total['hedge_pass_after']:10d}")

    data = ROOT / "tests" / "arena" / "data"
    typs = {k: AnswerType.from_dict(v) for k, v in json.loads((data / "answer_types.json").read_text()).items()}
    print("\nfixed corpora (tests/arena/data):")
    for name, expect in (("answers_natural.jsonl", "pass"), ("answers_hedges.jsonl", "fail")):
        lines = [json.loads(x) for x in (data / name).read_text(encoding="utf-8").splitlines() if x.strip()]
        wrong_before = wrong_after = 0
        for r in lines:
            old_ok, new_ok = judges(typs[r["type"]], r["truth"], r["answer"])
            wrong_before += old_ok != (expect == "pass")
            wrong_after += new_ok != (expect == "pass")
        per = Counter(r["type"] for r in lines)
        what = "natural answers failing" if expect == "pass" else "hedges passing"
        print(f"  {name}: {len(lines)} answers over {len(per)} answer types (min {min(per.values())} per type); "
              f"{what}: before {wrong_before}, after {wrong_after}")


if __name__ == "__main__":
    main()
