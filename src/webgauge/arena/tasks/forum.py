"""Forum task families: a client-rendered thread view, a real log-in, votes, accepted answers,
attachments (the ``upload`` action) and moderator tools, combined with the docs wiki.

The seed holds no forum session; a task that changes something starts at its member's sign-in
link (:func:`start_path`), so the episode opens signed in as the member the instruction names
and no password stands in an instruction. Four of the seven families need 10 or more actions.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from urllib.parse import urlencode

from ..apps.forum import PAGE_SIZE, QUARANTINE, SPAM_MARKERS, signin_path
from ..content.pools import phrase, pool_for
from ..core.answers import COUNT, check_answer, names
from ..core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRowsChange
from ..core.script import Click, Done, Fill, Go, Match, Select, Upload
from ..core.task import Task, TaskResult, Viewport
from .common import State, rows_by

DESKTOP = Viewport(1280, 800, 1.0)
OTHERS = ("wiki_pages", "wiki_revisions", "admin_users", "cal_bookings", "shop_orders", "ext_mail_outbox", "meta_flags")
_SOLUTION = re.compile(r"set the (.+?) to (\d+) in the")


# ---- reading the seed -----------------------------------------------------------
def _users(state: State) -> dict[int, dict]:
    return rows_by(state, "forum_users", "id")


def _cats(state: State) -> dict[int, dict]:
    return rows_by(state, "forum_categories", "id")


def _spam(state: State) -> set[int]:
    return {t["id"] for t in state["forum_threads"] if any(m in t["title"] for m in SPAM_MARKERS)}


def _posts_of(state: State, tid: int) -> list[dict]:
    return [p for p in state["forum_posts"] if p["thread_id"] == tid and not p["deleted"]]


def _normal_threads(state: State) -> list[dict]:
    """Open, non-spam threads (where a member may reply)."""
    spam = _spam(state)
    return [t for t in state["forum_threads"] if t["id"] not in spam and not t["locked"]]


def _members(state: State) -> list[dict]:
    return [u for u in state["forum_users"] if u["role"] == "member" and not u["username"].startswith("deals")]


# ---- oracle building blocks -------------------------------------------------------
def start_path(user: dict, nxt: str = "/forum/") -> str:
    """The member's sign-in link, going on to ``nxt`` (a task's start URL)."""
    return signin_path(user["username"], user["password"], nxt)


def open_thread_steps(title: str) -> list:
    return [Fill(Match(role="textbox", name="Search threads"), title), Click(Match(role="button", name="Search")),
            Click(Match(role="link", name=title))]


def _reply_steps(text: str) -> list:
    return [Fill(Match(role="textbox", name="Your reply"), text), Click(Match(role="button", name="Post reply"))]


def _new_posts(s: State, seed_state: State) -> list[dict]:
    old = {p["id"] for p in seed_state["forum_posts"]}
    return [p for p in s["forum_posts"] if p["id"] not in old]


def _one_reply_errors(s: State, seed_state: State, tid: int, author: dict, must_contain: str) -> tuple[list[str],
                                                                                                       dict | None]:
    new = _new_posts(s, seed_state)
    if len(new) != 1:
        return [f"{len(new)} new posts, expected 1 reply"], None
    p, errs = new[0], []
    if p["thread_id"] != tid:
        errs.append(f"the reply went to thread {p['thread_id']}, not {tid}")
    if p["author_id"] != author["id"]:
        errs.append(f"the reply was posted by user {p['author_id']}, not {author['username']}")
    if not re.search(r"(?<![\w@.-])" + re.escape(must_contain.casefold()) + r"(?![\w@-])", p["body"].casefold()):
        errs.append(f"the reply does not contain {must_contain!r}")
    return errs, p


def _names_type(state: State, users: dict[int, dict], many: bool = False):
    """A member's name out of every member's name (the names the forum shows); thread titles,
    user names and categories may be quoted around it."""
    context = [t["title"] for t in state["forum_threads"]] + [u["username"] for u in users.values()] + \
        [c["name"] for c in state["forum_categories"]]
    return names((u["name"] for u in users.values()), label="member's name", many=many, context=context)


def _task(name: str, seed: int, **kw) -> Task:
    return Task(id=f"forum.{name}.s{seed}", seed=seed, viewport=DESKTOP, family=f"forum.{name}", **kw)


# ---- families ---------------------------------------------------------------------
def top_authors(seed: int, state: State) -> Task:
    """Answer only (about 10-12 actions): sort a category by votes, skip threads older than a
    date, open each of the top N threads (authors show only in the client-rendered thread view)
    and report who started them."""
    rng = random.Random(f"forum.top_authors:{seed}")
    pool = pool_for(seed, "forum.top_authors")
    spam, users, cats = _spam(state), _users(state), _cats(state)
    n = rng.choice((4, 5))
    while True:
        cat = cats[rng.choice([c for c in cats if cats[c]["name"] != QUARANTINE])]
        since = pool.date("2025-09-01", 120)
        pick = sorted((t for t in state["forum_threads"] if t["category_id"] == cat["id"] and t["id"] not in spam
                       and t["created"] >= since), key=lambda t: (-t["votes"], t["id"]))
        if len(pick) >= n + 2:
            break
    top = pick[:n]
    authors = list(dict.fromkeys(users[t["author_id"]]["name"] for t in top))
    answer = ", ".join(authors)
    starters = _names_type(state, users, many=True)
    instruction = phrase(rng, (
        "Among the threads in the forum's {cat} category started on or after {since}, which {n} have the most votes? "
        "Reply with the names of the members who started them.",
        "Find the {n} top-voted {cat} threads that were started on {since} or later, and tell me who started each one.",
        "Who started the {n} most-voted threads in {cat} (only threads started since {since})? "
        "Answer with their names.",
    ), cat=cat["name"], since=since, n=n)

    def validate(s: State) -> TaskResult:
        errs = check_answer(s, authors, starters)
        return TaskResult(not errs, errs[:6])

    listing = f"/forum/c/{cat['slug']}?sort=top"
    steps: list = [Click(Match(role="link", name=cat["name"])), Click(Match(role="link", name="Top"))]
    for i, t in enumerate(top):
        steps += [Click(Match(role="link", name=t["title"]))] + ([Go(listing)] if i < n - 1 else [])
    return _task("top_authors", seed, start_url="/forum/", instruction=instruction, validate=validate,
                 pattern="similar_options", max_steps=30, answer=answer, answer_type=starters,
                 forbidden_effects=(NoChanges(("forum_threads", "forum_posts", "forum_votes", "files") + OTHERS),),
                 oracle=lambda: [*steps, Done(answer)])


def carry_solution(seed: int, state: State) -> Task:
    """State (about 14 actions): read the accepted answer of one thread, log in as another
    thread's author, reply there with the value and mark the reply as the solution."""
    rng = random.Random(f"forum.carry_solution:{seed}")
    users = _users(state)
    solved = []
    for t in state["forum_threads"]:
        if t["solution_id"]:
            m = _SOLUTION.search(rows_by(state, "forum_posts", "id")[t["solution_id"]]["body"])
            if m:
                solved.append((t, m.group(1), m.group(2)))
    src, setting, value = rng.choice(solved)
    dst = rng.choice([t for t in _normal_threads(state) if not t["solution_id"] and t["id"] != src["id"]
                      and users[t["author_id"]]["role"] == "member"])
    who = users[dst["author_id"]]
    n_posts = len(_posts_of(state, dst["id"]))
    instruction = phrase(rng, (
        "Your question '{dst}' was already answered in the thread '{src}'. You are signed in to the forum as {user}: "
        "reply in '{dst}' with the {setting} given in that thread's accepted answer, then mark your reply as the "
        "solution.",
        "As {user} (already signed in): look up the {setting} in the accepted answer of '{src}', post it as a reply "
        "in your thread '{dst}', and mark that reply as the solution.",
        "The accepted answer in '{src}' says which {setting} to use. Signed in as {user}, answer your own "
        "thread '{dst}' with that value and accept your reply as the solution.",
    ), dst=dst["title"], src=src["title"], user=who["username"], setting=setting)

    def validate(s: State) -> TaskResult:
        errs, p = _one_reply_errors(s, state, dst["id"], who, value)
        sol = rows_by(s, "forum_threads", "id")[dst["id"]]["solution_id"]
        if p is not None and sol != p["id"]:
            errs.append(f"the thread's solution is post {sol}, not the new reply")
        return TaskResult(not errs, errs)

    return _task("carry_solution", seed, start_url=start_path(who), instruction=instruction, validate=validate,
                 pattern="states", max_steps=30,
                 forbidden_effects=(OnlyRowsChange("forum_threads", (dst["id"],)),
                                    MaxInserts("forum_posts", 1, "reply"),
                                    NoDeletes(("forum_posts", "forum_threads")),
                                    NoChanges(("forum_votes", "files", "forum_users") + OTHERS)),
                 oracle=lambda: [*open_thread_steps(src["title"]), Go("/forum/"),
                                 *open_thread_steps(dst["title"]),
                                 *_reply_steps(f"The {setting} should be {value}, as in '{src['title']}'."),
                                 Click(Match(role="button", name="Mark as solution",
                                             within=Match(tag="article",
                                                          name=f"Post {n_posts + 1} by {who['name']}")))])


