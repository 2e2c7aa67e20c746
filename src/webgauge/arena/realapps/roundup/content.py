"""The seed's tracker content, a pure function of the seed: people, keywords and a couple of
thousand issues, each with a history (who filed it, who triaged and assigned it, who replied,
who changed its status and when), messages and attachments that read like a software
project's tracker.

**Titles and messages are built with agreement** (:mod:`webgauge.arena.content.grammar`): an
issue title is a subject (a part of the product, singular or plural: "Saved queries", "Login
form") with a predicate inflected for it in one of several tenses ("have stopped working",
"is dropping the last row", "crashed ... when two people edited at once"), and a trailing
"when" clause in the same tense as the main one. Replies combine sentences built the same way.

**Histories are consistent with their headers.** Every issue is a list of :class:`Event`
(actor, minute, optional message, the status/assignee it sets); the seed script replays them
through Roundup's API as the acting user with the tracker's clock at the event's minute, so
the creator, actor, creation and activity in an issue's header are the first and last
event's, and the history page lists each change.

Public seeds draw people from the fixed lists below. Held-out seeds (at or above
:data:`~webgauge.arena.content.pools.HELDOUT_BASE`) take their people from the arena's seeded
pool (:func:`~webgauge.arena.content.pools.pool_for` with purpose ``roundup-tracker``), which
for a held-out seed coins words with the world's secret content key
(:mod:`webgauge.arena.content.synth`), and every issue title names one of the tracker's
components, product names coined the same way (:func:`components`). So a held-out tracker's
people and titles appear in no list, and trackers built from seeds chosen without the secret
share almost none of them.

Nothing here touches Roundup: :func:`world` returns plain records, and the seed script
writes them through Roundup's own API.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass, field

from ...content.grammar import Noun, Tense, clause, sentence
from ...content.pools import Pool, pool_for, slice_of_seed

__all__ = ["KEYWORDS", "N_COMPONENTS", "N_ISSUES", "N_PEOPLE", "PRIORITIES", "PURPOSE", "STATUSES", "USERNAME",
           "Attachment", "Event", "Issue", "Message", "Person", "World", "components", "title_parts", "world"]

# Roundup's classic template's own statuses and priorities (initial_data.py), in its order.
STATUSES = ("unread", "deferred", "chatting", "need-eg", "in-progress", "testing", "done-cbb", "resolved")
PRIORITIES = ("critical", "urgent", "bug", "feature", "wish")
KEYWORDS = ("login", "search", "export", "mail-gateway", "performance", "ui", "api", "docs", "security", "i18n")
N_ISSUES = 2000
N_PEOPLE = 40
N_DEVELOPERS = 12  # the first people triage, take and resolve issues
N_COMPONENTS = 12  # coined component names of a held-out tracker
PURPOSE = "roundup-tracker"  # the pool purpose of the held-out content
USERNAME = re.compile(r"^[a-z0-9_@!%.+-]+$")  # Roundup's classic userauditor (it accepts any case; ours are lower)

_FIRST = ("Amira", "Bastian", "Chiara", "Dmitri", "Elif", "Farid", "Greta", "Hiroshi", "Ines", "Jonas", "Kalinda",
          "Lucas", "Marta", "Nikolai", "Olga", "Pedro", "Quentin", "Rosa", "Sanjay", "Tereza", "Umar", "Valeria",
          "Wen", "Ximena", "Yusuf", "Zofia", "Anouk", "Bruno", "Cyrus", "Dagny", "Emeka", "Fiona", "Gustavo", "Hana",
          "Ilya", "Jolene", "Kwame", "Leilani", "Mateusz", "Noor", "Oskar", "Priya", "Rafael", "Saoirse", "Tomasz")
_LAST = ("Andersson", "Baptiste", "Costa", "Dvořák", "Eriksen", "Fontaine", "Gallagher", "Horvat", "Ivanova",
         "Jansen", "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quist", "Rinaldi", "Schmidt",
         "Takahashi", "Ulrich", "Varga", "Weber", "Yilmaz", "Zimmermann", "Abara", "Becker", "Castillo", "Dalton",
         "Esposito", "Fischer", "Haddad", "Ibarra", "Jovanović", "Keller", "Lambert", "Mensah", "Novak", "Ortega")
_ORGS = ("Platform team", "Web team", "Customer care", "Infrastructure", "Docs guild", "Release team", "QA")


def _n(text: str) -> Noun:
    """A subject noun phrase; its number read from the head word as written here ('*' marks plural)."""
    return Noun(text.rstrip("*"), "pl" if text.endswith("*") else "sg")


_AREAS: dict[str, tuple[Noun, ...]] = {k: tuple(_n(a) for a in v) for k, v in {
    "login": ("Login form", "Password reset", "Session cookie", "Two-factor prompt", "LDAP sign-in",
              "Remember-me tokens*", "Single sign-on redirects*"),
    "search": ("Full-text search", "Saved queries*", "Search filters*", "Issue index page", "Sort order",
               "Search suggestions*"),
    "export": ("CSV export", "PDF report", "Nightly dump", "Bulk download", "XML export", "Exported timestamps*"),
    "mail-gateway": ("Mail gateway", "Nosy notifications*", "Reply-by-mail", "Bounce handling", "Digest mails*",
                     "Mail headers*"),
    "performance": ("Issue listing", "Dashboard", "Attachment upload", "History view", "Startup", "Index queries*"),
    "ui": ("Date picker", "Navigation bar", "Issue page layout", "Dark theme", "Keyboard shortcuts*",
           "Status badges*"),
    "api": ("REST endpoint", "XML-RPC client", "Webhook", "API token", "Pagination links*", "Rate limits*"),
    "docs": ("Install guide", "Upgrade notes*", "Admin manual", "Template reference", "FAQ", "Code examples*"),
    "security": ("CSRF token", "File upload check", "Role permissions*", "Audit trail", "Password hashing",
                 "Session timeouts*"),
    "i18n": ("German translation", "Date formats*", "Right-to-left layout", "Plural forms*", "Time zones*",
             "Translated labels*"),
}.items()}

# (verb, rest, tenses the problem reads well in); the verb is inflected for the title's subject
_PROBLEMS: dict[str, tuple[tuple[str, str, tuple[Tense, ...]], ...]] = {
    "bug": (("fail", "with a 500 error", ("present", "past", "perfect")),
            ("show", "the wrong time zone", ("present", "past", "progressive")),
            ("drop", "the last row", ("present", "past", "progressive")),
            ("hang", "for minutes", ("present", "past")),
            ("ignore", "the selected filter", ("present", "past", "progressive")),
            ("lose", "unsaved text", ("present", "past", "perfect")),
            ("mangle", "umlauts", ("present", "past", "progressive")),
            ("crash", "on empty input", ("present", "past")),
            ("return", "stale results", ("present", "progressive")),
            ("skip", "the first entry", ("present", "past", "progressive")),
            ("duplicate", "every comment", ("present", "past")),
            ("reject", "valid input", ("present", "past", "progressive")),
            ("render", "as a blank page", ("present", "past"))),
    "critical": (("leak", "other users' data", ("present", "past", "perfect")),
                 ("corrupt", "the database", ("present", "past", "perfect")),
                 ("delete", "attachments", ("present", "past", "progressive")),
                 ("expose", "private issues", ("present", "past", "perfect"))),
    "urgent": (("block", "the release", ("present", "progressive")),
               ("break", "for all Safari users", ("present", "past", "perfect")),
               ("stop", "working", ("past", "perfect")),
               ("stall", "in production", ("present", "past", "progressive"))),
    "feature": (("support", "CSV with semicolons", ("modal",)), ("need", "a per-user setting", ("present", "modal")),
                ("remember", "the last query", ("modal",)), ("offer", "a bulk edit", ("modal",)),
                ("keep", "an audit trail", ("modal",)), ("accept", "pasted screenshots", ("modal",))),
    "wish": (("use", "a clearer label", ("modal",)), ("show", "a preview", ("modal",)),
             ("look", "nicer with icons", ("modal",)), ("load", "a little faster", ("modal",))),
}
_MODALS = {"feature": ("should", "could"), "wish": ("could", "might")}
# the "when" clause: a subject and what it does, put in the main clause's tense
_WHENS: tuple[tuple[Noun, str, str], ...] = (
    (_n("the title"), "contain", "an apostrophe"), (_n("two people*"), "edit", "the same issue at once"),
    (_n("the session"), "expire", "during an edit"), (_n("the list"), "hold", "more than 1000 issues"),
    (_n("a backup"), "run", "in the background"), (_n("users*"), "switch", "the language to German"),
    (_n("the proxy"), "strip", "the trailing slash"), (_n("the browser"), "restore", "an old tab"),
    (_n("attachments*"), "exceed", "2 MB"), (_n("the server"), "restart", "mid-request"),
)
_ADJUNCTS = ("after upgrading to 2.3", "on the second page of results", "for users in UTC+13",
             "behind the reverse proxy", "since last Tuesday's deploy", "on mobile browsers",
             "with a non-ASCII username", "in the nightly build")
_STEPS = ("open the issue list", "sort by activity", "click the first issue", "attach a 2 MB PDF",
          "switch the language to German", "log out and back in", "save the query as 'mine'", "press Submit twice",
          "open the same issue in a second tab", "change the title and save", "filter by keyword",
          "wait for the session to expire", "reload the page")
_BACKENDS = ("SQLite", "PostgreSQL", "MySQL")
_BROWSERS = ("Firefox 128", "Chromium 126", "Safari 17", "Edge 125")


@dataclass(frozen=True)
class Person:
    username: str
    realname: str
    address: str
    organisation: str
    password: str


@dataclass(frozen=True)
class Attachment:
    name: str
    type: str  # MIME type
    content: str


@dataclass(frozen=True)
class Message:
    author: str  # username
    body: str
    minute: int  # minutes after the tracker's epoch (2026-01-05 09:00 UTC)
    files: tuple[Attachment, ...] = ()


@dataclass(frozen=True)
class Event:
    """One change to an issue, by ``actor`` at ``minute``: a message and/or new status and assignee
    (``None``: unchanged). The first event of an issue creates it."""

    actor: str
    minute: int
    message: Message | None = None
    status: str | None = None
    assignedto: str | None = None


@dataclass(frozen=True)
class Issue:
    title: str
    status: str  # the final values, after every event
    priority: str
    keywords: tuple[str, ...]
    assignedto: str | None
    nosy: tuple[str, ...]
    events: tuple[Event, ...]

    @property
    def reporter(self) -> str:
        return self.events[0].actor

    @property
    def messages(self) -> tuple[Message, ...]:
        return tuple(e.message for e in self.events if e.message is not None)

    @property
    def files(self) -> tuple[Attachment, ...]:
        return tuple(f for m in self.messages for f in m.files)


@dataclass(frozen=True)
class World:
    seed: int
    people: tuple[Person, ...]
    issues: tuple[Issue, ...] = field(repr=False)

    def to_json(self) -> dict:
        return {"seed": self.seed, "people": [asdict(p) for p in self.people],
                "issues": [asdict(i) for i in self.issues], "keywords": list(KEYWORDS)}


def _ascii(s: str) -> str:
    return s.lower().translate(str.maketrans("řáćčšžéö", "racszeeo")).replace(" ", "")


def _people(rng: random.Random) -> tuple[Person, ...]:
    out, seen = [], set()
    for f in rng.sample(_FIRST, len(_FIRST)):
        last = rng.choice(_LAST)
        user = _ascii(f[0] + last)
        if user in seen or not USERNAME.match(user):
            continue
        seen.add(user)
        out.append(Person(user, f"{f} {last}", f"{user}@tracker.example", rng.choice(_ORGS),
                          f"{f.lower()}-{rng.randint(1000, 9999)}"))
        if len(out) == N_PEOPLE:
            break
    return tuple(out)


def _coined_people(rng: random.Random, pool: Pool) -> tuple[Person, ...]:
    """A held-out tracker's people: coined real names; user name = initial + surname, lower-case ASCII."""
    out, seen = [], set()
    for name in pool.people(N_PEOPLE + 6):
        first, last = name.split(" ", 1)
        user = (first[0] + last).lower().replace(" ", "")
        if user in seen or not USERNAME.match(user):
            continue
        seen.add(user)
        out.append(Person(user, name, f"{user}@tracker.example", rng.choice(_ORGS),
                          f"{first.lower()}-{rng.randint(1000, 9999)}"))
        if len(out) == N_PEOPLE:
            break
    return tuple(out)


