"""Docs-wiki task families: search a client-rendered wiki, read facts, edit a page, and use
what the wiki says in another app."""

from __future__ import annotations

import json
import random

from ..apps.admin import ROLES
from ..content.pools import phrase, pool_for
from ..core.answers import COUNT, DATE, EMAIL, AnswerType, check_answer, code, names
from ..core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRowsChange
from ..core.script import Click, Done, Fill, Go, Match, Select
from ..core.task import Task, TaskResult, Viewport
from .admin import UNTOUCHED, _unique, account, find_user_steps, start_path
from .common import State, rows_by

DESKTOP = Viewport(1280, 800, 1.0)

_ASK = {
    "Owner": ("Who owns the {title} page in the docs? Reply with the person's name.",
              "According to the docs wiki, who is the owner of '{title}'? Answer with the name.",
              "Look up '{title}' in the documentation and tell me who owns it."),
    "Retention (days)": ("How many days does the docs page '{title}' say records are retained? Answer with the number.",
                         "Find '{title}' in the wiki and reply with its retention period in days.",
                         "What retention (in days) is documented on '{title}'?"),
    "Cost centre": ("What cost centre is listed on the '{title}' docs page? Reply with the code.",
                    "Search the docs for '{title}' and answer with its cost centre.",
                    "Which cost centre does the wiki page '{title}' name?"),
    "Escalation contact": ("Who is the escalation contact on '{title}'? Reply with the email address.",
                           "Find the escalation contact's email on the docs page '{title}'.",
                           "According to the wiki page '{title}', which address should urgent problems go to?"),
    "Next review": ("When is the next review of '{title}' due, per the docs? Answer with the date (YYYY-MM-DD).",
                    "Look up '{title}' in the wiki and reply with its next review date.",
                    "What next-review date does the docs page '{title}' give?"),
}


def _pages(state: State) -> list[dict]:
    return [{**p, "facts": json.loads(p["facts"])} for p in state["wiki_pages"]]


def _people(state: State) -> list[str]:
    """Every person's name in the world (the candidates of a "who" answer)."""
    return [u["name"] for u in state["admin_users"]] + [u["name"] for u in state["forum_users"]] + \
        [json.loads(p["facts"])["Owner"] for p in state["wiki_pages"]]


def _fact_type(key: str, state: State) -> AnswerType:
    titles = [p["title"] for p in state["wiki_pages"]]
    return {"Owner": lambda: names(_people(state), label="person's name", context=titles),
            "Retention (days)": lambda: COUNT,
            "Cost centre": lambda: code("CC", r"\d{4}", label="cost centre"), "Escalation contact": lambda: EMAIL,
            "Next review": lambda: DATE}[key]()


def _open_page(p: dict) -> list:
    return [Fill(Match(role="textbox", name="Search the docs"), p["title"]), Click(Match(role="button", name="Search")),
            Click(Match(role="link", name=p["title"]))]


def lookup(seed: int, state: State) -> Task:
    """Answer a question from one of ~320 similar pages (search, pick the right team's page)."""
    rng = random.Random(f"wiki.lookup:{seed}")
    p = rng.choice(_pages(state))
    key = rng.choice(sorted(_ASK))
    value = p["facts"][key]
    instruction = phrase(rng, _ASK[key], title=p["title"])
    typ = _fact_type(key, state)

    def validate(s: State) -> TaskResult:
        errs = check_answer(s, value, typ)
        return TaskResult(not errs, errs)

    return Task(
        id=f"wiki.lookup.s{seed}", seed=seed, start_url="/wiki/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="wiki.lookup", pattern="similar_options", max_steps=10, answer=value,
        answer_type=typ,
        forbidden_effects=(NoChanges(("wiki_pages", "wiki_revisions") + UNTOUCHED[1:]),),
        oracle=lambda: [*_open_page(p), Done(value)],
    )


