"""Task families on the Roundup tracker: validators read Roundup's own tables (the rows
:func:`~.app.state` selects with SQL), oracles drive Roundup's real pages.

Every family picks its targets from the seed's content (:func:`~.content.world`), so a task
is a pure function of the seed; issue ``n`` of the content is row ``id = n + 1`` of
``_issue`` and seeded person ``k`` is ``_user`` row ``k + 3`` (after Roundup's own
``admin`` and ``anonymous``), which the validators check rather than assume.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ...content.pools import phrase
from ...content.worded import worded_family
from ...core.answers import COUNT, check_answer, names
from ...core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRowsChange
from ...core.script import Click, Done, Fill, Go, Match, Select
from ...core.task import Task, TaskResult, Viewport
from ...tasks.budgets import budgeted_app
from .app import IRREVERSIBLE
from .content import KEYWORDS, World, components, world

__all__ = ["FAMILIES", "build_tasks"]

VIEW = Viewport(1280, 900)
BASE = "/"  # task paths are relative to the tracker's URL (…/tracker)


def _by(rows, col, val):
    return next((r for r in rows if r[col] == val), None)


def _name(state, table, rid):
    row = _by(state[f"_{table}"], "id", int(rid)) if rid is not None else None
    return row["_name"] if row else None


def _issue(state, title):
    return _by(state["_issue"], "_title", title)


def _login(user) -> list:
    return [Fill(Match(tag="input", attrs=(("name", "__login_name"),)), user.username),
            Fill(Match(tag="input", attrs=(("name", "__login_password"),)), user.password),
            Click(Match(role="button", name="Login"))]


def _open(title: str) -> list:
    """Find an issue by its title with the tracker's own search box, then open it."""
    return [Fill(Match(tag="input", attrs=(("name", "@search_text"),)), title),
            Click(Match(role="button", name="Search")),
            Click(Match(role="link", name=title))]


def _submit() -> Click:
    return Click(Match(tag="input", attrs=(("name", "submit_button"),)))


def _says(text: str, wanted: str) -> bool:
    """Does a message carry ``wanted``? Roundup's message box wraps hard (``wrap="hard"``): the browser
    breaks long lines when the form is sent, so spacing and line breaks are not compared."""
    return " ".join(wanted.split()) in " ".join(text.split())


def _new_msgs(state, issue_id: int, before: int) -> list[dict]:
    ids = {r["linkid"] for r in state["issue_messages"] if r["nodeid"] == issue_id and r["linkid"] > before}
    return [m for m in state["msg_text"] if m["id"] in ids]


def _rng(family: str, seed: int) -> random.Random:
    return random.Random(f"roundup-task-{family}-{seed}")


def _say(family: str, seed: int, templates: tuple[str, ...], **fields: object) -> str:
    """The instruction in one of the family's sentence frames (drawn apart from the targets' draws)."""
    return phrase(random.Random(f"roundup-wording-{family}-{seed}"), templates, **fields)


def _common(family: str, seed: int, pattern: str, max_steps: int) -> dict:
    return {"id": f"roundup.{family}.s{seed}", "family": f"roundup.{family}", "seed": seed, "start_url": BASE,
            "viewport": VIEW, "pattern": pattern, "max_steps": max_steps}


def _n_msgs(w: World) -> int:
    return sum(len(i.messages) for i in w.issues)


CLOSE = (
    'Sign in as {user} (password {pw}). Issue "{title}" is fixed: set its status to resolved and add the note '
    '"{note}" in the same change.',
    'Log in as {user} with password {pw}, open the issue "{title}" and resolve it, adding the note "{note}" in the '
    "same change.",
    'The issue "{title}" has been fixed. As {user} (password {pw}), set its status to resolved and, in the same '
    'update, add the note "{note}".',
    'Using the account {user} / {pw}, close out "{title}": status resolved, with the note "{note}" added in the same '
    "change.",
)