_FACTS = {"Owner": "owner", "Cost centre": "cost centre", "Retention (days)": "retention period in days",
          "Escalation contact": "escalation contact"}


def wiki_reply(seed: int, state: State) -> Task:
    """Cross-app (about 12 actions): find a fact in the docs wiki, log in to the forum and reply
    with it in the thread that asked."""
    rng = random.Random(f"forum.wiki_reply:{seed}")
    pages = [{**p, "facts": json.loads(p["facts"])} for p in state["wiki_pages"]]
    page = rng.choice(pages)
    key = rng.choice(sorted(_FACTS))
    value = page["facts"][key]
    thread = rng.choice(_normal_threads(state))
    who = rng.choice(_members(state))
    instruction = phrase(rng, (
        "Someone in the forum thread '{thread}' asked for the {fact} of the docs page '{page}'. Look it up in the "
        "docs wiki, then reply there with it; you are signed in to the forum as {user}.",
        "Answer the question in the forum thread '{thread}': it wants the {fact} listed on the wiki page '{page}'. "
        "Post the reply as {user} (already signed in).",
        "Find the {fact} on the docs page '{page}' and post it as a reply in '{thread}' on the forum, where you are "
        "signed in as {user}.",
    ), thread=thread["title"], fact=_FACTS[key], page=page["title"], user=who["username"])

    def validate(s: State) -> TaskResult:
        errs, _ = _one_reply_errors(s, state, thread["id"], who, value)
        return TaskResult(not errs, errs)

    return _task("wiki_reply", seed, start_url=start_path(who, "/wiki/"), instruction=instruction, validate=validate,
                 pattern="popups_tabs", max_steps=28,
                 forbidden_effects=(OnlyRowsChange("forum_threads", ()), MaxInserts("forum_posts", 1, "reply"),
                                    NoDeletes(("forum_posts",)), NoChanges(("forum_votes", "files") + OTHERS)),
                 oracle=lambda: [Fill(Match(role="textbox", name="Search the docs"), page["title"]),
                                 Click(Match(role="button", name="Search")),
                                 Click(Match(role="link", name=page["title"])),
                                 Go("/forum/"),
                                 *open_thread_steps(thread["title"]), *_reply_steps(f"It is {value}.")])


