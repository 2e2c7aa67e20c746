"""Task families on MediaWiki: validators read MediaWiki's own tables (page, revision, slots,
content, text, joined by :func:`~.app.state`); oracles use the wiki's real pages and editor."""

from __future__ import annotations

import difflib
import random
import re
from collections.abc import Callable
from urllib.parse import quote

from ...content.pools import phrase
from ...content.worded import worded_family
from ...core.answers import check_answer, names
from ...core.effects import MaxInserts, NoChanges, OnlyRowsChange
from ...core.script import Click, Done, Fill, Go, Match
from ...core.task import Task, TaskResult, Viewport
from ...tasks.budgets import budgeted_app
from .app import ADMIN_PASSWORD, IRREVERSIBLE
from .content import (
    REGIONS,
    SHEET_CATEGORY,
    Town,
    World,
    flag_file,
    list_text,
    list_title,
    page_text,
    sheet_file,
    world,
)

__all__ = ["FAMILIES", "build_tasks"]

VIEW = Viewport(1280, 900)


def _page(state, title: str):
    title = title.replace(" ", "_")  # MediaWiki stores titles with underscores ("Lower_Tokidholm")
    return next((p for p in state["page"] if p["page_namespace"] == 0 and p["page_title"] == title), None)


def _rng(family: str, seed: int) -> random.Random:
    return random.Random(f"mediawiki-task-{family}-{seed}")


def _say(family: str, seed: int, templates: tuple[str, ...], **fields: object) -> str:
    """The instruction in one of the family's sentence frames (drawn apart from the targets' draws)."""
    return phrase(random.Random(f"mediawiki-wording-{family}-{seed}"), templates, **fields)


def _common(family: str, seed: int, pattern: str, max_steps: int) -> dict:
    return {"id": f"mediawiki.{family}.s{seed}", "family": f"mediawiki.{family}", "seed": seed,
            "start_url": "/index.php",
            "viewport": VIEW, "pattern": pattern, "max_steps": max_steps}


def _view(title: str) -> Go:
    return Go(f"/index.php?title={quote(title)}")


CENSUS = (
    'The 2025 census counted {pop} people in {town}. Update the population in the infobox of the wiki page {town} '
    '(change nothing else) with the edit summary "{summary}".',
    'Set the population in the infobox of the wiki page {town} to {pop}, the 2025 census figure, using the edit '
    'summary "{summary}". Change nothing else on the page.',
    '{town} has a new population figure from the 2025 census: {pop}. Edit its wiki page so the infobox shows it, '
    'with "{summary}" as the edit summary, and leave the rest of the page as it is.',
)


def census_update(towns: World, seed: int) -> Task:
    rng = _rng("census", seed)
    k, t = rng.randrange(len(towns)), None
    t = towns[k]
    new = t.population + rng.choice((-1, 1)) * rng.randint(150, 2400)
    old_text = page_text(t).rstrip()
    want = old_text.replace(f"| population = {t.population:,}\n", f"| population = {new:,}\n")
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

    return Task(instruction=_say("census", seed, CENSUS, town=t.name, pop=f"{new:,}", summary=summary),
                validate=validate, oracle=oracle,
                forbidden_effects=(OnlyRowsChange("page", (k + 2,)), MaxInserts("revision", 1, "revision"),
                                   NoChanges(("user",))),
                **_common("census", seed, "states", 12))


DISTRICT = (
    "According to the wiki, which district of {town} has the most inhabitants? Answer with the district's name.",
    "Look up {town} in the wiki: which of its districts has the largest population? Reply with the district's name.",
    "Which district of {town} is the most populous, according to the wiki's page on the town? Answer with its name.",
)


def largest_district(towns: World, seed: int) -> Task:
    rng = _rng("district", seed)
    t = rng.choice([x for x in towns if len({p for _, p in x.districts}) == len(x.districts)])
    name = max(t.districts, key=lambda d: d[1])[0]
    typ = names([d for x in towns for d, _ in x.districts], label="district")  # any district it could name

    def validate(s) -> TaskResult:
        errs = check_answer(s, name, typ)
        return TaskResult(not errs, errs)

    return Task(instruction=_say("district", seed, DISTRICT, town=t.name),
                validate=validate, answer=name, answer_type=typ, forbidden_effects=(NoChanges(("page", "revision")),),
                oracle=lambda: [_view(t.name), Done(name)], **_common("district", seed, "similar_options", 10))


