"""Task families on the Spirit forum: validators read Spirit's own tables (the rows
:func:`~.app.state` selects with SQL), oracles drive Spirit's real pages.

Every family picks its targets from the seed's content (:func:`~.content.world`), so a task is a
pure function of the seed. The seed script writes members, topics and comments in the content's
order into an empty database, so member ``k`` is ``auth_user`` row ``k + 1``, topic ``k`` is
``spirit_topic_topic`` row ``k + 1``, comments are numbered in order across topics, and category
``k`` is row ``k + 3`` (after Spirit's own "Private" and "Uncategorized"); validators look rows up
by these ids and check the titles and names they expect to find there.
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
from .content import CATEGORIES, Comment, Member, Topic, World, world

__all__ = ["FAMILIES", "build_tasks"]

VIEW = Viewport(1280, 900)
START = "/"
TOPICS, COMMENTS, USERS = "spirit_topic_topic", "spirit_comment_comment", "auth_user"
NOTES, LIKES = "spirit_topic_notification_topicnotification", "spirit_comment_like_commentlike"
CAT0 = 3  # the first seeded category's row id


def _rng(family: str, seed: int) -> random.Random:
    return random.Random(f"spirit-task-{family}-{seed}")


def _say(family: str, seed: int, templates: tuple[str, ...], **fields: object) -> str:
    """The instruction in one of the family's sentence frames (drawn apart from the targets' draws)."""
    return phrase(random.Random(f"spirit-wording-{family}-{seed}"), templates, **fields)


def _common(family: str, seed: int, pattern: str, max_steps: int) -> dict:
    return {"id": f"spirit.{family}.s{seed}", "family": f"spirit.{family}", "seed": seed, "start_url": START,
            "viewport": VIEW, "pattern": pattern, "max_steps": max_steps}


def _by(rows, col, val):
    return next((r for r in rows if r[col] == val), None)


def _uid(w: World, username: str) -> int:
    return next(k for k, m in enumerate(w.members) if m.username == username) + 1


def _tid(w: World, t: Topic) -> int:
    return w.topics.index(t) + 1


def _first_cid(w: World, t: Topic) -> int:
    """The row id of topic ``t``'s opening post (comments are numbered in order across topics)."""
    return sum(len(x.comments) for x in w.topics[: w.topics.index(t)]) + 1


def _cid(w: World, t: Topic, c: Comment) -> int:
    return _first_cid(w, t) + t.comments.index(c)


def _nick(w: World, username: str) -> str:
    return w.member(username).nickname


def _nicknames(w: World) -> list[str]:
    return [m.nickname for m in w.members]


def _topic_row(s, w: World, t: Topic) -> dict | None:
    row = _by(s[TOPICS], "id", _tid(w, t))
    return row if row and row["title"] == t.title else None


def _login(m: Member) -> list:
    return [Go("/user/login/"), Fill(Match(tag="input", attrs=(("name", "username"),)), m.username),
            Fill(Match(tag="input", attrs=(("name", "password"),)), m.password),
            Click(Match(tag="input", attrs=(("value", "Login"),)))]


def _find(t: Topic) -> list:
    """Find a topic by its title with the forum's search page, then open it."""
    return [Go("/search/"), Fill(Match(tag="input", attrs=(("name", "q"),)), t.title),
            Click(Match(tag="input", attrs=(("value", "Search"),))), Click(Match(role="link", name=t.title))]


def _reader(rng: random.Random, w: World) -> Member:
    """A member who signs in to read (the forum's search is for members only)."""
    return rng.choice([m for m in w.members[6:-3]])


def _new_comments(s, w: World, tid: int | None = None) -> list[dict]:
    n0 = sum(len(t.comments) for t in w.topics)
    return [r for r in s[COMMENTS] if r["id"] > n0 and (tid is None or r["topic_id"] == tid)]


# ---------------------------------------------------------------- information seeking (typed answers)

