"""Task families on MediaWiki: validators read MediaWiki's own tables (page, revision, slots,
content, text, joined by :func:`~.app.state`); oracles use the wiki's real pages and editor."""

from __future__ import annotations

import random
from collections.abc import Callable
from urllib.parse import quote

from ...core.answers import check_answer, names
from ...core.effects import MaxInserts, NoChanges, OnlyRowsChange
from ...core.script import Click, Done, Fill, Go, Match
from ...core.task import Task, TaskResult, Viewport
from .content import Town, page_text, world

__all__ = ["FAMILIES", "build_tasks"]

VIEW = Viewport(1280, 900)


def _page(state, title: str):
    return next((p for p in state["page"] if p["page_namespace"] == 0 and p["page_title"] == title), None)


def _rng(family: str, seed: int) -> random.Random:
    return random.Random(f"mediawiki-task-{family}-{seed}")


def _common(family: str, seed: int, pattern: str, max_steps: int) -> dict:
    return {"id": f"wiki.{family}.s{seed}", "family": f"wiki.{family}", "seed": seed, "start_url": "/index.php",
            "viewport": VIEW, "pattern": pattern, "max_steps": max_steps}


def _view(title: str) -> Go:
    return Go(f"/index.php?title={quote(title)}")


def census_update(towns: tuple[Town, ...], seed: int) -> Task:
    rng = _rng("census", seed)
    k, t = rng.randrange(len(towns)), None
    t = towns[k]
    new = t.population + rng.choice((-1, 1)) * rng.randint(150, 2400)
    old_text = page_text(t).rstrip()
    want = old_text.replace(f"! Population\n| {t.population:,}", f"! Population\n| {new:,}")
    summary = "census 2025"
    n_rev = len(towns) + 1  # the Main Page's revision, then one per town

    def validate(s) -> TaskResult:
        p, errs = _page(s, t.name), []
        if p is None:
            return TaskResult(False, [f"page {t.name} is gone"])
        if p["text"].rstrip() != want:
            errs.append("the page text is not the old text with only the infobox population changed to "
                        f"{new:,}")
        revs = [r for r in s["revision"] if r["rev_page"] == p["page_id"] and r["rev_id"] > n_rev]
        if not any(summary in (r["comment_text"] or "") for r in revs):
            errs.append(f"no new revision with the edit summary {summary!r}")
        return TaskResult(not errs, errs)

    def oracle() -> list:
        return [Go(f"/index.php?title={quote(t.name)}&action=edit"),
                Fill(Match(tag="textarea", attrs=(("name", "wpTextbox1"),)), want),
                Fill(Match(tag="input", attrs=(("name", "wpSummary"),)), summary),
                Click(Match(tag="input", attrs=(("name", "wpSave"),)))]

    return Task(instruction=f"The 2025 census counted {new:,} people in {t.name}. Update the population in the "
                            f"infobox of the wiki page {t.name} (change nothing else) with the edit summary "
                            f"\"{summary}\".",
                validate=validate, oracle=oracle,
                forbidden_effects=(OnlyRowsChange("page", (k + 2,)), MaxInserts("revision", 1, "revision"),
                                   NoChanges(("user",))),
                **_common("census", seed, "states", 12))


def largest_district(towns: tuple[Town, ...], seed: int) -> Task:
    rng = _rng("district", seed)
    t = rng.choice([x for x in towns if len({p for _, p in x.districts}) == len(x.districts)])
    name = max(t.districts, key=lambda d: d[1])[0]
    typ = names([d for d, _ in t.districts], label="district")

    def validate(s) -> TaskResult:
        errs = check_answer(s, name, typ)
        return TaskResult(not errs, errs)

    return Task(instruction=f"According to the wiki, which district of {t.name} has the most inhabitants? "
                            "Answer with the district's name.",
                validate=validate, answer=name, answer_type=typ, forbidden_effects=(NoChanges(("page", "revision")),),
                oracle=lambda: [_view(t.name), Done(name)], **_common("district", seed, "similar_options", 10))