def close_with_note(w: World, seed: int) -> Task:
    rng = _rng("close", seed)
    iid0, it = rng.choice([(k, i) for k, i in enumerate(w.issues) if i.status in ("in-progress", "testing")])
    user = rng.choice(w.people)
    note = f"Fixed in release 2.6.{rng.randint(1, 9)}; verified on staging."
    n0 = _n_msgs(w)

    def validate(s) -> TaskResult:
        row, errs = _issue(s, it.title), []
        if row is None:
            return TaskResult(False, [f"issue {it.title!r} is gone"])
        if _name(s, "status", row["_status"]) != "resolved":
            errs.append(f"status is {_name(s, 'status', row['_status'])!r}, not 'resolved'")
        uid = _by(s["_user"], "_username", user.username)["id"]
        if not any(_says(m["text"], note) for m in _new_msgs(s, row["id"], n0)
                   if _by(s["_msg"], "id", m["id"])["_author"] == uid):
            errs.append(f"no new message by {user.username} with the note {note!r}")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("close", seed, CLOSE, user=user.username, pw=user.password, title=it.title, note=note),
                validate=validate,
                forbidden_effects=(OnlyRowsChange("_issue", (iid0 + 1,)), MaxInserts("_msg", 1, "message"),
                                   NoDeletes(("issue_messages", "_issue"))),
                oracle=lambda: [*_login(user), *_open(it.title),
                                Select(Match(tag="select", attrs=(("name", "status"),)), "resolved"),
                                Fill(Match(tag="textarea", attrs=(("name", "@note"),)), note), _submit()],
                **_common("close", seed, "states", 14))


REASSIGN = (
    'Log in as {user} / {pw}. Hand the issue "{title}" over to {target} and raise its priority to {prio}.',
    'Sign in as {user} (password {pw}). Reassign "{title}" to {target} and set its priority to {prio}.',
    'Sign in as {user} with password {pw}; {target} is taking over the issue "{title}": make {target} its assignee '
    "and raise its priority to {prio}.",
    'As {user} (password {pw}), give the issue "{title}" to {target} and bump its priority up to {prio}.',
)


def reassign_by_realname(w: World, seed: int) -> Task:
    rng = _rng("reassign", seed)
    iid0, it = rng.choice([(k, i) for k, i in enumerate(w.issues) if i.assignedto and i.status != "resolved"])
    user = rng.choice(w.people)
    target = rng.choice([p for p in w.people if p.username not in (it.assignedto, user.username)])
    prio = rng.choice([p for p in ("critical", "urgent") if p != it.priority])

    def validate(s) -> TaskResult:
        row, errs = _issue(s, it.title), []
        if row is None:
            return TaskResult(False, [f"issue {it.title!r} is gone"])
        who = _by(s["_user"], "id", row["_assignedto"]) if row["_assignedto"] else None
        if not who or who["_username"] != target.username:
            errs.append(f"assigned to {who and who['_username']!r}, not {target.realname} ({target.username})")
        if _name(s, "priority", row["_priority"]) != prio:
            errs.append(f"priority is {_name(s, 'priority', row['_priority'])!r}, not {prio!r}")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("reassign", seed, REASSIGN, user=user.username, pw=user.password, title=it.title,
                                 target=target.realname, prio=prio),
                validate=validate, forbidden_effects=(OnlyRowsChange("_issue", (iid0 + 1,)), NoChanges(("_user",)),
                                                      MaxInserts("_msg", 0, "message")),
                oracle=lambda: [*_login(user), *_open(it.title),
                                Select(Match(tag="select", attrs=(("name", "assignedto"),)), target.username),
                                Select(Match(tag="select", attrs=(("name", "priority"),)), prio), _submit()],
                **_common("reassign", seed, "similar_options", 14))


