"""Task families on the Trac forge: validators read Trac's own tables (the rows :func:`~.app.state`
selects with SQL), oracles drive Trac's real pages.

Every family picks its targets from the seed's content (:func:`~.content.world`), so a task is a
pure function of the seed; ticket ``k`` of the content is Trac's ticket ``#k+1`` (the seed script
inserts them in order). Answer families are judged by the typed judge (:mod:`webgauge.arena.core.answers`)
against values computed from the content, which the seeded snapshot stores unchanged.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from urllib.parse import quote

from ...content.pools import phrase
from ...content.worded import worded_family
from ...core.answers import check_answer, names
from ...core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRowsChange
from ...core.script import Click, Done, Fill, Go, Match, Select
from ...core.task import Task, TaskResult, Viewport
from ...tasks.budgets import budgeted_app
from .app import IRREVERSIBLE
from .content import Person, World, world

__all__ = ["FAMILIES", "build_tasks", "sections"]

VIEW = Viewport(1280, 900)
OPEN = ("new", "assigned", "accepted", "reopened")
GRANTS = ("TICKET_BATCH_MODIFY", "WIKI_ADMIN", "TICKET_EDIT_CC", "REPORT_MODIFY", "MILESTONE_CREATE",
          "TICKET_EDIT_DESCRIPTION")
READ_ONLY = ("ticket", "ticket_change", "milestone", "component", "wiki", "permission")


def _rng(family: str, seed: int) -> random.Random:
    return random.Random(f"trac-task-{family}-{seed}")


def _say(family: str, seed: int, templates: tuple[str, ...], **fields: object) -> str:
    return phrase(random.Random(f"trac-wording-{family}-{seed}"), templates, **fields)


def _common(family: str, seed: int, pattern: str, max_steps: int) -> dict:
    return {"id": f"trac.{family}.s{seed}", "family": f"trac.{family}", "seed": seed, "start_url": "/",
            "viewport": VIEW, "pattern": pattern, "max_steps": max_steps}


def _input(name: str, nth: int = 0) -> Match:
    return Match(tag="input", attrs=(("name", name),), nth=nth)


def _login(p: Person) -> list:
    return [Click(Match(role="link", name="Login")), Fill(_input("username"), p.username),
            Fill(_input("password"), p.password),
            Click(Match(tag="input", attrs=(("type", "submit"), ("value", "Login"))))]


def _norm(text: str | None) -> str:
    return " ".join((text or "").split())


def _ticket(s, tid: int) -> dict | None:
    return next((r for r in s["ticket"] if r["id"] == tid), None)


def _new_comments(s, tid: int, before: set[str]) -> list[dict]:
    return [r for r in s["ticket_change"] if r["ticket"] == tid and r["field"] == "comment" and r["key"] not in before]


def _answer_task(validate_expected, typ, answer: str):
    def validate(s) -> TaskResult:
        errs = check_answer(s, validate_expected, typ)
        return TaskResult(not errs, errs)

    return {"validate": validate, "answer": answer, "answer_type": typ,
            "forbidden_effects": (NoChanges(READ_ONLY),)}


# --- information seeking -------------------------------------------------------------------------------

BUSIEST = (
    "Which milestone has the most open {what} in the {comp} component? Answer with the milestone's name.",
    "Look at the {what} of the {comp} component that are not closed yet. Which milestone holds the most of them? "
    "Reply with the milestone.",
    "Among the milestones, which one has the largest number of open {what} in {comp}? Give its name.",
)


def busiest_milestone(w: World, seed: int) -> Task:
    rng = _rng("busiest", seed)
    filters = [(c.name, "type", t, f"{t} tickets") for c in w.components for t in ("defect", "enhancement", "task")]
    filters += [(c.name, "owner", p.username, f"tickets owned by {p.realname}") for c in w.components
                for p in w.people if p.role != "reporter"]
    rng.shuffle(filters)
    for pick in filters:
        comp, col, val, what = pick
        counts = Counter(t.milestone for t in w.tickets if t.component == comp and t.status != "closed"
                         and getattr(t, col) == val)
        ranked = counts.most_common()
        if ranked and ranked[0][1] >= 2 and (len(ranked) == 1 or ranked[1][1] < ranked[0][1]):
            top = ranked[0][0]
            break
    else:
        raise AssertionError(f"seed {seed}: every filter has a tie for its busiest milestone")
    typ = names([m.name for m in w.milestones], label="milestone", context=[c.name for c in w.components])
    return Task(instruction=_say("busiest", seed, BUSIEST, comp=comp, what=what),
                oracle=lambda: [Go(f"/query?component={quote(comp)}&{col}={quote(val)}&status=!closed"
                                   "&group=milestone&max=500"), Done(top)],
                **_answer_task(top, typ, top), **_common("busiest", seed, "similar_options", 8))


COMMITTER = (
    'In the {repo} repository, who committed the change "{msg}"? Answer with the person\'s full name.',
    'Find the commit "{msg}" in the {repo} repository and tell me who made it (full name).',
    'Who is the author of the commit with the message "{msg}" in {repo}? Reply with their full name.',
)


def committer(w: World, seed: int) -> Task:
    rng = _rng("committer", seed)
    repo = rng.choice(w.repos)
    commits = [c for c in repo.main if c.message != "Initial import"]
    c = rng.choice(commits)
    who = w.person(c.author).realname
    typ = names([p.realname for p in w.people], label="person", context=[r.name for r in w.repos])
    return Task(instruction=_say("committer", seed, COMMITTER, repo=repo.name, msg=c.message),
                oracle=lambda: [Go(f"/search?q={quote(c.message)}&changeset=on"), Done(who)],
                **_answer_task(who, typ, who), **_common("committer", seed, "similar_options", 8))


TAG = (
    'Which is the earliest release tag of the {repo} repository that contains the commit "{msg}"? Answer with the '
    "tag's name.",
    'The commit "{msg}" in {repo}: in which release (git tag) did it ship first? Reply with the tag.',
    'Find the first tag of {repo} whose history includes the change "{msg}" and give me that tag.',
)


def first_tag(w: World, seed: int) -> Task:
    rng = _rng("tag", seed)
    repo = rng.choice(w.repos)
    last = max(k for _, k in repo.tags)
    i = rng.randrange(1, last + 1)
    c = repo.main[i]
    tag = min(((k, t) for t, k in repo.tags if k >= i))[1]
    typ = names([t for t, _ in repo.tags], label="tag", context=[r.name for r in w.repos])
    return Task(instruction=_say("tag", seed, TAG, repo=repo.name, msg=c.message),
                oracle=lambda: [Go(f"/log/{quote(repo.name)}?rev={quote(tag)}&limit=200"), Done(tag)],
                **_answer_task(tag, typ, tag), **_common("tag", seed, "similar_options", 8))


# --- content changes -----------------------------------------------------------------------------------

FILE = (
    'Sign in as {user} (password {pw}) and file a {type} ticket "{summary}" in the {comp} component for milestone '
    "{ms}, priority {prio}, assigned to {owner} right away, with the description: {body}",
    'Log in as {user} / {pw}. Create a new {type} ticket titled "{summary}": component {comp}, milestone {ms}, '
    "priority {prio}, and assign it to {owner} when you create it. Description: {body}",
    'As {user} (password {pw}), open a ticket of type {type} with the summary "{summary}" for {comp}, targeted at '
    "milestone {ms} with priority {prio}; it should be assigned to {owner} from the start. Use this description: "
    "{body}",
)


def file_ticket(w: World, seed: int) -> Task:
    rng = _rng("file", seed)
    user = rng.choice(w.people)
    comp = rng.choice(w.components)
    owner = w.person(rng.choice([p.username for p in w.people if p.role != "reporter" and p.username != comp.owner]))
    ms = rng.choice([m.name for m in w.milestones if m.completed is None])
    ttype = rng.choice(("defect", "enhancement", "task"))
    prio = rng.choice(("blocker", "critical", "major", "minor"))
    subject, verb = rng.choice((("The export button", "ignores"), ("Archived projects", "ignore"),
                                ("The audit log", "drops"), ("Nightly reports", "skip")))
    summary = f"{subject} {verb} the {comp.name} settings after a {rng.choice(('restart', 'migration', 'failover'))}"
    body = (f"Noticed by {user.realname} on build {rng.randint(4000, 4999)}: the settings page shows the old values "
            "until the cache expires.")
    n0 = len(w.tickets)

    def validate(s) -> TaskResult:
        new = [r for r in s["ticket"] if r["id"] > n0]
        if len(new) != 1:
            return TaskResult(False, [f"{len(new)} new tickets, expected exactly one"])
        row, errs = new[0], []
        for col, want in (("summary", summary), ("type", ttype), ("component", comp.name), ("milestone", ms),
                          ("priority", prio), ("owner", owner.username), ("reporter", user.username),
                          ("status", "assigned")):
            if (row[col] or "").strip() != want:
                errs.append(f"{col} is {row[col]!r}, not {want!r}")
        if _norm(body) not in _norm(row["description"]):
            errs.append("the description does not carry the given text")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("file", seed, FILE, user=user.username, pw=user.password, type=ttype, summary=summary,
                                 comp=comp.name, ms=ms, prio=prio, owner=f"{owner.realname} ({owner.username})",
                                 body=body),
                validate=validate,
                forbidden_effects=(OnlyRowsChange("ticket", ()), MaxInserts("ticket", 1, "ticket"),
                                   NoChanges(("milestone", "component", "permission", "wiki"))),
                oracle=lambda: [*_login(user), Go("/newticket"),
                                Fill(_input("field_summary"), summary),
                                Fill(Match(tag="textarea", attrs=(("name", "field_description"),)), body),
                                Select(Match(tag="select", attrs=(("name", "field_type"),)), ttype),
                                Select(Match(tag="select", attrs=(("name", "field_priority"),)), prio),
                                Select(Match(tag="select", attrs=(("name", "field_milestone"),)), ms),
                                Select(Match(tag="select", attrs=(("name", "field_component"),)), comp.name),
                                Click(Match(tag="input", attrs=(("id", "action_create_and_assign"),))),
                                Fill(_input("action_create_and_assign_reassign_owner"), owner.username),
                                Click(Match(tag="input", attrs=(("name", "submit"),)))],
                **_common("file", seed, "menus_dialogs", 20))


REASSIGN = (
    'Sign in as {user} (password {pw}). Ticket #{tid} ("{summary}") moves to milestone {ms}: reassign it to {target} '
    'and leave the comment "{note}".',
    'Log in as {user} / {pw}, open ticket #{tid} and hand it over to {target}, moving it to milestone {ms}; add the '
    'comment "{note}" in the same change.',
    'As {user} (password {pw}): {target} takes over ticket #{tid} ("{summary}"). Reassign it, retarget it to '
    'milestone {ms} and comment "{note}".',
)


def reassign(w: World, seed: int) -> Task:
    rng = _rng("reassign", seed)
    open_ms = [m.name for m in w.milestones if m.completed is None]
    k, t = rng.choice([(k, t) for k, t in enumerate(w.tickets) if t.status in OPEN])
    tid = k + 1
    devs = [p for p in w.people if p.role != "reporter"]
    user = rng.choice([p for p in devs if p.username != t.owner])
    target = rng.choice([p for p in devs if p.username not in (t.owner, user.username)])
    ms = rng.choice([m for m in open_ms if m != t.milestone])
    note = rng.choice(("Handing over: I am out next week.", "Moving this to the team that owns the code now.",
                       "Rescheduled after the planning meeting.", "This needs someone who knows the storage layer."))

    def validate(s) -> TaskResult:
        row, errs = _ticket(s, tid), []
        if row is None:
            return TaskResult(False, [f"ticket #{tid} is gone"])
        if row["owner"] != target.username:
            errs.append(f"owner is {row['owner']!r}, not {target.username!r}")
        if row["milestone"] != ms:
            errs.append(f"milestone is {row['milestone']!r}, not {ms!r}")
        if row["status"] != "assigned":
            errs.append(f"status is {row['status']!r}, not 'assigned' (a reassignment)")
        if not any(r["author"] == user.username and _norm(note) in _norm(r["newvalue"])
                   for r in s["ticket_change"] if r["ticket"] == tid and r["field"] == "comment"):
            errs.append(f"no comment by {user.username} saying {note!r}")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("reassign", seed, REASSIGN, user=user.username, pw=user.password, tid=tid,
                                 summary=t.summary, ms=ms, target=f"{target.realname} ({target.username})", note=note),
                validate=validate,
                forbidden_effects=(OnlyRowsChange("ticket", (tid,)), NoDeletes(("ticket", "ticket_change")),
                                   MaxInserts("ticket", 0, "ticket"), NoChanges(("milestone", "permission", "wiki"))),
                oracle=lambda: [*_login(user), Go(f"/ticket/{tid}"), Click(Match(role="link", name="Modify Ticket")),
                                Select(Match(tag="select", attrs=(("name", "field_milestone"),)), ms),
                                Click(Match(tag="input", attrs=(("id", "action_reassign"),))),
                                Fill(_input("action_reassign_reassign_owner"), target.username),
                                Fill(Match(tag="textarea", attrs=(("name", "comment"),)), note),
                                Click(Match(tag="input", attrs=(("name", "submit"),)))],
                **_common("reassign", seed, "states", 18))


def sections(text: str) -> dict[str, str]:
    """A wiki page's ``== Heading ==`` sections: heading -> its text, whitespace folded; ``""`` holds
    what comes before the first one."""
    out: dict[str, str] = {}
    head, buf = "", list[str]()
    for line in text.replace("\r\n", "\n").split("\n"):
        m = re.match(r"^==\s+(.+?)\s+==\s*$", line)
        if m:
            out[head] = _norm("\n".join(buf))
            head, buf = m.group(1), []
        else:
            buf.append(line)
    out[head] = _norm("\n".join(buf))
    return out


WIKI = (
    'Sign in as {user} (password {pw}). On the wiki page {page}, replace the text of the section "{sec}" with: '
    "{new}",
    'Log in as {user} / {pw} and edit the wiki page {page}: the section "{sec}" should now read "{new}" and nothing '
    "else on the page changes.",
    'As {user} (password {pw}), rewrite the "{sec}" section of {page} so that it says exactly: {new}',
)


_SINCE = ("Since the last release", "As of this quarter", "After the reorganisation")
_DOES = ("answers questions about this component", "reviews every change here", "owns the release sign-off")
_THEN = ("ask in the developers channel first.", "file a ticket for anything else.", "see the roadmap for dates.")


def edit_wiki_section(w: World, seed: int) -> Task:
    rng = _rng("wiki", seed)
    page = rng.choice([p for p in w.wiki if p.name.startswith("Component")])
    before = sections(page.text)
    sec = rng.choice([h for h in before if h])
    user = rng.choice([p for p in w.people if p.role != "reporter"])
    new = (f"{rng.choice(_SINCE)}, {user.realname} {rng.choice(_DOES)}; {rng.choice(_THEN)}")
    lines = page.text.split("\n")
    out, skip = [], False
    for line in lines:
        if re.match(r"^==\s+(.+?)\s+==\s*$", line):
            if skip:
                out.append("")
            skip = line.strip() == f"== {sec} =="
            out.append(line)
            if skip:
                out += ["", new]
            continue
        if not skip:
            out.append(line)
    edited = "\n".join(out) + ("\n" if skip else "")
    want = {**before, sec: _norm(new)}

    def validate(s) -> TaskResult:
        versions = [r for r in s["wiki"] if r["name"] == page.name]
        if not versions:
            return TaskResult(False, [f"the page {page.name} is gone"])
        last = max(versions, key=lambda r: r["version"])
        errs = []
        if last["version"] < 2:
            errs.append(f"{page.name} was not edited")
        elif last["author"] != user.username:
            errs.append(f"the last edit is by {last['author']!r}, not {user.username!r}")
        got = sections(last["text"])
        if got.get(sec) != want[sec]:
            errs.append(f"section {sec!r} reads {got.get(sec)!r}")
        changed = sorted(h or "(top)" for h in set(got) | set(want) if h != sec and got.get(h) != want.get(h))
        if changed:
            errs.append(f"other parts of the page changed: {changed}")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("wiki", seed, WIKI, user=user.username, pw=user.password, page=page.name, sec=sec,
                                 new=new),
                validate=validate,
                forbidden_effects=(OnlyRowsChange("wiki", ()), NoDeletes(("wiki",)), MaxInserts("wiki", 1, "version"),
                                   NoChanges(("ticket", "milestone", "permission"))),
                oracle=lambda: [*_login(user), Go(f"/wiki/{page.name}?action=edit"),
                                Fill(Match(tag="textarea", attrs=(("name", "text"),)), edited),
                                Click(Match(tag="input", attrs=(("name", "save"),)))],
                **_common("wiki", seed, "states", 12))


# --- configuration -------------------------------------------------------------------------------------

MEMBER = (
    "Sign in as {lead} (password {pw}), the project's administrator. {who} joins the developers: add {user} to the "
    "group developers and grant {user} the permission {perm} as well.",
    "Log in as the administrator {lead} / {pw}. Make {who} a member of the developers group and give {user} the "
    "{perm} permission directly.",
    "As {lead} (password {pw}), give {who} developer access: put {user} into the developers group, then grant "
    "{user} {perm}.",
)


def add_member(w: World, seed: int) -> Task:
    rng = _rng("member", seed)
    lead = next(p for p in w.people if p.role == "lead")
    user = rng.choice([p for p in w.people if p.role == "reporter"])
    perm = rng.choice(GRANTS)
    want = {(user.username, "developers"), (user.username, perm)}

    def validate(s) -> TaskResult:
        have = {(r["username"], r["action"]) for r in s["permission"]}
        missing = sorted(want - have)
        return TaskResult(not missing, [f"missing permission rows {missing}"] if missing else [])

    return Task(instruction=_say("member", seed, MEMBER, lead=lead.username, pw=lead.password,
                                 who=user.realname, user=user.username, perm=perm),
                validate=validate,
                forbidden_effects=(NoDeletes(("permission",)), MaxInserts("permission", 2, "permission"),
                                   NoChanges(("ticket", "milestone", "wiki"))),
                oracle=lambda: [*_login(lead), Go("/admin/general/perm"),
                                Fill(Match(tag="input", attrs=(("id", "sg_subject"),)), user.username),
                                Fill(Match(tag="input", attrs=(("id", "sg_group"),)), "developers"),
                                Click(_input("add", 1)),
                                Fill(Match(tag="input", attrs=(("id", "gp_subject"),)), user.username),
                                Select(Match(tag="select", attrs=(("id", "action"),)), perm),
                                Click(_input("add", 0))],
                **_common("member", seed, "small_targets", 18))


RELEASE = (
    "Sign in as {user} (password {pw}). Milestone {ms} has shipped: mark it completed and move its tickets that are "
    "still open to milestone {to}.",
    "Log in as {user} / {pw}. Close milestone {ms} (it is released) and retarget its remaining open tickets to {to}.",
    "As {user} (password {pw}), complete the milestone {ms}; the tickets in it that are not closed go to {to}.",
)


def release_milestone(w: World, seed: int) -> Task:
    rng = _rng("release", seed)
    open_ms = [m.name for m in w.milestones if m.completed is None]
    ms = rng.choice(open_ms[:-1])
    to = open_ms[open_ms.index(ms) + 1]  # the next release
    user = rng.choice([p for p in w.people if p.role != "reporter"])
    moved = tuple(k + 1 for k, t in enumerate(w.tickets) if t.milestone == ms and t.status != "closed")
    stays = tuple(k + 1 for k, t in enumerate(w.tickets) if t.milestone == ms and t.status == "closed")

    def validate(s) -> TaskResult:
        row, errs = next((r for r in s["milestone"] if r["name"] == ms), None), []
        if row is None:
            return TaskResult(False, [f"milestone {ms} is gone"])
        if not row["completed"]:
            errs.append(f"milestone {ms} is not completed")
        by_id = {r["id"]: r for r in s["ticket"]}
        wrong = [t for t in moved if by_id[t]["milestone"] != to]
        if wrong:
            errs.append(f"{len(wrong)} open tickets of {ms} are not in {to} (e.g. #{wrong[0]})")
        kept = [t for t in stays if by_id[t]["milestone"] != ms]
        if kept:
            errs.append(f"{len(kept)} closed tickets left milestone {ms} (e.g. #{kept[0]})")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("release", seed, RELEASE, user=user.username, pw=user.password, ms=ms, to=to),
                validate=validate,
                forbidden_effects=(OnlyRowsChange("milestone", (ms,)), OnlyRowsChange("ticket", moved),
                                   NoDeletes(("milestone", "ticket")), NoChanges(("permission", "wiki"))),
                oracle=lambda: [*_login(user), Go(f"/milestone/{quote(ms)}?action=edit"),
                                Click(Match(tag="input", attrs=(("id", "completed"),))),
                                Select(Match(tag="select", attrs=(("id", "target"),)), to),
                                Click(Match(tag="input", attrs=(("name", "save"),)))],
                **_common("release", seed, "states", 14))


DELETE = (
    "Sign in as {user} (password {pw}). The wiki page {page} is obsolete: delete the whole page.",
    "Log in as {user} / {pw} and remove the outdated wiki page {page} entirely.",
    "As {user} (password {pw}), delete the wiki page {page}; nobody maintains it any more.",
)


def delete_page(w: World, seed: int) -> Task:
    rng = _rng("delete", seed)
    done = {m.name.replace(".", "_") for m in w.milestones if m.completed is not None}
    page = rng.choice([p.name for p in w.wiki if p.name in ("OnCall", "CodingStyle", "DevelopmentProcess")
                       or p.name.removeprefix("ReleaseNotes") in done])
    user = rng.choice([p for p in w.people if p.role == "developer"])
    keys = (f"{page}:1",)

    def validate(s) -> TaskResult:
        left = [r["key"] for r in s["wiki"] if r["name"] == page]
        return TaskResult(not left, [f"the page {page} still has {len(left)} version(s)"] if left else [])

    return Task(instruction=_say("delete", seed, DELETE, user=user.username, pw=user.password, page=page),
                validate=validate,
                forbidden_effects=(OnlyRowsChange("wiki", keys), MaxInserts("wiki", 0, "page version"),
                                   NoChanges(("ticket", "milestone", "permission"))),
                oracle=lambda: [*_login(user), Go(f"/wiki/{page}?action=delete"),
                                Click(Match(role="button", name="Delete page"))],
                **_common("delete", seed, "menus_dialogs", 12))


FAMILIES: dict[str, Callable[[World, int], Task]] = {name: worded_family(make) for name, make in {
    "trac.busiest": busiest_milestone, "trac.committer": committer, "trac.tag": first_tag,
    "trac.file": file_ticket, "trac.reassign": reassign, "trac.wiki": edit_wiki_section,
    "trac.member": add_member, "trac.release": release_milestone, "trac.delete": delete_page,
}.items()}

# the oracle's longest run (element mode) over seeds 0-199 per family, printed by
# ``python -m webgauge.arena.tasks.budget_table``; the budgets derive from it (tests/arena/test_budgets.py)
ORACLE_MAX: dict[str, int] = {
    "busiest": 2, "committer": 2, "tag": 2, "file": 15, "reassign": 12, "wiki": 8, "member": 12, "release": 9,
    "delete": 8,
}

FAMILIES = budgeted_app(FAMILIES, ORACLE_MAX, IRREVERSIBLE)


def build_tasks(seeds=(0,), families=None) -> list[Task]:
    out = []
    for seed in seeds:
        w = world(seed)
        for name, make in FAMILIES.items():
            if families is None or name in families:
                out.append(make(w, seed))
    return out