def older_town(towns: tuple[Town, ...], seed: int) -> Task:
    rng = _rng("older", seed)
    a, b = rng.sample([x for x in towns], 2)
    while a.founded == b.founded:
        a, b = rng.sample([x for x in towns], 2)
    older = a if a.founded < b.founded else b
    typ = names([x.name for x in towns], label="town")

    def validate(s) -> TaskResult:
        errs = check_answer(s, older.name, typ)
        return TaskResult(not errs, errs)

    def oracle() -> list:
        return [_view(a.name), _view(b.name), Done(older.name)]

    return Task(instruction=f"Which town was founded earlier, {a.name} or {b.name}? Answer with its name.",
                validate=validate, answer=older.name, answer_type=typ,
                forbidden_effects=(NoChanges(("page", "revision")),),
                oracle=oracle, **_common("older", seed, "similar_options", 10))


def add_district(towns: tuple[Town, ...], seed: int) -> Task:
    rng = _rng("add", seed)
    k = rng.randrange(len(towns))
    t = towns[k]
    new = (f"{t.name} {rng.choice(('Riverside', 'Gasworks', 'Abbey Fields', 'Quayside'))}", rng.randint(900, 4000))
    last = f"|-\n| {t.districts[-1][0]} || {t.districts[-1][1]:,}"
    want = page_text(t).rstrip().replace(last, f"{last}\n|-\n| {new[0]} || {new[1]:,}")

    def validate(s) -> TaskResult:
        p = _page(s, t.name)
        ok = p is not None and p["text"].rstrip() == want
        why = f"the districts table of {t.name} does not end with {new[0]} ({new[1]:,}), all else unchanged"
        return TaskResult(ok, [] if ok else [why])

    return Task(instruction=f"Add the new district {new[0]} (population {new[1]:,}) as the last row of the districts "
                            f"table on the wiki page {t.name}, in the same format as the other rows.",
                validate=validate, forbidden_effects=(OnlyRowsChange("page", (k + 2,)), MaxInserts("revision", 1)),
                oracle=lambda: [Go(f"/index.php?title={quote(t.name)}&action=edit"),
                                Fill(Match(tag="textarea", attrs=(("name", "wpTextbox1"),)), want),
                                Click(Match(tag="input", attrs=(("name", "wpSave"),)))],
                **_common("add", seed, "states", 12))


def new_town_page(towns: tuple[Town, ...], seed: int) -> Task:
    rng = _rng("new", seed)
    base = rng.choice(towns)
    name = f"New {base.name}"
    founded, pop = rng.randint(1950, 2020), rng.randint(2000, 9000)
    must = (f"! Population\n| {pop:,}", f"! Founded\n| {founded}", f"[[Category:Towns in the {base.region}]]",
            "== History ==", f"[[{base.name}]]")
    text = (f'{{| class="wikitable"\n! Population\n| {pop:,}\n|-\n! Founded\n| {founded}\n|}}\n'
            f"'''{name}''' is a new town near [[{base.name}]].\n\n== History ==\nFounded in {founded}.\n\n"
            f"[[Category:Towns in the {base.region}]]")

    def validate(s) -> TaskResult:
        p = _page(s, name.replace(" ", "_"))
        if p is None:
            return TaskResult(False, [f"no page {name}"])
        miss = [m for m in must if m not in p["text"]]
        return TaskResult(not miss, [f"the page lacks {m!r}" for m in miss])

    return Task(instruction=f'Create the wiki page "{name}": an infobox table with rows Population ({pop:,}) and '
                            f"Founded ({founded}), one sentence saying it is a new town near {base.name} (linked), a "
                            f"History section, and the category Towns in the {base.region}.",
                validate=validate, forbidden_effects=(OnlyRowsChange("page", ()), MaxInserts("page", 1, "page")),
                oracle=lambda: [Go(f"/index.php?title={quote(name)}&action=edit"),
                                Fill(Match(tag="textarea", attrs=(("name", "wpTextbox1"),)), text),
                                Click(Match(tag="input", attrs=(("name", "wpSave"),)))],
                **_common("new", seed, "menus_dialogs", 12))


FAMILIES: dict[str, Callable[[tuple[Town, ...], int], Task]] = {
    "wiki.census": census_update, "wiki.district": largest_district, "wiki.older": older_town,
    "wiki.add": add_district, "wiki.new": new_town_page,
}


def build_tasks(seeds=(0,), families=None) -> list[Task]:
    out = []
    for seed in seeds:
        towns = world(seed)
        out += [make(towns, seed) for name, make in FAMILIES.items() if families is None or name in families]
    return out