NEW = (
    'As {user} (password {pw}), file a new issue titled "{title}" with priority {prio}, keywords {kw1} and {kw2}, '
    "{watcher} on the nosy list, and the description: {body}",
    'Sign in as {user} (password {pw}) and create an issue "{title}": priority {prio}, keywords {kw1} and {kw2}, '
    "{watcher} added to the nosy list, and this description: {body}",
    'Log in as {user} / {pw}. Report a new issue with the title "{title}", priority {prio} and the keywords {kw1} '
    "and {kw2}; put {watcher} on the nosy list and give it the description: {body}",
)


def file_new_issue(w: World, seed: int) -> Task:
    rng = _rng("new", seed)
    user, watcher = rng.sample(w.people, 2)
    kws = tuple(sorted(rng.sample(KEYWORDS, 2)))
    prio = rng.choice(("bug", "urgent", "feature"))
    where = rng.choice(('Dashboard', 'Issue list', 'CSV export', 'Mail gateway'))
    when = rng.choice(('restart', 'failed login', 'bulk edit', 'time-zone change'))
    comps = components(seed)
    # a held-out title names a component coined for its world; no title names its seed (a held-out
    # seed would hand anyone the whole held-out world)
    what = random.Random(f"roundup-title-{seed}").choice(("counts", "totals", "badges", "numbers", "figures"))
    title = (f"{where} in {rng.choice(comps)} shows stale counts after a {when}" if comps
             else f"{where} shows stale {what} after a {when}")
    body = f"Seen by {user.realname} on build {rng.randint(4000, 4999)}: the counters only refresh after logging out."

    def validate(s) -> TaskResult:
        new = [r for r in s["_issue"] if r["id"] > len(w.issues)]
        if len(new) != 1:
            return TaskResult(False, [f"{len(new)} new issues, expected exactly one"])
        row, errs = new[0], []
        if row["_title"] != title:
            errs.append(f"title {row['_title']!r} != {title!r}")
        if _name(s, "priority", row["_priority"]) != prio:
            errs.append(f"priority {_name(s, 'priority', row['_priority'])!r} != {prio!r}")
        got_kw = sorted(_name(s, "keyword", r["linkid"]) for r in s["issue_keyword"] if r["nodeid"] == row["id"])
        if got_kw != list(kws):
            errs.append(f"keywords {got_kw} != {list(kws)}")
        nosy = {_by(s["_user"], "id", r["linkid"])["_username"] for r in s["issue_nosy"] if r["nodeid"] == row["id"]}
        if watcher.username not in nosy:
            errs.append(f"{watcher.username} is not on the nosy list {sorted(nosy)}")
        creator = _by(s["_user"], "id", row["_creator"])
        if creator["_username"] != user.username:
            errs.append(f"filed by {creator['_username']}, not {user.username}")
        if not any(_says(m["text"], body) for m in _new_msgs(s, row["id"], 0)):
            errs.append("the first message does not carry the description")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("new", seed, NEW, user=user.username, pw=user.password, title=title, prio=prio,
                                 kw1=kws[0], kw2=kws[1], watcher=f"{watcher.realname} ({watcher.username})",
                                 body=body),
                validate=validate, forbidden_effects=(OnlyRowsChange("_issue", ()), MaxInserts("_issue", 1, "issue"),
                                                      NoChanges(("_user", "_keyword"))),
                oracle=lambda: [*_login(user), Click(Match(role="link", name="Create New")),
                                Fill(Match(tag="input", attrs=(("name", "title"),)), title),
                                Select(Match(tag="select", attrs=(("name", "priority"),)), prio),
                                Fill(Match(tag="input", attrs=(("name", "keyword"),)), ",".join(kws)),
                                Fill(Match(tag="input", attrs=(("name", "nosy"),)),
                                     f"{user.username},{watcher.username}"),
                                Fill(Match(tag="textarea", attrs=(("name", "@note"),)), body), _submit()],
                **_common("new", seed, "menus_dialogs", 20))