def components(seed: int) -> tuple[str, ...]:
    """The component (product) names a held-out tracker's issue titles name, coined for its world;
    ``()`` for a public seed, whose titles name none."""
    if slice_of_seed(seed) != "heldout":
        return ()
    return pool_for(seed, PURPOSE).words("adjective")[:N_COMPONENTS]


def title_parts(rng: random.Random, kw: str, prio: str, comps: tuple[str, ...]) -> tuple[Noun, str]:
    """An issue title's subject and the title itself: the subject's predicate agrees with it in
    number, the "when" clause follows the main clause's tense."""
    area = rng.choice(_AREAS[kw])
    if comps:
        area = Noun(f"{area.text} in {rng.choice(comps)}", area.number)
    verb, rest, tenses = rng.choice(_PROBLEMS[prio if prio in _PROBLEMS else "bug"])
    tense = rng.choice(tenses)
    main = clause(area, verb, tense, rest, modal=rng.choice(_MODALS.get(prio, ("should",))))
    tail = ""
    if tense != "modal":
        if rng.random() < 0.55:
            who, wverb, wrest = rng.choice(_WHENS)
            tail = "when " + clause(who, wverb, "past" if tense == "past" else "present", wrest)
        else:
            tail = rng.choice(_ADJUNCTS)
    return area, f"{main} {tail}".strip()