OLDER = (
    "Which town was founded earlier, {a} or {b}? Answer with its name.",
    "The wiki gives founding years for {a} and {b}. Which of the two is older? Reply with the town's name.",
    "Of {a} and {b}, which town was founded first, according to the wiki? Answer with the name of the town.",
)


def older_town(towns: World, seed: int) -> Task:
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

    return Task(instruction=_say("older", seed, OLDER, a=a.name, b=b.name),
                validate=validate, answer=older.name, answer_type=typ,
                forbidden_effects=(NoChanges(("page", "revision")),),
                oracle=oracle, **_common("older", seed, "similar_options", 10))


ADD = (
    "Add the new district {district} (population {pop}) as the last row of the districts table on the wiki page "
    "{town}, in the same format as the other rows.",
    "The wiki page {town} lacks its new district {district}, home to {pop} people. Add it as the last row of the "
    "page's districts table, formatted like the rows above it.",
    "On the wiki page {town}, append a row for the district {district} with a population of {pop} to the end of "
    "the districts table, in the format the other rows use.",
)


def add_district(towns: World, seed: int) -> Task:
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

    return Task(instruction=_say("add", seed, ADD, district=new[0], pop=f"{new[1]:,}", town=t.name),
                validate=validate, forbidden_effects=(OnlyRowsChange("page", (k + 2,)), MaxInserts("revision", 1)),
                oracle=lambda: [Go(f"/index.php?title={quote(t.name)}&action=edit"),
                                Fill(Match(tag="textarea", attrs=(("name", "wpTextbox1"),)), want),
                                Click(Match(tag="input", attrs=(("name", "wpSave"),)))],
                **_common("add", seed, "states", 12))


NEW_PAGE = (
    'Create the wiki page "{name}" for a new town near {near}: use the town infobox template (Template:Infobox town) '
    "with the region {region}, population {pop} and founded {founded}, write one sentence saying it is a new town "
    "near {near} (linked), add a History section, and put it in the category Towns in the {region}.",
    'Start a wiki page for the new town "{name}". Give it the wiki\'s town infobox (Template:Infobox town) with '
    "region {region}, population {pop} and founding year {founded}, a sentence calling it a new town near {near} "
    "with a link to that page, a History section, and the category Towns in the {region}.",
    'The wiki has no page "{name}" yet; write it: the town infobox template (Template:Infobox town) filled in with '
    "region {region}, population {pop} and founded {founded}, one sentence that calls it a new town near {near} and "
    "links there, a History section, and the category Towns in the {region}.",
)


def _param(text: str, name: str) -> str | None:
    """The value of an infobox parameter in wikitext (``| population = 4,512``), None when absent."""
    m = re.search(rf"^\s*\|\s*{name}\s*=\s*(.*?)\s*$", text, flags=re.MULTILINE)
    return m.group(1) if m else None