COUNT_TEXT = (
    "Log in as {user} ({pw}). How many issues with the keyword {kw} and priority {prio} are not resolved yet? "
    "Answer with the number.",
    "Sign in as {user} with password {pw} and count the issues that carry the keyword {kw}, have priority {prio} "
    "and are not resolved. Reply with the number.",
    "How many issues with priority {prio} and the keyword {kw} have not been resolved? Sign in as {user} "
    "(password {pw}) to look, then answer with the number.",
)


def count_open_by_keyword(w: World, seed: int) -> Task:
    rng = _rng("count", seed)
    kw = rng.choice(KEYWORDS)
    prio = rng.choice(("bug", "feature"))
    n = sum(1 for i in w.issues if kw in i.keywords and i.priority == prio and i.status != "resolved")
    user = rng.choice(w.people)

    def validate(s) -> TaskResult:
        errs = check_answer(s, n, COUNT)
        return TaskResult(not errs, errs)

    kid, pid = KEYWORDS.index(kw) + 1, ("critical", "urgent", "bug", "feature", "wish").index(prio) + 1
    query = (f"issue?@columns=id,title,status&@filter=keyword,priority,status&keyword={kid}&priority={pid}"
             f"&status=-1,1,2,3,4,5,6,7&@pagesize=500")
    return Task(instruction=_say("count", seed, COUNT_TEXT, user=user.username, pw=user.password, kw=kw, prio=prio),
                validate=validate, answer=str(n), answer_type=COUNT,
                forbidden_effects=(NoChanges(("_issue", "_msg", "_user", "issue_messages")),),
                oracle=lambda: [*_login(user), Go(BASE + query), Done(str(n))],
                **_common("count", seed, "similar_options", 15))


BULK = (
    "Sign in as {user} with password {pw}. Release triage: raise these three issues to priority urgent and change "
    "nothing else: {titles}.",
    "Log in as {user} ({pw}). For release triage, set the priority of each of these three issues to urgent, leaving "
    "everything else as it is: {titles}.",
    "Three issues must be urgent before the release: {titles}. Sign in as {user} (password {pw}) and raise each to "
    "priority urgent; change nothing else.",
)


def bulk_priority(w: World, seed: int) -> Task:
    rng = _rng("bulk", seed)
    picks = rng.sample([(k, i) for k, i in enumerate(w.issues) if i.priority in ("bug", "feature", "wish")], 3)
    user = rng.choice(w.people)

    def validate(s) -> TaskResult:
        errs = []
        for _, it in picks:
            row = _issue(s, it.title)
            got = row and _name(s, "priority", row["_priority"])
            if got != "urgent":
                errs.append(f"{it.title!r} has priority {got!r}")
        return TaskResult(not errs, errs)

    def steps() -> list:
        return [*_login(user), *[st for _, it in picks for st in (
            *_open(it.title), Select(Match(tag="select", attrs=(("name", "priority"),)), "urgent"), _submit())]]

    titles = "; ".join(f"\"{it.title}\"" for _, it in picks)
    return Task(instruction=_say("bulk", seed, BULK, user=user.username, pw=user.password, titles=titles),
                validate=validate, forbidden_effects=(OnlyRowsChange("_issue", tuple(k + 1 for k, _ in picks)),
                                                      MaxInserts("_msg", 0, "message")),
                oracle=steps, **_common("bulk", seed, "states", 30))


DUP = (
    'Log in as {user} (password {pw}). "{dup}" duplicates "{orig}": record "{orig}" as its superseder and resolve '
    "the duplicate.",
    'Sign in as {user} / {pw}. The issue "{dup}" is a duplicate of "{orig}": make "{orig}" its superseder and set '
    'the status of "{dup}" to resolved.',
    '"{dup}" reports the same problem as "{orig}". As {user} (password {pw}), record "{orig}" as the superseder of '
    '"{dup}" and resolve "{dup}".',
)