def moderate(seed: int, state: State) -> Task:
    """State (about 20 actions): as a moderator, move every thread of one category whose title
    matches a spam phrase to Quarantine (the same phrase in other categories is a decoy), and
    lock one named thread (declared irreversible)."""
    rng = random.Random(f"forum.moderate:{seed}")
    users, cats = _users(state), _cats(state)
    by_marker: dict[tuple[str, int], list[dict]] = {}
    for t in state["forum_threads"]:
        for m in SPAM_MARKERS:
            if m in t["title"]:
                by_marker.setdefault((m, t["category_id"]), []).append(t)
    marker, cat_id = rng.choice(sorted(k for k, v in by_marker.items() if len(v) >= 2))
    targets = by_marker[(marker, cat_id)]
    cat = cats[cat_id]
    quarantine = next(c["id"] for c in cats.values() if c["name"] == QUARANTINE)
    lock = rng.choice([t for t in _normal_threads(state) if t["category_id"] == cat_id])
    mod = rng.choice([u for u in users.values() if u["role"] == "moderator"])
    instruction = phrase(rng, (
        "You are signed in to the forum as the moderator {user}. In the {cat} category, move every thread whose "
        "title contains '{marker}' to {q}, then lock the thread '{lock}'. Leave all other threads alone.",
        "Spam clean-up, as moderator {user} (signed in): threads in {cat} with '{marker}' in the title belong in {q} "
        "(move them all there, and only those). Also lock '{lock}'.",
        "Signed in as {user}, moderate {cat}: send each thread titled with '{marker}' to {q} and "
        "lock the thread '{lock}'. Do not touch threads in other categories.",
    ), user=mod["username"], cat=cat["name"], marker=marker, q=QUARANTINE, lock=lock["title"])

    def validate(s: State) -> TaskResult:
        now = rows_by(s, "forum_threads", "id")
        errs = [f"'{t['title']}' is still in category {now[t['id']]['category_id']}" for t in targets
                if now[t["id"]]["category_id"] != quarantine]
        if not now[lock["id"]]["locked"]:
            errs.append(f"'{lock['title']}' is not locked")
        return TaskResult(not errs, errs)

    listing = "/forum/?" + urlencode({"q": marker, "category": cat["slug"], "sort": "latest"})

    def oracle() -> list:
        steps = [Fill(Match(role="textbox", name="Search threads"), marker),
                 Select(Match(tag="select", attrs=(("id", "category"),)), cat["slug"]),
                 Click(Match(role="button", name="Search"))]
        for i, t in enumerate(targets):
            steps += [Click(Match(role="link", name=t["title"])),
                      Select(Match(tag="select", attrs=(("id", "move"),)), QUARANTINE),
                      Click(Match(role="button", name="Move thread"))] + ([Go(listing)] if i < len(targets) - 1 else [])
        return steps + [Go("/forum/"), *open_thread_steps(lock["title"]),
                        Click(Match(role="button", name="Lock thread"))]

    return _task("moderate", seed, start_url=start_path(mod), instruction=instruction, validate=validate,
                 pattern="menus_dialogs", max_steps=40,
                 forbidden_effects=(OnlyRowsChange("forum_threads", tuple(t["id"] for t in targets) + (lock["id"],)),
                                    NoDeletes(("forum_threads", "forum_posts")),
                                    NoChanges(("forum_posts", "forum_votes", "files") + OTHERS)),
                 oracle=oracle)