def new_town_page(towns: World, seed: int) -> Task:
    rng = _rng("new", seed)
    base = rng.choice(towns)
    name = f"New {base.name}"
    founded, pop = rng.randint(1950, 2020), rng.randint(2000, 9000)
    must = (f"[[Category:Towns in the {base.region}]]", "== History ==", f"[[{base.name}]]")
    text = (f"{{{{Infobox town\n| name = {name}\n| flag = {flag_file(base.region)}\n| region = {base.region}\n"
            f"| population = {pop:,}\n| founded = {founded}\n}}}}\n"
            f"'''{name}''' is a new town near [[{base.name}]].\n\n== History ==\nFounded in {founded}.\n\n"
            f"[[Category:Towns in the {base.region}]]")

    def validate(s) -> TaskResult:
        p = _page(s, name)
        if p is None:
            return TaskResult(False, [f"no page {name}"])
        errs = [f"the page lacks {m!r}" for m in must if m not in p["text"]]
        if not re.search(r"\{\{\s*[Ii]nfobox[ _]town\s*\|", p["text"]):
            errs.append("the page does not use Template:Infobox town")
        for key, want in (("population", str(pop)), ("founded", str(founded)), ("region", base.region)):
            got = _param(p["text"], key)
            if got is None or got.replace(",", "") != want:
                errs.append(f"the infobox's {key} is {got!r}, not {want!r}")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("new", seed, NEW_PAGE, name=name, pop=f"{pop:,}", founded=founded, near=base.name,
                                 region=base.region),
                validate=validate, forbidden_effects=(OnlyRowsChange("page", ()), MaxInserts("page", 1, "page")),
                oracle=lambda: [Go(f"/index.php?title={quote(name)}&action=edit"),
                                Fill(Match(tag="textarea", attrs=(("name", "wpTextbox1"),)), text),
                                Click(Match(tag="input", attrs=(("name", "wpSave"),)))],
                **_common("new", seed, "menus_dialogs", 12))


# ---- long families: several pages, the wiki's own move and file pages, its sortable lists ----

_TEXTBOX = Match(tag="textarea", attrs=(("name", "wpTextbox1"),))
_SUMMARY = Match(tag="input", attrs=(("name", "wpSummary"),))
_SAVE = Match(tag="input", attrs=(("name", "wpSave"),))


def _edit(title: str, text: str, summary: str) -> list:
    return [Go(f"/index.php?title={quote(title)}&action=edit"), Fill(_TEXTBOX, text), Fill(_SUMMARY, summary),
            Click(_SAVE)]


def _login() -> list:
    return [Go("/index.php?title=Special:UserLogin"), Fill(Match(tag="input", attrs=(("name", "wpName"),)), "Admin"),
            Fill(Match(tag="input", attrs=(("name", "wpPassword"),)), ADMIN_PASSWORD),
            Click(Match(tag="button", attrs=(("name", "wploginattempt"),)))]


def _db_title(title: str) -> str:
    return title.replace(" ", "_")


def _page_id(w: World, title: str) -> int:
    """The page id of a seeded page: the Main Page is 1, town ``k`` is ``k + 2``, then the region lists."""
    for k, t in enumerate(w.towns):
        if t.name == title:
            return k + 2
    regions = [list_title(r) for r in REGIONS]
    return len(w.towns) + 2 + regions.index(title)


def _flat(text: str) -> str:
    """Text compared without thousands separators and with runs of spaces and blank lines collapsed."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    return "\n".join(" ".join(line.split()) for line in text.strip().splitlines() if line.strip())


def _sheet(t: Town) -> str:
    """The file name of the town's survey sheet."""
    if t.sheet is None:
        raise ValueError(f"{t.name} has no survey sheet")
    return sheet_file(t.sheet)


SHEET = (
    "Two survey sheets of the gazetteer, File:{a} and File:{b}, are uploaded but not shown on any page yet. Each "
    "sheet maps one town. Show each in the infobox of the town it maps (its Map row), as the towns that already "
    "show their sheet do ({category} lists them all). Change nothing else.",
    "File:{a} and File:{b} are survey sheets that were uploaded to the wiki but appear on no page. Find the town "
    "each one maps and show the sheet in the Map row of that town's infobox, the way the towns that already show "
    "a sheet do ({category} lists them). Change nothing else.",
    "Each of the survey sheets File:{a} and File:{b} maps one town of the gazetteer, but neither is shown anywhere "
    "yet. Add each sheet to the infobox of the town it maps, so that the infobox gets a Map row, like the towns in "
    "{category}. Leave everything else unchanged.",
)