def update_fact(seed: int, state: State) -> Task:
    """Edit one fact of a page in the client-side editor; saving shows a transient notification."""
    rng = random.Random(f"wiki.update_fact:{seed}")
    p = rng.choice(_pages(state))
    old = int(p["facts"]["Retention (days)"])
    new = str(rng.choice([d for d in (30, 45, 60, 90, 120, 180, 365, 400, 730) if d != old]))
    # the topic comes from the seed's slice of the pool: held-out summaries never repeat a public one
    summary = f"{rng.choice(['policy update', 'align with legal', 'retention rule', 'per audit', 'review'])}: " \
              f"{pool_for(seed, 'wiki.update_fact.summary').topic()}"
    instruction = phrase(rng, (
        "Change the retention on the docs page '{title}' to {new} days, with the edit summary '{summary}'.",
        "The wiki page '{title}' should say records are kept for {new} days. Edit it (summary: '{summary}').",
        "Update '{title}' in the docs: retention is now {new} days. Use '{summary}' as the edit summary.",
    ), title=p["title"], new=new, summary=summary)

    def validate(s: State) -> TaskResult:
        row = rows_by(s, "wiki_pages", "id")[p["id"]]
        facts = json.loads(row["facts"])
        errs = [] if facts.get("Retention (days)") == new else \
            [f"retention is {facts.get('Retention (days)')!r}, expected {new!r}"]
        errs += [f"{k} changed to {facts.get(k)!r}" for k in p["facts"] if k != "Retention (days)"
                 and facts.get(k) != p["facts"][k]]
        revs = [r for r in s["wiki_revisions"] if r["page_id"] == p["id"]]
        if not revs or revs[-1]["summary"].strip().lower() != summary:
            errs.append(f"no revision with the edit summary {summary!r}")
        return TaskResult(not errs, errs)

    return Task(
        id=f"wiki.update_fact.s{seed}", seed=seed, start_url="/wiki/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="wiki.update_fact", pattern="states", max_steps=12,
        forbidden_effects=(OnlyRowsChange("wiki_pages", (p["id"],)), MaxInserts("wiki_revisions", 1, "revision"),
                           NoDeletes(("wiki_pages",)), NoChanges(("admin_users",) + UNTOUCHED[1:])),
        oracle=lambda: [*_open_page(p), Click(Match(role="button", name="Edit page")),
                        Fill(Match(role="textbox", name="Retention (days)"), new),
                        Fill(Match(role="textbox", name="Edit summary"), summary),
                        Click(Match(role="button", name="Save page"))],
    )


def owner_to_admin(seed: int, state: State) -> Task:
    """Cross-app: read a page's owner in the wiki, change that person's role in the admin
    console, and answer with their team (state and answer; about 13 actions)."""
    rng = random.Random(f"wiki.owner_to_admin:{seed}")
    users = {u["name"]: u for u in state["admin_users"]}
    unique = {u["name"] for u in _unique(state)}  # names the admin filter finds exactly
    role = rng.choice(("Reviewer", "Editor", "Billing manager"))
    p = rng.choice([p for p in _pages(state) if p["facts"]["Owner"] in unique
                    and users[p["facts"]["Owner"]]["role"] != role])
    owner = users[p["facts"]["Owner"]]
    team_type = names({u["team"] for u in state["admin_users"]}, label="team",
                      context=[q["title"] for q in state["wiki_pages"]] + list(ROLES))
    user = account(state)[0]
    instruction = phrase(rng, (
        "Find the owner of the docs page '{title}', then give that person the {role} role in the admin console "
        "(you are signed in as {user}). Reply with the owner's team.",
        "Whoever owns '{title}' in the wiki needs the {role} role. Make the change in the admin console "
        "(signed in as {user}) and answer with that person's team.",
        "Look up the owner of '{title}' in the docs; in the admin console (signed in as {user}) set their "
        "role to {role}; then tell me which team they are in.",
    ), title=p["title"], role=role, user=user)

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "admin_users", "id").get(owner["id"], {}).get("role")
        errs = [] if got == role else [f"{owner['name']} has role {got!r}, expected {role!r}"]
        errs += check_answer(s, owner["team"], team_type)
        return TaskResult(not errs, errs)

    return Task(
        id=f"wiki.owner_to_admin.s{seed}", seed=seed, start_url=start_path(state, "/wiki/"), viewport=DESKTOP,
        instruction=instruction,
        validate=validate, family="wiki.owner_to_admin", pattern="popups_tabs", max_steps=22, answer=owner["team"],
        answer_type=team_type,
        forbidden_effects=(OnlyRowsChange("admin_users", (owner["id"],)), NoDeletes(("admin_users",)),
                           NoChanges(("wiki_pages", "wiki_revisions", "meta_flags") + UNTOUCHED[1:])),
        oracle=lambda: [*_open_page(p), Go("/admin/"), *find_user_steps(owner["name"]),
                        Select(Match(tag="select", attrs=(("name", "role"),)), role),
                        Click(Match(role="button", name="Save role")), Done(owner["team"])],
    )