UNANSWERED = (
    "How many of the topics started by {nick} have not received a single reply? Answer with the number.",
    "{nick} has started a number of topics on the forum. How many of them still have no replies at all? "
    "Reply with the number.",
    "Count the topics {nick} started that nobody has replied to yet, and answer with that count.",
    "Look through the topics {nick} has opened: how many are still waiting for their first reply? Give the number.",
)


def unanswered(w: World, seed: int) -> Task:
    rng = _rng("unanswered", seed)
    by: dict[str, list[Topic]] = {}
    for t in w.topics:
        by.setdefault(t.author, []).append(t)
    who = rng.choice(sorted(u for u, ts in by.items() if 10 <= len(ts) <= 20))
    n = sum(1 for t in by[who] if not t.replies)

    def validate(s) -> TaskResult:
        errs = check_answer(s, n, COUNT)
        return TaskResult(not errs, errs)

    return Task(instruction=_say("unanswered", seed, UNANSWERED, nick=_nick(w, who)),
                validate=validate, answer=str(n), answer_type=COUNT,
                forbidden_effects=(NoChanges((TOPICS, COMMENTS, NOTES)),),
                oracle=lambda: [Go(f"/user/topics/{_uid(w, who)}/"), Done(str(n))],
                **_common("unanswered", seed, "similar_options", 12))


LAST = (
    'Sign in as {user} (password {pw}). Who wrote the most recent reply in the topic "{title}"? Answer with the '
    'member\'s name.',
    'Log in as {user} / {pw}, open the forum topic "{title}" and tell me who posted the last reply. Reply with their '
    'name.',
    'In "{title}", which member replied last? Sign in as {user} (password {pw}) to look, and answer with the name the '
    'forum shows for them.',
)


def last_reply(w: World, seed: int) -> Task:
    rng = _rng("last", seed)
    t = rng.choice([t for t in w.topics if len(t.replies) >= 3 and t.replies[-1].author != t.author
                    and not any(c.spam for c in t.comments)])
    who = _nick(w, t.replies[-1].author)
    user = _reader(rng, w)
    typ = names(_nicknames(w), label="member", context=[x.title for x in w.topics])

    def validate(s) -> TaskResult:
        errs = check_answer(s, who, typ)
        return TaskResult(not errs, errs)

    return Task(instruction=_say("last", seed, LAST, title=t.title, user=user.username, pw=user.password),
                validate=validate, answer=who, answer_type=typ, forbidden_effects=(NoChanges((TOPICS, COMMENTS)),),
                oracle=lambda: [*_login(user), *_find(t), Done(who)], **_common("last", seed, "similar_options", 12))


LIKED = (
    'Sign in as {user} (password {pw}). In the topic "{title}", whose reply has collected the most likes? Answer '
    'with the member\'s name.',
    'Log in as {user} / {pw}. Which reply in "{title}" is the most liked, and who wrote it? Answer with the '
    'author\'s name.',
    'As {user} (password {pw}), find the topic "{title}" and name the member whose reply there has the most likes.',
)


def top_liked(w: World, seed: int) -> Task:
    rng = _rng("liked", seed)

    def unique_top(t: Topic) -> bool:
        likes = sorted((len(c.likers) for c in t.replies), reverse=True)
        return len(likes) >= 3 and likes[0] > likes[1] and len({c.author for c in t.replies}) >= 3

    t = rng.choice([t for t in w.topics if unique_top(t) and not any(c.spam for c in t.comments)])
    best = max(t.replies, key=lambda c: len(c.likers))
    who = _nick(w, best.author)
    user = _reader(rng, w)
    typ = names(_nicknames(w), label="member", context=[x.title for x in w.topics])

    def validate(s) -> TaskResult:
        errs = check_answer(s, who, typ)
        return TaskResult(not errs, errs)

    return Task(instruction=_say("liked", seed, LIKED, title=t.title, user=user.username, pw=user.password),
                validate=validate, answer=who, answer_type=typ,
                forbidden_effects=(NoChanges((TOPICS, COMMENTS, LIKES)),),
                oracle=lambda: [*_login(user), *_find(t), Done(who)], **_common("liked", seed, "similar_options", 12))