def _report(rng: random.Random, area: Noun, title: str, wish: bool) -> str:
    steps = rng.sample(_STEPS, rng.randint(2, 4))
    opener = rng.choice((
        sentence(clause(Noun("I", "pl"), "reproduce", "present", "this reliably on " + rng.choice(_BROWSERS))),
        sentence(f"A customer reported this {rng.choice(('this morning', 'on Friday', 'twice this week'))}"),
        sentence(clause(Noun("the staging logs", "pl"), "show", "present", "the same error")),
        sentence(f"This came up on the mailing list {rng.choice(('twice', 'again', 'last week'))}"),
        sentence(f"It worked in release 2.{rng.randint(1, 2)}.{rng.randint(0, 9)}"),
    ))
    numbered = "\n".join(f"{k}. {s}" for k, s in enumerate(steps, 1))
    what = title[0].lower() + title[1:] if title[1:2].islower() else title
    if wish:
        return (f"{sentence(f'The {rng.choice(_ORGS)} asked for this')}\n\nToday we have to "
                f"{' and then '.join(steps[:2])} by hand.\n\nProposal: {what}.")
    return f"{opener}\n\nSteps to reproduce:\n{numbered}\n\nExpected: it works.\nActual: {what}.\n\n" \
           f"Backend: {rng.choice(_BACKENDS)}, browser: {rng.choice(_BROWSERS)}."