def attach_file(seed: int, state: State) -> Task:
    """State with an upload (10 actions): log in, find a thread, reply with a message and one of
    the task's files attached; the app stores the file, and the validator reads its bytes back."""
    rng = random.Random(f"forum.attach_file:{seed}")
    pool = pool_for(seed, "forum.attach_file")
    thread = rng.choice(_normal_threads(state))
    who = rng.choice(_members(state))
    topic, city = pool.topic(), pool.city()
    fname = f"{topic}-{city.lower()}-{rng.randrange(10, 99)}.log"
    content = "".join(f"{pool.date('2026-02-01', 28)}T{h:02d}:00Z {topic} job {rng.randrange(1000, 9999)} "
                      f"{rng.choice(['ok', 'retry', 'failed'])}\n" for h in range(8, 14)).encode()
    msg = phrase(rng, ("Here is the {topic} log from {city}.", "Attached: our {topic} log ({city}).",
                       "The {city} {topic} log is attached."), topic=topic, city=city)
    instruction = phrase(rng, (
        "Signed in to the forum as {user}, reply to '{thread}' with the message \"{msg}\", attaching the file "
        "{file}.",
        "Post a reply in the forum thread '{thread}' as {user} (already signed in): the text \"{msg}\" with {file} "
        "attached.",
        "Share {file} in the thread '{thread}': as {user}, who is signed in, reply \"{msg}\" with the file "
        "attached.",
    ), user=who["username"], thread=thread["title"], msg=msg, file=fname)

    def validate(s: State) -> TaskResult:
        errs, p = _one_reply_errors(s, state, thread["id"], who, msg.rstrip("."))
        if p is None:
            return TaskResult(False, errs)
        files = [f for f in s["files"] if f["owner"] == f"forum_post:{p['id']}"]
        if len(files) != 1:
            errs.append(f"the reply has {len(files)} attachments, expected 1 ({fname})")
        else:
            f = files[0]
            data = bytes.fromhex(f["content"]["__bytes__"]) if isinstance(f["content"], dict) else bytes(f["content"])
            if f["name"] != fname:
                errs.append(f"the attachment is {f['name']!r}, expected {fname!r}")
            if data != content:
                errs.append("the attachment's content differs from the file given")
        return TaskResult(not errs, errs)

    return _task("attach_file", seed, start_url=start_path(who), instruction=instruction, validate=validate,
                 pattern="small_targets", max_steps=24, files=((fname, content),),
                 forbidden_effects=(OnlyRowsChange("forum_threads", ()), MaxInserts("forum_posts", 1, "reply"),
                                    MaxInserts("files", 1, "attachment"), NoDeletes(("forum_posts", "files")),
                                    NoChanges(("forum_votes",) + OTHERS)),
                 oracle=lambda: [*open_thread_steps(thread["title"]),
                                 Fill(Match(role="textbox", name="Your reply"), msg),
                                 Upload(Match(tag="input", attrs=(("id", "file"),)), fname),
                                 Click(Match(role="button", name="Post reply"))])