# ---------------------------------------------------------------- navigation

SUBSCRIBE = (
    "Sign in as {user} (password {pw}). Turn on notifications for two topics: the one {a_nick} started in "
    "{a_cat} about the {a_gear}, and the one {b_nick} started in {b_cat} about the {b_gear}.",
    "Log in as {user} with password {pw}. {a_nick} opened a topic in {a_cat} about the {a_gear}, and {b_nick} one in "
    "{b_cat} about the {b_gear}; subscribe to both so that you are notified of new replies.",
    "As {user} (password {pw}), find the {a_cat} topic by {a_nick} about the {a_gear} and the {b_cat} topic by "
    "{b_nick} about the {b_gear}, and have the forum notify you about both.",
)


def _described(w: World) -> list[Topic]:
    """The topics that are the only ones by their author in their category about their brand and gear."""
    n: dict[tuple, int] = {}
    for x in w.topics:
        key = (x.author, x.category, x.brand, x.gear)
        n[key] = n.get(key, 0) + 1
    return [x for x in w.topics if n[(x.author, x.category, x.brand, x.gear)] == 1]


def subscribe(w: World, seed: int) -> Task:
    rng = _rng("subscribe", seed)
    count: dict[str, int] = {}
    for t in w.topics:
        count[t.author] = count.get(t.author, 0) + 1
    user = rng.choice([m for m in w.members if not m.is_moderator][:-3])
    pool = [t for t in _described(w) if count[t.author] <= 20 and user.username not in t.subscribers
            and t.author != user.username]
    a, b = rng.sample(pool, 2)
    uid = _uid(w, user.username)

    def validate(s) -> TaskResult:
        errs = []
        for t in (a, b):
            if not any(r["user_id"] == uid and r["topic_id"] == _tid(w, t) and r["is_active"] for r in s[NOTES]):
                errs.append(f"{user.username} is not subscribed to {t.title!r}")
        others = [r for r in s[NOTES] if r["user_id"] == uid and r["is_active"]
                  and r["topic_id"] not in (_tid(w, a), _tid(w, b))]
        mine = {(r["topic_id"]) for r in others}
        before = {_tid(w, t) for t in w.topics if user.username in t.subscribers}
        if mine - before:
            errs.append(f"subscribed to other topics as well: {sorted(mine - before)}")
        return TaskResult(not errs, errs)

    def steps() -> list:
        out = _login(user)
        for t in (a, b):
            out += [Go(f"/user/topics/{_uid(w, t.author)}/"), Click(Match(role="link", name=t.title)),
                    Click(Match(tag="input", attrs=(("value", "Notify Me"),)))]
        return out

    def gear(t: Topic) -> str:
        return f"{t.brand} {t.gear}"

    return Task(instruction=_say("subscribe", seed, SUBSCRIBE, user=user.username, pw=user.password,
                                 a_nick=_nick(w, a.author), a_cat=CATEGORIES[a.category].title, a_gear=gear(a),
                                 b_nick=_nick(w, b.author), b_cat=CATEGORIES[b.category].title, b_gear=gear(b)),
                validate=validate, forbidden_effects=(NoChanges((TOPICS, COMMENTS, LIKES)), NoDeletes((NOTES,)),
                                                      MaxInserts(NOTES, 2, "subscription")),
                oracle=steps, **_common("subscribe", seed, "similar_options", 20))


# ---------------------------------------------------------------- content changes

QUOTE = (
    'Sign in as {user} (password {pw}). In the topic "{title}", reply to {nick}\'s post by quoting it, and add '
    'below the quote: "{text}"',
    'Log in as {user} / {pw}. Open "{title}" and answer {nick}\'s reply: quote it and write "{text}" underneath.',
    'As {user} (password {pw}), quote what {nick} wrote in "{title}" and reply with: "{text}"',
)
_ANSWERS = ("Thanks, that is exactly what I needed to hear.", "Good point; I will try that this weekend.",
            "That worked for me too, after a bit of fiddling.", "I had not thought of that. Which size did you use?",
            "Agreed, and it is cheaper than replacing anything.", "Interesting. How long did yours last?")


