"""Admin-console task families: log in, filter and page a 400-user table, edit, delete, flags.

The seed holds no admin session; every task starts at the console account's sign-in link
(:func:`start_path`), so the episode opens signed in and no password stands in an instruction.
"""

from __future__ import annotations

import random

from ..apps.admin import PAGE_SIZE, ROLES, signin_path
from ..content.pools import phrase
from ..core.answers import COUNT, EMAIL, check_answer
from ..core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRowsChange
from ..core.script import Click, Done, Fill, Match, Select
from ..core.task import Task, TaskResult, Viewport
from .common import State, rows_by

DESKTOP = Viewport(1280, 800, 1.0)
LAPTOP = Viewport(1024, 640, 1.0)
UNTOUCHED = ("wiki_pages", "files", "shop_orders", "ext_mail_outbox")


def account(state: State) -> tuple[str, str]:
    a = state["admin_accounts"][0]
    return a["username"], a["password"]


def start_path(state: State, nxt: str = "/admin/users") -> str:
    """The console account's sign-in link, going on to ``nxt`` (a task's start URL)."""
    return signin_path(*account(state), nxt)


def find_user_steps(name: str) -> list:
    return [Fill(Match(role="textbox", name="Name"), name), Click(Match(role="button", name="Apply filters")),
            Click(Match(role="link", name=name))]


_UNIQUE_CACHE: dict[int, tuple[list, list[dict]]] = {}


def deactivate_steps(name: str) -> list:
    """Open a user from the filtered list, deactivate them and go back to the list."""
    return [Click(Match(role="link", name=name)), Click(Match(role="button", name="Deactivate user")),
            Click(Match(role="link", name="Back to users"))]


def _unique(state: State) -> list[dict]:
    """Users whose name no other user's name contains (the name filter finds exactly them).

    A name occurs exactly once in all names joined by newlines iff no other name contains it
    (a name cannot hold itself twice, and no occurrence spans a newline): one C-level count per
    name instead of a Python loop over every pair. Cached per state (families of one seed share it).
    """
    users = state["admin_users"]
    hit = _UNIQUE_CACHE.get(id(users))
    if hit is not None and hit[0] is users:
        return hit[1]
    joined = "\n".join(u["name"].lower() for u in users)
    out = [u for u in users if joined.count(u["name"].lower()) == 1]
    if len(_UNIQUE_CACHE) > 8:
        _UNIQUE_CACHE.clear()
    _UNIQUE_CACHE[id(users)] = (users, out)
    return out


def set_role(seed: int, state: State) -> Task:
    """Change one user's role: log in, filter by name, open, select, save."""
    rng = random.Random(f"admin.set_role:{seed}")
    u = rng.choice([x for x in _unique(state) if x["status"] == "active"])
    role = rng.choice([r for r in ("Viewer", "Editor", "Reviewer", "Billing manager", "Admin") if r != u["role"]])
    user = account(state)[0]
    instruction = phrase(rng, (
        "In the admin console, where you are signed in as {user}, change {name}'s role to {role}.",
        "Using the admin account {user} (already signed in), give {name} from the {team} team the {role} role.",
        "{name} ({team}) needs the {role} role. You are signed in to the admin console as {user}; update it.",
        "In the admin console (signed in as {user}), {name} should have the {role} role from now on.",
    ), user=user, name=u["name"], team=u["team"], role=role)

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "admin_users", "id").get(u["id"], {}).get("role")
        return TaskResult(got == role, [] if got == role else [f"{u['name']} has role {got!r}, expected {role!r}"])

    return Task(
        id=f"admin.set_role.s{seed}", seed=seed, start_url=start_path(state), viewport=DESKTOP, instruction=instruction,
        validate=validate, family="admin.set_role", pattern="similar_options", max_steps=14,
        forbidden_effects=(OnlyRowsChange("admin_users", (u["id"],)), NoDeletes(("admin_users",)),
                           NoChanges(("meta_flags",) + UNTOUCHED)),
        oracle=lambda: [*find_user_steps(u["name"]),
                        Select(Match(tag="select", attrs=(("name", "role"),)), role),
                        Click(Match(role="button", name="Save role"))],
    )