def mark_duplicate(w: World, seed: int) -> Task:
    rng = _rng("dup", seed)
    (ka, a), (kb, b) = rng.sample([(k, i) for k, i in enumerate(w.issues) if i.status != "resolved"], 2)
    user = rng.choice(w.people)

    def validate(s) -> TaskResult:
        ra, rb, errs = _issue(s, a.title), _issue(s, b.title), []
        if not ra or not rb:
            return TaskResult(False, ["an issue is gone"])
        sup = {r["linkid"] for r in s["issue_superseder"] if r["nodeid"] == rb["id"]}
        if sup != {ra["id"]}:
            errs.append(f"issue {b.title!r} is superseded by {sorted(sup)}, not by issue {ra['id']}")
        if _name(s, "status", rb["_status"]) != "resolved":
            errs.append(f"the duplicate's status is {_name(s, 'status', rb['_status'])!r}, not 'resolved'")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("dup", seed, DUP, user=user.username, pw=user.password, dup=b.title, orig=a.title),
                validate=validate, forbidden_effects=(OnlyRowsChange("_issue", (kb + 1,)), NoDeletes(("_issue",)),
                                                      NoChanges(("issue_messages",))),
                oracle=lambda: [*_login(user), *_open(a.title), *_open(b.title),
                                Fill(Match(tag="input", attrs=(("name", "superseder"),)), str(ka + 1)),
                                Select(Match(tag="select", attrs=(("name", "status"),)), "resolved"), _submit()],
                **_common("dup", seed, "states", 16))


LATEST = (
    "Sign in as {user} (password {pw}). Of these four issues, which one was changed most recently? {titles}. "
    "Answer with its title.",
    "Log in as {user} with password {pw} and look at the history of each of these issues: {titles}. Which of the "
    "four saw the latest change? Reply with the issue's title.",
    "Which of the following issues has the most recent change in its history: {titles}? Sign in as {user} "
    "(password {pw}) to check, then answer with the title of that issue.",
)


def latest_change(w: World, seed: int) -> Task:
    """Information seeking across four issue pages: the last entry of each history decides."""
    rng = _rng("latest", seed)
    user = rng.choice(w.people)
    while True:
        picks = rng.sample(list(w.issues), 4)
        last = [it.events[-1].minute for it in picks]
        if len(set(last)) == 4:
            break
    latest = picks[last.index(max(last))]
    typ = names([it.title for it in picks], label="issue title")

    def validate(s) -> TaskResult:
        errs = check_answer(s, latest.title, typ)
        return TaskResult(not errs, errs)

    titles = "; ".join(f'"{it.title}"' for it in picks)
    return Task(instruction=_say("latest", seed, LATEST, user=user.username, pw=user.password, titles=titles),
                validate=validate, answer=latest.title, answer_type=typ,
                forbidden_effects=(NoChanges(("_issue", "_msg", "_user", "issue_messages")),),
                oracle=lambda: [*_login(user), *[st for it in picks for st in _open(it.title)], Done(latest.title)],
                **_common("latest", seed, "similar_options", 24))


FAMILIES: dict[str, Callable[[World, int], Task]] = {name: worded_family(make) for name, make in {
    "roundup.close": close_with_note, "roundup.reassign": reassign_by_realname, "roundup.new": file_new_issue,
    "roundup.count": count_open_by_keyword, "roundup.bulk": bulk_priority, "roundup.dup": mark_duplicate,
    "roundup.latest": latest_change,
}.items()}



# the oracle's longest run (element mode) over seeds 0-199 per family, printed by
# ``python -m webgauge.arena.tasks.budget_table``; the budgets derive from it (tests/arena/test_budgets.py)
ORACLE_MAX: dict[str, int] = {
    "bulk": 19,
    "close": 10,
    "count": 5,
    "dup": 13,
    "latest": 16,
    "new": 11,
    "reassign": 10,
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