def quote_reply(w: World, seed: int) -> Task:
    rng = _rng("quote", seed)
    t = rng.choice([t for t in w.topics if not t.is_closed and len(t.replies) >= 2
                    and len({c.author for c in t.replies}) == len(t.replies) and not any(c.spam for c in t.comments)])
    c = rng.choice(t.replies)
    user = rng.choice([m for m in w.members[:-3] if m.username not in {x.author for x in t.comments}])
    text = f"{rng.choice(_ANSWERS)} (re: {t.brand} {t.gear})"
    tid, cid, uid = _tid(w, t), _cid(w, t, c), _uid(w, user.username)
    quoted = [f"> {line}".rstrip() for line in c.body.splitlines()]

    def validate(s) -> TaskResult:
        new = _new_comments(s, w)
        if len(new) != 1:
            return TaskResult(False, [f"{len(new)} new comments, expected exactly one"])
        r, errs = new[0], []
        if r["topic_id"] != tid:
            errs.append(f"the reply is in topic {r['topic_id']}, not in {t.title!r}")
        if r["user_id"] != uid:
            errs.append(f"the reply is by user {r['user_id']}, not by {user.username}")
        body = r["comment"].replace("\r\n", "\n")
        lines = [ln.rstrip() for ln in body.splitlines()]
        if not all(q in lines for q in quoted):
            errs.append(f"the reply does not quote {_nick(w, c.author)}'s post")
        if " ".join(text.split()) not in " ".join(ln for ln in lines if not ln.startswith(">")):
            errs.append(f"the reply does not add {text!r} outside the quote")
        return TaskResult(not errs, errs)

    def steps() -> list:
        return [*_login(user), *_find(t),
                Click(Match(tag="a", attrs=(("href", f"/comment/{tid}/publish/{cid}/quote/"),))),
                Fill(Match(tag="textarea", attrs=(("name", "comment"),)),
                     f"> @{c.author} said:\n" + "\n".join(quoted) + f"\n\n{text}"),
                Click(Match(tag="input", attrs=(("value", "Publish"),)))]

    return Task(instruction=_say("quote", seed, QUOTE, user=user.username, pw=user.password, title=t.title,
                                 nick=_nick(w, c.author), text=text),
                validate=validate, forbidden_effects=(OnlyRowsChange(TOPICS, (tid,)),
                                                      MaxInserts(COMMENTS, 1, "comment"),
                                                      NoDeletes((COMMENTS, LIKES, NOTES))),
                oracle=steps, **_common("quote", seed, "menus_dialogs", 20))


NEW = (
    'Sign in as {user} (password {pw}) and start a new topic in {cat} titled "{title}" with this text: {body}',
    'Log in as {user} / {pw}. Post a topic "{title}" in the {cat} category; its text: {body}',
    'As {user} (password {pw}), open a topic in {cat}. Title: "{title}". Text: {body}',
)
_ASKS = ("Has anyone compared the {thing} with the older model?",
         "Is the {thing} worth it for {use}?",
         "Looking for advice on the {thing} for {use}",
         "Second-hand {thing}: what should I check before buying?")