def _reply(rng: random.Random, area: Noun, people: list[Person], kind: str) -> str:
    """One reply: one to three sentences of its kind, each built for its subject. (Every kind's random
    values are drawn, in a fixed order, whichever kind is written: the seeds' content stays as it is.)"""
    who = rng.choice(people).realname.split()[0]
    rev = f"{rng.getrandbits(28):07x}"
    hour, minute, backends, browser = rng.randint(8, 18), rng.choice("0134"), rng.sample(_BACKENDS, 2), \
        rng.choice(_BROWSERS)
    day, reports = rng.choice(("Monday", "Wednesday", "Thursday")), rng.randint(3, 9)
    release, tested, branch = rng.randint(1, 9), rng.choice(_BROWSERS), rng.choice(("main", "release"))
    milestone = rng.randint(7, 9)
    subj = Noun("the " + area.text[0].lower() + area.text[1:], area.number)
    pool: tuple[str, ...]
    if kind == "ask":
        pool = (sentence(f"Could you attach the server log from around {hour}:{minute}0?"),
                sentence(f"Which backend do you use, {' or '.join(backends)}?"),
                sentence(clause(Noun("it", "sg"), "reproduce", "present", "here with a fresh tracker",
                                negative=True)),
                sentence(f"Does this still happen with {browser}?"))
    elif kind == "progress":
        pool = (sentence(clause(Noun("the stack traces", "pl"), "point", "present", "at the template layer")),
                sentence(clause(subj, "need", "present", "a test before the patch can go in")),
                sentence(f"{who} and I looked at this on {day}"),
                sentence(f"I have a patch in revision {rev}; it needs review"),
                sentence(clause(Noun(f"{reports} more reports", "pl"), "mention", "past",
                                "the same symptom this week")))
    elif kind == "done":
        pool = (sentence(f"Fixed in revision {rev} and released in 2.6.{release}"),
                sentence(clause(subj, "pass", "perfect", "every test on staging")),
                sentence(f"Tested the fix on staging with {tested}; looks good to me"),
                sentence(clause(Noun("the fix", "sg"), "land", "past", f"on the {branch} branch")))
    else:
        pool = (sentence(f"Moved to milestone 2.{milestone}; nobody has time before the release"),
                sentence(clause(subj, "work", "present", "well enough for now")))
    return " ".join(rng.sample(pool, min(len(pool), rng.choice((1, 2, 2, 3)))))