def upvote_solution(seed: int, state: State) -> Task:
    """State and answer (9 actions): log in, upvote the accepted answer of a thread (a small
    button among several posts' buttons) and say who wrote it."""
    rng = random.Random(f"forum.upvote_solution:{seed}")
    users, posts = _users(state), rows_by(state, "forum_posts", "id")
    who = rng.choice(_members(state))
    thread = rng.choice([t for t in _normal_threads(state) if t["solution_id"]
                         and posts[t["solution_id"]]["author_id"] != who["id"]])
    sol = posts[thread["solution_id"]]
    author = users[sol["author_id"]]["name"]
    author_type = _names_type(state, users)
    instruction = phrase(rng, (
        "Signed in to the forum as {user}, upvote the accepted answer in '{thread}', and tell me who wrote it.",
        "In the thread '{thread}', give the accepted answer an upvote (you are signed in as {user}) and reply with "
        "its author's name.",
        "You are signed in to the forum as {user}. Who wrote the accepted answer in '{thread}'? Upvote it and answer "
        "with their name.",
    ), user=who["username"], thread=thread["title"])

    def validate(s: State) -> TaskResult:
        votes = [v for v in s["forum_votes"] if v["user_id"] == who["id"] and v["post_id"] == sol["id"]]
        got = rows_by(s, "forum_posts", "id")[sol["id"]]["votes"]
        errs = [] if votes and got == sol["votes"] + 1 else [f"the accepted answer has {got} votes, expected "
                                                              f"{sol['votes'] + 1} with a vote by {who['username']}"]
        errs += check_answer(s, author, author_type)
        return TaskResult(not errs, errs)

    return _task("upvote_solution", seed, start_url=start_path(who), instruction=instruction, validate=validate,
                 pattern="small_targets", max_steps=18, answer=author, answer_type=author_type,
                 forbidden_effects=(OnlyRowsChange("forum_posts", (sol["id"],)), MaxInserts("forum_votes", 1, "vote"),
                                    NoDeletes(("forum_posts", "forum_votes")),
                                    NoChanges(("forum_threads", "files") + OTHERS)),
                 oracle=lambda: [*open_thread_steps(thread["title"]),
                                 Click(Match(role="button", name="Upvote",
                                             within=Match(tag="article", cls="solution"))),
                                 Done(author)])


def count_solved(seed: int, state: State) -> Task:
    """Answer only (2-3 actions): count the Solved badges among a category's threads started in a
    date window; the window often reaches the second page of the list."""
    rng = random.Random(f"forum.count_solved:{seed}")
    pool = pool_for(seed, "forum.count_solved")
    cats = [c for c in state["forum_categories"] if c["name"] != QUARANTINE]
    while True:
        cat = rng.choice(cats)
        start = pool.date("2025-09-01", 150)
        end = min((dt.date.fromisoformat(start) + dt.timedelta(days=rng.randrange(30, 76))).isoformat(), "2026-02-28")
        listing = sorted((t for t in state["forum_threads"] if t["category_id"] == cat["id"]),
                         key=lambda t: (t["created"], t["id"]), reverse=True)  # the app's "Latest" order
        window = [i for i, t in enumerate(listing) if start <= t["created"] <= end]
        n = sum(1 for i in window if listing[i]["solution_id"])
        if len(window) >= 3 and n >= 1:
            break
    answer = str(n)
    instruction = phrase(rng, (
        "How many threads in the forum's {cat} category that were started between {start} and {end} (inclusive) "
        "are marked Solved? Answer with the number.",
        "Count the solved {cat} threads started from {start} to {end}, both days included, and reply with the count.",
        "In {cat}, of the threads started on or after {start} and on or before {end}, how many are solved?",
    ), cat=cat["name"], start=start, end=end)

    def validate(s: State) -> TaskResult:
        errs = check_answer(s, answer, COUNT)
        return TaskResult(not errs, errs)

    page2 = [Click(Match(role="link", name="Next page"))] if any(i >= PAGE_SIZE for i in window) else []
    return _task("count_solved", seed, start_url="/forum/", instruction=instruction, validate=validate,
                 pattern="scroll_sticky", max_steps=12, answer=answer, answer_type=COUNT,
                 forbidden_effects=(NoChanges(("forum_threads", "forum_posts", "forum_votes", "files") + OTHERS),),
                 oracle=lambda: [Click(Match(role="link", name=cat["name"])), *page2, Done(answer)])


FAMILIES = (top_authors, carry_solution, wiki_reply, moderate, attach_file, upvote_solution, count_solved)