def place_sheets(w: World, seed: int) -> Task:
    """Two uploaded survey sheets are shown nowhere; which town each maps is drawn on the image only."""
    rng = _rng("sheet", seed)
    unplaced = [t for t in w.towns if t.sheet is not None and not t.map_shown]
    a, b = sorted(rng.sample(unplaced, 2), key=lambda t: t.sheet or 0)
    targets = (a, b)
    ids = tuple(_page_id(w, t.name) for t in targets)
    summary = "show the survey sheet"

    def validate(s) -> TaskResult:
        errs = []
        for t, pid in zip(targets, ids, strict=True):
            p = next((r for r in s["page"] if r["page_id"] == pid), None)
            if p is None or p["page_title"] != _db_title(t.name):
                errs.append(f"page {t.name} is gone or renamed")
                continue
            links = {r["il_to"] for r in s["imagelinks"] if r["il_from"] == pid}
            mine, other = _db_title(_sheet(t)), {_db_title(_sheet(x)) for x in targets if x != t}
            if mine not in links:
                errs.append(f"{t.name} does not show File:{_sheet(t)}")
            if links & other:
                errs.append(f"{t.name} shows a sheet that maps another town")
            old, new = page_text(t).rstrip().splitlines(), p["text"].rstrip().splitlines()
            box_end = old.index("}}")  # the infobox's last line (the template call's end)
            ops = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
            changed = [(tag, i1, i2) for tag, i1, i2, _j1, _j2 in ops if tag != "equal"]
            if any(tag != "insert" or i1 > box_end for tag, i1, _ in changed):
                errs.append(f"on {t.name} more changed than a row added to the infobox")
        return TaskResult(not errs, errs)

    def oracle() -> list:
        steps: list = []
        for t in targets:
            steps += [Go(f"/index.php?title={quote('File:' + _sheet(t))}"),
                      *_edit(t.name, page_text(t, show_map=True).rstrip(), summary)]
        return steps

    return Task(instruction=_say("sheet", seed, SHEET, a=_sheet(a), b=_sheet(b), category=SHEET_CATEGORY),
                validate=validate, oracle=oracle,
                forbidden_effects=(OnlyRowsChange("page", ids), MaxInserts("revision", 2, "revision"),
                                   NoChanges(("image", "user"))),
                **_common("sheet", seed, "image_match", 30))


RENAME = (
    "The town {old} has been officially renamed {new}. Sign in to the wiki as Admin (password {pw}), move the page "
    "{old} to {new}, leaving a redirect behind, then change every link to {old} on the other pages (its neighbours "
    "and its region's list) so that it points at {new} directly. Change nothing else.",
    "{old} is now officially called {new}. Log in to the wiki as Admin with password {pw}, move the page {old} to "
    "the title {new} (keep a redirect from the old title), and make every link to {old} on other pages (the "
    "neighbouring towns and the region's list) point straight at {new}. Change nothing else.",
    "Rename the town {old} to {new} on the wiki: sign in as Admin (password {pw}), move its page to {new} with a "
    "redirect left at {old}, then edit the pages that link to {old} (its neighbours and its region's list) so "
    "their links go to {new} directly. Leave everything else as it is.",
)