def new_topic(w: World, seed: int) -> Task:
    rng = _rng("new", seed)
    ci = rng.randrange(len(CATEGORIES))
    cat = CATEGORIES[ci]
    user = rng.choice([m for m in w.members[:-3] if not m.is_moderator])
    taken = {t.title for t in w.topics}
    while True:
        brand, gear = rng.choice(w.brands), rng.choice(cat.gear)
        use = rng.choice(cat.uses)
        title = rng.choice(_ASKS).format(thing=f"{brand} {gear.noun}", use=use)
        if title not in taken:
            break
    body = (f"I am planning {use} and the {brand} {gear.noun} keeps coming up. "
            f"Budget is about {rng.choice((80, 120, 150, 200, 250, 300))} pounds. What would you recommend?")
    uid = _uid(w, user.username)

    def validate(s) -> TaskResult:
        new = [r for r in s[TOPICS] if r["id"] > len(w.topics)]
        if len(new) != 1:
            return TaskResult(False, [f"{len(new)} new topics, expected exactly one"])
        r, errs = new[0], []
        if r["title"] != title:
            errs.append(f"title {r['title']!r} != {title!r}")
        if r["category_id"] != CAT0 + ci:
            errs.append(f"posted in category {r['category_id']}, not in {cat.title} ({CAT0 + ci})")
        if r["user_id"] != uid:
            errs.append(f"posted by user {r['user_id']}, not by {user.username}")
        first = sorted((c for c in s[COMMENTS] if c["topic_id"] == r["id"]), key=lambda c: c["id"])
        if not first or " ".join(first[0]["comment"].split()) != " ".join(body.split()):
            errs.append("the topic's text is not the one asked for")
        return TaskResult(not errs, errs)

    return Task(instruction=_say("new", seed, NEW, user=user.username, pw=user.password, cat=cat.title, title=title,
                                 body=body),
                validate=validate, forbidden_effects=(OnlyRowsChange(TOPICS, ()), MaxInserts(TOPICS, 1, "topic"),
                                                      MaxInserts(COMMENTS, 1, "comment")),
                oracle=lambda: [*_login(user), Go("/topic/publish/"),
                                Fill(Match(tag="input", attrs=(("name", "title"),)), title),
                                Select(Match(tag="select", attrs=(("name", "category"),)), cat.title),
                                Fill(Match(tag="textarea", attrs=(("name", "comment"),)), body),
                                Click(Match(tag="input", attrs=(("value", "Publish"),)))],
                **_common("new", seed, "menus_dialogs", 16))


# ---------------------------------------------------------------- moderation (configuration)

MODERATE = (
    'Sign in as the moderator {user} (password {pw}). Tidy up: close the topic "{a}", pin "{b}" in its category, '
    'and move "{c}" to {cat}, where it belongs.',
    'Log in as {user} / {pw} (a moderator). Three jobs: "{a}" should be closed, "{b}" pinned, and "{c}" moved to the '
    '{cat} category.',
    'As moderator {user} (password {pw}): move the topic "{c}" into {cat}, close "{a}" and pin "{b}".',
)


def moderate(w: World, seed: int) -> Task:
    rng = _rng("moderate", seed)
    mod = rng.choice(w.moderators)
    a, b, c = rng.sample([t for t in w.topics if not t.is_closed and not t.is_pinned], 3)
    ci = rng.choice([k for k in range(len(CATEGORIES)) if k != c.category])
    ids = (_tid(w, a), _tid(w, b), _tid(w, c))

    def validate(s) -> TaskResult:
        ra, rb, rc = (_topic_row(s, w, t) for t in (a, b, c))
        if not (ra and rb and rc):
            return TaskResult(False, ["a topic is gone or renamed"])
        errs = []
        if not ra["is_closed"]:
            errs.append(f"{a.title!r} is not closed")
        if not rb["is_pinned"]:
            errs.append(f"{b.title!r} is not pinned")
        if rc["category_id"] != CAT0 + ci:
            errs.append(f"{c.title!r} is in category {rc['category_id']}, not in {CATEGORIES[ci].title}")
        for r, t in ((ra, a), (rb, b), (rc, c)):
            if r["is_removed"]:
                errs.append(f"{t.title!r} was deleted")
        if ra["is_pinned"] or rb["is_closed"] or rc["is_closed"] or rc["is_pinned"]:
            errs.append("a topic was closed or pinned that should not be")
        if rb["is_globally_pinned"]:
            errs.append(f"{b.title!r} is pinned globally, not in its category")
        return TaskResult(not errs, errs)

    def steps() -> list:
        return [*_login(mod),
                *_find(a), Click(Match(role="link", name_contains="Moderate")),
                Click(Match(role="link", name_contains="Close topic")),
                *_find(b), Click(Match(role="link", name_contains="Moderate")),
                Click(Match(role="link", name_contains="Pin topic", nth=0)),
                *_find(c), Click(Match(tag="a", attrs=(("href", f"/topic/update/{ids[2]}/"),))),
                Select(Match(tag="select", attrs=(("name", "category"),)), CATEGORIES[ci].title),
                Click(Match(tag="input", attrs=(("value", "Update"),)))]

    return Task(instruction=_say("moderate", seed, MODERATE, user=mod.username, pw=mod.password, a=a.title,
                                 b=b.title, c=c.title, cat=CATEGORIES[ci].title),
                validate=validate, forbidden_effects=(OnlyRowsChange(TOPICS, ids), NoDeletes((TOPICS, COMMENTS)),
                                                      MaxInserts(COMMENTS, 3, "moderation note")),
                oracle=steps, **_common("moderate", seed, "menus_dialogs", 30))