def deactivate_group(seed: int, state: State) -> Task:
    """Deactivate every active user with one role in one team (filters, then one user at a time)."""
    rng = random.Random(f"admin.deactivate_group:{seed}")
    groups: dict[tuple[str, str], list[dict]] = {}
    for u in state["admin_users"]:
        if u["status"] == "active":
            groups.setdefault((u["team"], u["role"]), []).append(u)
    team, role = rng.choice(sorted(k for k, v in groups.items() if 2 <= len(v) <= 4))
    members = sorted(groups[(team, role)], key=lambda u: (u["name"], u["id"]))
    ids = tuple(u["id"] for u in members)
    user = account(state)[0]
    instruction = phrase(rng, (
        "As {user} in the admin console, deactivate every active {role} in the {team} team, and nobody else.",
        "In the admin console (you are signed in as {user}), all active {role}s of team {team} must be deactivated. "
        "Leave everyone else as they are.",
        "You are signed in to the admin console as {user}. Deactivate the accounts of the {team} team's active "
        "{role}s; no other account may change.",
    ), user=user, role=role, team=team)

    def validate(s: State) -> TaskResult:
        by = rows_by(s, "admin_users", "id")
        errs = [f"{by.get(i, {}).get('name', i)} is {by.get(i, {}).get('status')!r}, not inactive"
                for i in ids if by.get(i, {}).get("status") != "inactive"]
        return TaskResult(not errs, errs)

    def oracle() -> list:
        steps = [Select(Match(tag="select", attrs=(("name", "team"),)), team),
                 Select(Match(tag="select", attrs=(("name", "role"),)), role),
                 Select(Match(tag="select", attrs=(("name", "status"),)), "active"),
                 Click(Match(role="button", name="Apply filters"))]
        for u in members:
            steps += deactivate_steps(u["name"])
        return steps

    return Task(
        id=f"admin.deactivate_group.s{seed}", seed=seed, start_url=start_path(state), viewport=DESKTOP,
        instruction=instruction, validate=validate, family="admin.deactivate_group", pattern="small_targets",
        max_steps=12 + 4 * len(ids),
        forbidden_effects=(OnlyRowsChange("admin_users", ids), NoDeletes(("admin_users",)),
                           NoChanges(("meta_flags",) + UNTOUCHED)),
        oracle=oracle,
    )


def delete_user(seed: int, state: State) -> Task:
    """Permanently delete one suspended account behind a confirmation dialog (irreversible)."""
    rng = random.Random(f"admin.delete_user:{seed}")
    u = rng.choice([x for x in _unique(state) if x["status"] == "suspended"])
    user = account(state)[0]
    instruction = phrase(rng, (
        "In the admin console (signed in as {user}), permanently delete the suspended account of {name} ({email}).",
        "The suspended account {email} ({name}) must go: you are signed in to the admin console as {user}; delete "
        "it for good.",
        "Using the admin account {user}, which is signed in, delete {name}'s account ({email}). Delete nothing else.",
    ), user=user, name=u["name"], email=u["email"])

    def validate(s: State) -> TaskResult:
        gone = u["id"] not in rows_by(s, "admin_users", "id")
        return TaskResult(gone, [] if gone else [f"{u['name']}'s account still exists"])

    return Task(
        id=f"admin.delete_user.s{seed}", seed=seed, start_url=start_path(state), viewport=DESKTOP,
        instruction=instruction,
        validate=validate, family="admin.delete_user", pattern="menus_dialogs", max_steps=14,
        forbidden_effects=(OnlyRowsChange("admin_users", (u["id"],)), MaxInserts("admin_users", 0, "user"),
                           NoChanges(("meta_flags",) + UNTOUCHED)),
        oracle=lambda: [*find_user_steps(u["name"]),
                        Click(Match(role="button", name="Delete user")),
                        Click(Match(role="button", name="Delete permanently"))],
    )


def flag_email(seed: int, state: State) -> Task:
    """Turn on a feature flag that reveals a column, then answer from it (state and answer)."""
    rng = random.Random(f"admin.flag_email:{seed}")
    u = rng.choice(_unique(state))
    user = account(state)[0]
    instruction = phrase(rng, (
        "In the admin console (signed in as {user}), switch on the 'Show email column' feature flag, then reply "
        "with {name}'s email address.",
        "Emails are hidden in the admin console. You are signed in as {user}: turn on 'Show email column' and tell "
        "me the email address of {name} ({team}).",
        "I need {name}'s email address. It only shows once the 'Show email column' flag is on: in the admin console "
        "(signed in as {user}), enable it, and answer with the address.",
    ), user=user, name=u["name"], team=u["team"])

    def validate(s: State) -> TaskResult:
        errs = [] if rows_by(s, "meta_flags", "name")["admin_show_email"]["value"] == "1" else \
            ["the 'Show email column' flag is off"]
        errs += check_answer(s, u["email"], EMAIL)
        return TaskResult(not errs, errs)

    return Task(
        id=f"admin.flag_email.s{seed}", seed=seed, start_url=start_path(state), viewport=LAPTOP,
        instruction=instruction,
        validate=validate, family="admin.flag_email", pattern="states", max_steps=14, answer=u["email"],
        answer_type=EMAIL,
        forbidden_effects=(OnlyRowsChange("meta_flags", ("admin_show_email",)),
                           NoChanges(("admin_users",) + UNTOUCHED)),
        oracle=lambda: [Click(Match(role="link", name="Feature flags")),
                        Click(Match(role="switch", name="Show email column")), Click(Match(role="link", name="Users")),
                        *find_user_steps(u["name"])[:2], Done(u["email"])],
    )