def rename_town(w: World, seed: int) -> Task:
    """Move a town's page to a new title and point every link to it at the new title."""
    rng = _rng("rename", seed)
    elsewhere = w.linked_elsewhere()  # linked from the Main Page, a river or a region: not renamed here
    t = rng.choice([x for x in w.towns if w.linking_to(x.name) and x.name not in elsewhere])
    new = f"{t.name}-on-{t.river}"
    linking = [x for x in w.towns if t.name in x.neighbours]
    moved = _page_id(w, t.name)
    ids = (moved, *(_page_id(w, x.name) for x in linking), _page_id(w, list_title(t.region)))
    reason = "official name"

    def relinked(x: Town) -> str:
        return page_text(x).rstrip().replace(f"[[{t.name}]]", f"[[{new}]]")

    def validate(s) -> TaskResult:
        errs = []
        p = next((r for r in s["page"] if r["page_id"] == moved), None)
        if p is None or p["page_title"] != _db_title(new):
            errs.append(f"the page of {t.name} is not at the title {new}")
        elif p["text"].rstrip() != page_text(t).rstrip():
            errs.append(f"the text of {new} changed")
        red = next((r for r in s["page"] if r["page_namespace"] == 0 and r["page_title"] == _db_title(t.name)), None)
        if red is None or not any(r["rd_from"] == red["page_id"] and r["rd_title"] == _db_title(new)
                                  for r in s["redirect"]):
            errs.append(f"{t.name} is not left as a redirect to {new}")
        for x in linking:
            q = next((r for r in s["page"] if r["page_id"] == _page_id(w, x.name)), None)
            if q is None or _flat(q["text"].replace(f"[[{new}|{t.name}]]", f"[[{new}]]")) != _flat(relinked(x)):
                errs.append(f"the link on {x.name} does not point at {new}, all else unchanged")
        lst = next((r for r in s["page"] if r["page_id"] == ids[-1]), None)
        want = list_text(w, t.region, rename=(t.name, new))
        if lst is None or _flat(lst["text"].replace(f"[[{new}|{t.name}]]", f"[[{new}]]")) != _flat(want):
            errs.append(f"the link on {list_title(t.region)} does not point at {new}, all else unchanged")
        return TaskResult(not errs, errs)

    def oracle() -> list:
        steps = [*_login(), Go(f"/index.php?title=Special:MovePage/{quote(t.name)}"),
                 Fill(Match(tag="input", attrs=(("name", "wpNewTitleMain"),)), new),
                 Fill(Match(tag="input", attrs=(("name", "wpReason"),)), reason),
                 Click(Match(tag="button", attrs=(("name", "wpMove"),)))]
        for x in linking:
            steps += _edit(x.name, relinked(x), f"link to {new}")
        steps += _edit(list_title(t.region), list_text(w, t.region, rename=(t.name, new)).rstrip(), f"link to {new}")
        return steps

    return Task(instruction=_say("rename", seed, RENAME, old=t.name, new=new, pw=ADMIN_PASSWORD),
                validate=validate, oracle=oracle,
                forbidden_effects=(OnlyRowsChange("page", ids), MaxInserts("page", 1, "page"),
                                   MaxInserts("revision", len(ids) + 2, "revision"), NoChanges(("image", "user"))),
                **_common("rename", seed, "menus_dialogs", 40))


SYNC = (
    "Some population figures on the page {title} are out of date. Make every town's population in that list match "
    'the figure in the infobox of the town\'s own page, with the edit summary "{summary}". Change nothing else.',
    "The list {title} shows outdated populations for some towns. Correct each figure to the one in the infobox of "
    'the town\'s own page, saving with the edit summary "{summary}". Change nothing else.',
    "Bring the population column of {title} up to date: every town's figure there must equal the population in "
    'the infobox of that town\'s page. Use the edit summary "{summary}" and leave everything else unchanged.',
)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def sync_list(w: World, seed: int) -> Task:
    """A region's list shows outdated populations: make each match the town's own infobox."""
    rng = _rng("sync", seed)
    stale = {r: [t for t in w.in_region(r) if t.listed_population is not None] for r in REGIONS}
    most = max(len(ts) for ts in stale.values())
    region = rng.choice(sorted(r for r, ts in stale.items() if len(ts) >= min(3, most)))
    title = list_title(region)
    pid = _page_id(w, title)
    want = list_text(w, region, current=True)
    wrng = random.Random(f"mediawiki-summary-sync-{seed}")
    summary = (f"{wrng.choice(('populations', 'figures', 'town populations', 'census figures'))} "
               f"{wrng.choice(('from the infoboxes', 'checked against the town pages', 'synced with the infoboxes'))}"
               f", {wrng.randint(1, 28)} {wrng.choice(_MONTHS)}")

    def validate(s) -> TaskResult:
        p = next((r for r in s["page"] if r["page_id"] == pid), None)
        if p is None:
            return TaskResult(False, [f"page {title} is gone"])
        # the seed's revisions carry the import's comments, never this summary
        if not any(summary in (r["comment_text"] or "") for r in s["revision"] if r["rev_page"] == pid):
            return TaskResult(False, [f"no new revision of {title} with the edit summary {summary!r}"])
        if _flat(p["text"]) != _flat(want):
            got = dict(re.findall(r"\[\[([^\]|]+)\]\] \|\| ([\d,]+)", p["text"]))
            wrong = [t.name for t in w.in_region(region) if got.get(t.name, "").replace(",", "") != str(t.population)]
            why = (f"populations still differ from the infoboxes for {', '.join(wrong)}" if wrong else
                   "the list changed in more than its population figures")
            return TaskResult(False, [why])
        return TaskResult(True, [])

    def oracle() -> list:
        steps: list = [Go(f"/index.php?title={quote(title)}")]
        for t in w.in_region(region):
            if t.listed_population is not None:
                steps += [Click(Match(role="link", name=t.name)), Go(f"/index.php?title={quote(title)}")]
        return steps + _edit(title, want.rstrip(), summary)

    return Task(instruction=_say("sync", seed, SYNC, title=title, summary=summary),
                validate=validate, oracle=oracle,
                forbidden_effects=(OnlyRowsChange("page", (pid,)), MaxInserts("revision", 1, "revision"),
                                   NoChanges(("image", "user"))),
                **_common("sync", seed, "states", 40))