def team_retention(seed: int, state: State) -> Task:
    """Long: every page of one team in one section gets a new retention, each with an edit
    summary (search the team, pick its pages of that section, edit each: 15-23 actions)."""
    rng = random.Random(f"wiki.team_retention:{seed}")
    groups: dict[tuple[str, str], list[dict]] = {}
    for p in _pages(state):
        groups.setdefault((p["team"], p["section"]), []).append(p)
    team, section = rng.choice(sorted(k for k, v in groups.items() if 2 <= len(v) <= 3))
    targets = sorted(groups[(team, section)], key=lambda p: p["title"])
    ids = tuple(p["id"] for p in targets)
    new = str(rng.choice([d for d in (30, 45, 60, 90, 120, 180, 365, 400, 730)
                          if all(int(p["facts"]["Retention (days)"]) != d for p in targets)]))
    summary = f"{rng.choice(['team policy', 'retention sweep', 'records rule', 'audit finding'])}: " \
              f"{pool_for(seed, 'wiki.team_retention.summary').topic()}"
    instruction = phrase(rng, (
        "Every {section} page of {team} in the docs must now say records are kept for {new} days. Update each one "
        "(edit summary '{summary}') and leave every other page alone.",
        "{team} changed its retention rule: all of its wiki pages in the {section} section get {new} days. Edit them "
        "with the summary '{summary}'; pages of other teams or sections stay as they are.",
        "Set 'Retention (days)' to {new} on each docs page that belongs to {team} and sits in {section}. Use "
        "'{summary}' as the edit summary every time.",
    ), team=team, section=section, new=new, summary=summary)

    def validate(s: State) -> TaskResult:
        by = rows_by(s, "wiki_pages", "id")
        errs = []
        for p in targets:
            facts = json.loads(by[p["id"]]["facts"])
            if facts.get("Retention (days)") != new:
                errs.append(f"{p['title']}: retention is {facts.get('Retention (days)')!r}, expected {new!r}")
            errs += [f"{p['title']}: {k} changed" for k in p["facts"] if k != "Retention (days)"
                     and facts.get(k) != p["facts"][k]]
            revs = [r for r in s["wiki_revisions"] if r["page_id"] == p["id"]]
            if not revs or revs[-1]["summary"].strip().lower() != summary.lower():
                errs.append(f"{p['title']}: no revision with the edit summary {summary!r}")
        return TaskResult(not errs, errs)

    def oracle() -> list:
        steps: list = []
        for i, p in enumerate(targets):
            steps += [Go("/wiki/")] if i else []  # back to the search (page views have none)
            steps += [*_open_page(p), Click(Match(role="button", name="Edit page")),
                      Fill(Match(role="textbox", name="Retention (days)"), new),
                      Fill(Match(role="textbox", name="Edit summary"), summary),
                      Click(Match(role="button", name="Save page"))]
        return steps

    return Task(
        id=f"wiki.team_retention.s{seed}", seed=seed, start_url="/wiki/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="wiki.team_retention", pattern="similar_options", max_steps=12 + 9 * len(targets),
        forbidden_effects=(OnlyRowsChange("wiki_pages", ids), MaxInserts("wiki_revisions", len(ids), "revision"),
                           NoDeletes(("wiki_pages",)), NoChanges(("admin_users",) + UNTOUCHED[1:])),
        oracle=oracle,
    )


FAMILIES = (lookup, update_fact, owner_to_admin, team_retention)