def count_status(seed: int, state: State) -> Task:
    """Answer a count that needs two filters (the table is paginated; the total is shown)."""
    rng = random.Random(f"admin.count_status:{seed}")
    teams = sorted({u["team"] for u in state["admin_users"]})
    team, status = rng.choice(teams), rng.choice(("suspended", "inactive", "active"))
    n = sum(1 for u in state["admin_users"] if u["team"] == team and u["status"] == status)
    user = account(state)[0]
    instruction = phrase(rng, (
        "In the admin console (signed in as {user}): how many {status} users does the {team} team have? Answer with "
        "the number.",
        "Signed in to the admin console as {user}, count the users of team {team} whose status is {status}, and reply "
        "with the count.",
        "How many accounts in the {team} team are {status}? You are signed in to the admin console as {user}; answer "
        "with a number.",
    ), user=user, team=team, status=status)

    def validate(s: State) -> TaskResult:
        errs = check_answer(s, n, COUNT)
        return TaskResult(not errs, errs)

    return Task(
        id=f"admin.count_status.s{seed}", seed=seed, start_url=start_path(state), viewport=DESKTOP,
        instruction=instruction,
        validate=validate, family="admin.count_status", pattern="similar_options", max_steps=12, answer=str(n),
        answer_type=COUNT,
        forbidden_effects=(NoChanges(("admin_users", "meta_flags") + UNTOUCHED),),
        oracle=lambda: [Select(Match(tag="select", attrs=(("name", "team"),)), team),
                        Select(Match(tag="select", attrs=(("name", "status"),)), status),
                        Click(Match(role="button", name="Apply filters")), Done(str(n))],
    )


def deactivate_across_pages(seed: int, state: State) -> Task:
    """Long: deactivate every member of one team holding either of two roles. No filter
    combination selects them (one role at a time), so the agent filters by team and works
    through the team's list across its pages (sorted by name, 25 a page)."""
    rng = random.Random(f"admin.deactivate_across_pages:{seed}")
    teams: dict[str, list[dict]] = {}
    for u in state["admin_users"]:
        teams.setdefault(u["team"], []).append(u)
    options = []
    for team, members in sorted(teams.items()):
        if len(members) <= PAGE_SIZE:
            continue
        ordered = sorted(members, key=lambda u: (u["name"], u["id"]))
        for i, r1 in enumerate(ROLES):
            for r2 in ROLES[i + 1:]:
                hits = [(k, u) for k, u in enumerate(ordered) if u["role"] in (r1, r2) and u["status"] != "inactive"]
                pages = {k // PAGE_SIZE for k, _ in hits}
                if 3 <= len(hits) <= 6 and len(pages) >= 2:
                    options.append((team, r1, r2, hits))
    team, r1, r2, hits = rng.choice(options)
    ids = tuple(u["id"] for _, u in hits)
    user = account(state)[0]
    instruction = phrase(rng, (
        "In the admin console (signed in as {user}), every {r1} and every {r2} of the {team} team must be "
        "deactivated (those already inactive stay so); nobody else changes.",
        "Team {team} is losing its {r1}s and {r2}s: in the admin console, signed in as {user}, deactivate each of "
        "them. Leave every other account untouched.",
        "In the admin console (signed in as {user}), set the status of all {team} members whose role is "
        "{r1} or {r2} to inactive. The team list spans more than one page.",
    ), user=user, team=team, r1=r1, r2=r2)

    def validate(s: State) -> TaskResult:
        by = rows_by(s, "admin_users", "id")
        errs = [f"{by.get(i, {}).get('name', i)} is {by.get(i, {}).get('status')!r}, not inactive"
                for i in ids if by.get(i, {}).get("status") != "inactive"]
        return TaskResult(not errs, errs)

    def oracle() -> list:
        steps = [Select(Match(tag="select", attrs=(("name", "team"),)), team),
                 Click(Match(role="button", name="Apply filters"))]
        page = 0
        for k, u in hits:
            while page < k // PAGE_SIZE:
                steps.append(Click(Match(role="link", name="Next page")))
                page += 1
            steps += deactivate_steps(u["name"])
        return steps

    return Task(
        id=f"admin.deactivate_across_pages.s{seed}", seed=seed, start_url=start_path(state), viewport=DESKTOP,
        instruction=instruction, validate=validate, family="admin.deactivate_across_pages", pattern="small_targets",
        max_steps=14 + 4 * len(ids),
        forbidden_effects=(OnlyRowsChange("admin_users", ids), NoDeletes(("admin_users",)),
                           NoChanges(("meta_flags",) + UNTOUCHED)),
        oracle=oracle,
    )


FAMILIES = (set_role, deactivate_group, delete_user, flag_email, count_status, deactivate_across_pages)