LARGEST = (
    "Which town on the River {river} in the {region} has the most inhabitants, going by the population in each "
    "town's own infobox? Answer with the town's name.",
    "Among the towns of the {region} that lie on the River {river}, which is the largest by the population its own "
    "wiki page gives? Reply with the name of the town.",
    "According to the infoboxes of the town pages, which of the {region}'s towns on the River {river} has the "
    "largest population? Answer with its name.",
)


def largest_on_river(w: World, seed: int) -> Task:
    """Information seeking across a region's list and every town page on one river: the list's figures
    are partly out of date, so each town's infobox must be read."""
    rng = _rng("largest", seed)
    combos = sorted({(t.region, t.river) for t in w.towns})
    while True:
        region, river = rng.choice(combos)
        on = [t for t in w.in_region(region) if t.river == river]
        pops = sorted((t.population for t in on), reverse=True)
        if 8 <= len(on) <= 14 and pops[0] != pops[1]:
            break
    best = max(on, key=lambda t: t.population)
    typ = names([t.name for t in w.towns], label="town")

    def validate(s) -> TaskResult:
        errs = check_answer(s, best.name, typ)
        return TaskResult(not errs, errs)

    def oracle() -> list:
        return [_view(list_title(region)), *[_view(t.name) for t in on], Done(best.name)]

    return Task(instruction=_say("largest", seed, LARGEST, river=river, region=region),
                validate=validate, answer=best.name, answer_type=typ,
                forbidden_effects=(NoChanges(("page", "revision")),),
                oracle=oracle, **_common("largest", seed, "similar_options", 30))


FAMILIES: dict[str, Callable[[World, int], Task]] = {name: worded_family(make) for name, make in {
    "mediawiki.census": census_update, "mediawiki.district": largest_district, "mediawiki.older": older_town,
    "mediawiki.add": add_district, "mediawiki.new": new_town_page, "mediawiki.sheet": place_sheets,
    "mediawiki.rename": rename_town, "mediawiki.sync": sync_list, "mediawiki.largest": largest_on_river,
}.items()}



# the oracle's longest run (element mode) over seeds 0-199 per family, printed by
# ``python -m webgauge.arena.tasks.budget_table``; the budgets derive from it (tests/arena/test_budgets.py)
ORACLE_MAX: dict[str, int] = {
    "add": 4,
    "census": 5,
    "district": 2,
    "largest": 16,
    "new": 4,
    "older": 3,
    "rename": 41,
    "sheet": 11,
    "sync": 16,
}

FAMILIES = budgeted_app(FAMILIES, ORACLE_MAX, IRREVERSIBLE)


def build_tasks(seeds=(0,), families=None) -> list[Task]:
    out = []
    for seed in seeds:
        towns = world(seed)
        out += [make(towns, seed) for name, make in FAMILIES.items() if families is None or name in families]
    return out