SPAM_TEXT = (
    "Sign in as the moderator {user} (password {pw}). Spam has slipped into two topics, \"{a}\" and \"{b}\": "
    "delete the spam reply in each of them and nothing else.",
    "Log in as {user} / {pw}; you moderate the forum. The topics \"{a}\" and \"{b}\" each carry one advertising "
    "reply from a spam account. Delete those two replies.",
    "As moderator {user} (password {pw}), delete the spam replies in \"{a}\" and in \"{b}\" (one in each), "
    "leaving every other post as it is.",
)


def delete_spam(w: World, seed: int) -> Task:
    rng = _rng("spam", seed)
    mod = rng.choice(w.moderators)
    spammy = [t for t in w.topics if sum(c.spam for c in t.comments) == 1]
    a, b = rng.sample(spammy, 2)
    targets = tuple(_cid(w, t, next(c for c in t.comments if c.spam)) for t in (a, b))

    def validate(s) -> TaskResult:
        errs = []
        for cid, t in zip(targets, (a, b), strict=True):
            r = _by(s[COMMENTS], "id", cid)
            if r is None or not r["is_removed"]:
                errs.append(f"the spam reply in {t.title!r} is still there")
        n = sum(len(t.comments) for t in w.topics)
        extra = [r["id"] for r in s[COMMENTS] if r["is_removed"] and r["id"] not in targets and r["id"] <= n]
        if extra:
            errs.append(f"other comments were deleted too: {extra}")
        return TaskResult(not errs, errs)

    def steps() -> list:
        out = _login(mod)
        for cid, t in zip(targets, (a, b), strict=True):
            out += [*_find(t), Click(Match(tag="a", name="delete", attrs=(("href", f"/comment/{cid}/delete/"),)))]
        return out

    return Task(instruction=_say("spam", seed, SPAM_TEXT, user=mod.username, pw=mod.password, a=a.title, b=b.title),
                validate=validate, forbidden_effects=(OnlyRowsChange(COMMENTS, targets), NoDeletes((COMMENTS, TOPICS)),
                                                      NoChanges((TOPICS,))),
                oracle=steps, **_common("spam", seed, "states", 24))


FAMILIES: dict[str, Callable[[World, int], Task]] = {name: worded_family(make) for name, make in {
    "spirit.unanswered": unanswered, "spirit.last": last_reply, "spirit.liked": top_liked,
    "spirit.subscribe": subscribe, "spirit.quote": quote_reply, "spirit.new": new_topic,
    "spirit.moderate": moderate, "spirit.spam": delete_spam,
}.items()}


# the oracle's longest run (element mode) over seeds 0-199 per family, printed by
# ``python -m webgauge.arena.tasks.budget_table``; the budgets derive from it (tests/arena/test_budgets.py)
ORACLE_MAX: dict[str, int] = {
    "last": 9,
    "liked": 9,
    "moderate": 24,
    "new": 10,
    "quote": 12,
    "spam": 16,
    "subscribe": 11,
    "unanswered": 2,
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