def _attachment(rng: random.Random, area: Noun, title: str, n: int) -> Attachment:
    slug = re.sub(r"[^a-z0-9]+", "-", area.text.lower()).strip("-")
    kind = rng.choice(("trace", "log", "patch", "csv"))
    if kind == "trace":
        frames = "\n".join(f'  File "roundup/{m}.py", line {rng.randint(40, 2400)}, in {f}\n    {c}'
                           for m, f, c in rng.sample((
                               ("cgi/templating", "render", "return self.template(**context)"),
                               ("cgi/actions", "handle", "self.db.commit()"),
                               ("backends/rdbms_common", "sql", "cursor.execute(sql, args)"),
                               ("date", "set", "raise ValueError('Unknown spec %r' % (spec,))"),
                               ("mailgw", "handle_message", "return self._handle_message(message)"),
                               ("hyperdb", "lookup", "raise KeyError('No such key')")), 3))
        return Attachment(f"traceback-{n}.txt", "text/plain",
                          f"Traceback (most recent call last):\n{frames}\nValueError: {title}\n")
    if kind == "log":
        lines = "\n".join(f"2026-0{rng.randint(1, 3)}-{rng.randint(10, 28)} {rng.randint(10, 23)}:"
                          f"{rng.randint(10, 59)}:{rng.randint(10, 59)} {lvl} {slug}: {msg}"
                          for lvl, msg in rng.sample((("INFO", "request started"), ("WARNING", "slow query (2.4 s)"),
                                                      ("ERROR", "unexpected state, retrying"),
                                                      ("INFO", "request finished with status 500"),
                                                      ("DEBUG", "cache miss for user 17")), 4))
        return Attachment(f"server-{n}.log", "text/plain", lines + "\n")
    if kind == "patch":
        line = rng.randint(20, 900)
        return Attachment(f"fix-{slug}.patch", "text/x-diff",
                          f"--- a/roundup/{slug.replace('-', '_')}.py\n+++ b/roundup/{slug.replace('-', '_')}.py\n"
                          f"@@ -{line},6 +{line},7 @@\n     def handle(self):\n-        value = self.form[key]\n"
                          f"+        value = self.form.get(key)\n+        if value is None:\n"
                          f"+            return self.default\n         return self.convert(value)\n")
    rows = "\n".join(f"{rng.randint(100, 2000)},{rng.choice(('open', 'closed'))},{rng.randint(1, 28)}.01.2026"
                     for _ in range(rng.randint(3, 6)))
    return Attachment(f"export-{n}.csv", "text/csv", "id,state,date\n" + rows + "\n")


# the status path to each final status (the statuses an issue passes through after it is filed)
_PATHS: dict[str, tuple[tuple[str, ...], ...]] = {
    "unread": ((),), "deferred": (("chatting", "deferred"), ("deferred",)), "chatting": (("chatting",),),
    "need-eg": (("need-eg",), ("chatting", "need-eg")), "in-progress": (("in-progress",), ("chatting", "in-progress")),
    "testing": (("in-progress", "testing"),), "done-cbb": (("in-progress", "done-cbb"),),
    "resolved": (("in-progress", "testing", "resolved"), ("chatting", "resolved"), ("in-progress", "resolved")),
}
_KIND = {"chatting": "ask", "need-eg": "ask", "in-progress": "progress", "testing": "progress", "done-cbb": "done",
         "resolved": "done", "deferred": "defer"}


def _issue(rng: random.Random, people: tuple[Person, ...], comps: tuple[str, ...], titles: set[str],
           minute: int, n: int) -> Issue | None:
    kw = rng.choice(KEYWORDS)
    prio = rng.choices(PRIORITIES, weights=(1, 2, 6, 3, 2))[0]
    area, title = title_parts(rng, kw, prio, comps)
    if title in titles:
        return None
    titles.add(title)
    names = [p.username for p in people]
    devs = names[:N_DEVELOPERS]
    reporter = rng.choice(names)
    final = rng.choices(STATUSES, weights=(4, 1, 4, 1, 3, 2, 1, 4))[0]
    path = rng.choice(_PATHS[final])
    files = (_attachment(rng, area, title, n),) if rng.random() < 0.22 else ()
    report = _report(rng, area, title, prio in ("feature", "wish"))
    events = [Event(reporter, minute, Message(reporter, report, minute, files), status="unread")]
    t = minute
    assigned: str | None = None
    for k, st in enumerate(path):
        t += rng.randint(30, 4000)
        if k == 0:  # triage: a developer takes it (or hands it to a colleague) and says why
            actor = rng.choice(devs)
            assigned = actor if rng.random() < 0.6 else rng.choice(devs)
            body = _reply(rng, area, list(people), _KIND[st])
            events.append(Event(actor, t, Message(actor, body, t), status=st, assignedto=assigned))
            continue
        if rng.random() < 0.5:  # someone chimes in first, without changing anything
            other = rng.choice(names)
            events.append(Event(other, t, Message(other, _reply(rng, area, list(people), "progress"), t)))
            t += rng.randint(30, 2000)
        actor = assigned or rng.choice(devs)
        more = (Attachment(f"fix-{n}.patch", "text/x-diff", _attachment(rng, area, title, n).content),) \
            if st == "testing" and rng.random() < 0.3 else ()
        events.append(Event(actor, t, Message(actor, _reply(rng, area, list(people), _KIND[st]), t, more), status=st))
    extra = tuple(sorted({kw, *rng.sample(KEYWORDS, rng.choice((0, 0, 1)))}))
    nosy = tuple(sorted({reporter, *([assigned] if assigned else []), *(e.actor for e in events)}))
    return Issue(title, final, prio, extra, assigned, nosy, tuple(events))


def world(seed: int, n_issues: int = N_ISSUES) -> World:
    """The tracker content of ``seed``: the same seed always gives the same content (see the module doc)."""
    rng = random.Random(f"roundup-world-{seed}")
    comps = components(seed)
    people = _coined_people(rng, pool_for(seed, PURPOSE)) if comps else _people(rng)
    issues: list[Issue] = []
    titles: set[str] = set()
    minute = 0
    while len(issues) < n_issues:
        minute += rng.randint(5, 180)
        it = _issue(rng, people, comps, titles, minute, len(issues) + 1)
        if it is not None:
            issues.append(it)
    return World(seed, people, tuple(issues))

