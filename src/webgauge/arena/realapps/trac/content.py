"""The seed's forge content, a pure function of the seed: people and their permissions, components,
milestones, git repositories with commit histories, branches and tags, 1,100 tickets with change
histories, and the project wiki.

Public seeds draw people, component and repository names from the fixed lists below. Held-out seeds
(at or above :data:`~webgauge.arena.content.pools.HELDOUT_BASE`) take their people from the arena's
seeded pool (:func:`~webgauge.arena.content.pools.pool_for`, purpose :data:`PURPOSE`), which coins
names with the world's secret content key, and name their components and repositories with coined
words too; so a held-out forge's people, components, repositories, ticket titles and wiki page names
appear in no list.

Ticket titles are built with subject-verb agreement: every subject noun phrase carries its
grammatical number and every predicate both its singular and its plural verb form
(:func:`agree`), so "The upload dialog rejects" and "Upload dialogs reject" are both made, never
"Upload dialogs rejects". Change histories are consistent with the ticket's header: the owner,
status and resolution a ticket ends with are the ones its last changes set.

Nothing here touches Trac: :func:`world` returns plain records, and the seed script writes them
through Trac's own model API (``Ticket.insert``/``save_changes``, ``WikiPage.save``,
``Milestone.insert``, ``PermissionSystem.grant_permission``) and the repositories with
``git fast-import``.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field

from ...content.pools import Pool, pool_for, slice_of_seed

__all__ = ["N_TICKETS", "PRIORITIES", "PURPOSE", "RESOLUTIONS", "TYPES", "Change", "Commit", "Component",
           "Milestone", "Person", "Repo", "Ticket", "WikiPage", "World", "agree", "world"]

PURPOSE = "trac-forge"
N_TICKETS = 1100
EPOCH = 1767603600  # 2026-01-05 09:00 UTC; times are minutes after it
PRIORITIES = ("blocker", "critical", "major", "minor", "trivial")  # Trac's default priorities
TYPES = ("defect", "enhancement", "task")  # Trac's default ticket types
RESOLUTIONS = ("fixed", "invalid", "wontfix", "duplicate", "worksforme")

_FIRST = ("Amira", "Bastian", "Chiara", "Dmitri", "Elif", "Farid", "Greta", "Hiroshi", "Ines", "Jonas", "Kalinda",
          "Lucas", "Marta", "Nikolai", "Olga", "Pedro", "Quentin", "Rosa", "Sanjay", "Tereza", "Umar", "Valeria",
          "Wen", "Ximena", "Yusuf", "Zofia")
_LAST = ("Andersson", "Baptiste", "Costa", "Eriksen", "Fontaine", "Gallagher", "Horvat", "Ivanova", "Jansen",
         "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quist", "Rinaldi", "Schmidt",
         "Takahashi", "Ulrich", "Varga", "Weber", "Yilmaz", "Zimmermann")

# component -> (its repository area, subject noun phrases with their number)
_COMPONENTS: dict[str, tuple[tuple[str, str], ...]] = {
    "auth": (("The login page", "sg"), ("Password reset emails", "pl"), ("The session cookie", "sg"),
             ("API tokens", "pl"), ("The two-factor prompt", "sg"), ("LDAP group lookups", "pl")),
    "web-ui": (("The ticket page", "sg"), ("Dropdown menus", "pl"), ("The dark theme", "sg"),
               ("Keyboard shortcuts", "pl"), ("The date picker", "sg"), ("Breadcrumb links", "pl")),
    "api": (("The REST endpoint for projects", "sg"), ("Paginated responses", "pl"), ("The webhook sender", "sg"),
            ("Batch requests", "pl"), ("The rate limiter", "sg"), ("JSON error bodies", "pl")),
    "storage": (("The attachment store", "sg"), ("Database migrations", "pl"), ("The backup job", "sg"),
                ("Large uploads", "pl"), ("The cache layer", "sg"), ("Orphaned blobs", "pl")),
    "search": (("The full-text index", "sg"), ("Saved queries", "pl"), ("The search box", "sg"),
               ("Result snippets", "pl"), ("The reindex command", "sg"), ("Search filters", "pl")),
    "notifications": (("The mail queue", "sg"), ("Digest emails", "pl"), ("The mention parser", "sg"),
                      ("Webhook retries", "pl"), ("The unsubscribe link", "sg"), ("Desktop alerts", "pl")),
    "build": (("The release script", "sg"), ("Nightly builds", "pl"), ("The Docker image", "sg"),
              ("Integration tests", "pl"), ("The changelog generator", "sg"), ("Wheel uploads", "pl")),
    "importer": (("The CSV importer", "sg"), ("Imported comments", "pl"), ("The Jira converter", "sg"),
                 ("User mappings", "pl"), ("The dry-run mode", "sg"), ("Attachment imports", "pl")),
}
# predicates: (singular verb phrase, plural verb phrase)
_DEFECT_PRED = (
    ("fails with a 500 error", "fail with a 500 error"), ("times out", "time out"),
    ("shows the wrong time zone", "show the wrong time zone"), ("drops the last row", "drop the last row"),
    ("ignores the selected filter", "ignore the selected filter"), ("loses unsaved text", "lose unsaved text"),
    ("double-encodes umlauts", "double-encode umlauts"), ("crashes on empty input", "crash on empty input"),
    ("does not respect the locale", "do not respect the locale"), ("has a memory leak", "have a memory leak"),
    ("is missing from the sidebar", "are missing from the sidebar"), ("breaks in Safari", "break in Safari"),
    ("leaks a stack trace", "leak a stack trace"), ("was broken by the last merge", "were broken by the last merge"),
    ("hangs for minutes", "hang for minutes"), ("returns duplicate entries", "return duplicate entries"),
)
_WHEN = ("after the upgrade to the new schema", "when the title contains an apostrophe", "on the second page",
         "with more than 10,000 tickets", "for users in UTC+13", "behind a reverse proxy", "since Tuesday's deploy",
         "when two people edit at once", "on mobile browsers", "with a non-ASCII username", "under load",
         "in the staging cluster")
_ENH = ("Add {x} to {c}", "Allow {x} in {c}", "Support {x} in {c}", "Make {x} configurable in {c}",
        "Show {x} in {c}")
_ENH_X = ("per-user preferences", "a bulk edit mode", "an audit trail", "CSV export", "keyboard navigation",
          "a dry-run flag", "retry with backoff", "Markdown previews", "a health check", "structured logging")
_TASK = ("Document {x} for {c}", "Write tests for {x} in {c}", "Clean up {x} in {c}", "Upgrade {x} used by {c}",
         "Review {x} of {c}")
_TASK_X = ("the error handling", "the configuration options", "the deprecated settings", "the public interface",
           "the logging calls", "the retry logic", "the third-party dependencies", "the database queries")
_WHY = ("see the discussion on the mailing list.", "it came up in the last planning call.",
        "two customers asked for it.")
_OPENERS = ("Steps to reproduce:", "This happens reliably on the current trunk.",
            "Reported by a customer this morning.",
            "Seen in the production logs as well.", "Two users reported this on the mailing list.")
_STEPS = ("open the ticket list", "sort by last change", "open the first result", "attach a 20 MB file",
          "switch the language to German", "log out and back in", "save the query", "press Submit twice",
          "reload the page", "run the nightly job")
_COMMENTS = ("Confirmed on trunk; the traceback points at the template layer.",
             "I have a patch for this, it needs a regression test before it can land.",
             "Could you attach the server log from around that time?",
             "Not reproducible here with a fresh environment. Which database do you use?",
             "Three more reports this week, raising the priority.",
             "The workaround is to clear the browser cache, but we need a real fix.",
             "Moving this to the next milestone; nobody has time before the release.",
             "The fix is on a branch, waiting for review.",
             "Duplicate reports point to the same root cause in the date handling.",
             "Tested the fix on staging, it looks good to me.",
             "Bisected it to the refactoring of the request handler.",
             "This also affects the command-line tools.")
# each of the comment kinds above, said about the ticket at hand: its component's code, a step of its
# report, its milestone, a colleague, a commit (a separate random stream, so the rest of a world does not
# depend on how its comments are worded)
_COMMENT_WAYS = (
    ("Confirmed on {ms}; the traceback points at {label}.", "I can reproduce this on {ms} when I {step}.",
     "Confirmed: it fails every time I {step}, and the traceback ends in {label}.",
     "Same here on {ms}. The stack trace goes through {label}."),
    ("I have a patch for {label}; it needs a regression test before it can land.",
     "There is a patch for this in {label}. {who}, could you review it?",
     "Patch attached. It touches {label} only, but it still needs a test.",
     "I wrote a fix for {label} and will add a regression test tomorrow."),
    ("Could you attach the server log from around that time?", "Which browser were you using when you tried to {step}?",
     "Can you attach the log from the moment you {step_past}?", "{who}, do you still have the log from that run?"),
    ("Not reproducible here with a fresh environment. Which database do you use?",
     "I tried to {step} on {ms} with a clean install and it works for me.",
     "Cannot reproduce on {ms}. Is there anything unusual in your configuration?",
     "Works for me after I {step_past}. Does it still happen for you?"),
    ("{n} more reports this week, raising the priority.", "{who} hit this too; that makes {n} reports since {ms}.",
     "Another report came in today, the {nth} one this month.", "{n} customers ran into this after {ms}."),
    ("The workaround is to clear the browser cache, but we need a real fix.",
     "For now the workaround is to {step} again; a proper fix should go into {label}.",
     "A workaround is in the wiki, but {label} still needs fixing.", "Restarting the service helps for a while."),
    ("Moving this to {later}; nobody has time before the release.", "Not a blocker for {ms}. Moving it to {later}.",
     "Postponed to {later}, as agreed in the planning call.", "{who} is away, so this slips to {later}."),
    ("The fix is on a branch, waiting for review.", "The fix is on the branch fix-{num}, waiting for review by {who}.",
     "{who} pushed a fix to a branch; it needs a second review.", "A fix for {label} is waiting for review."),
    ("Duplicate reports point to the same root cause in the date handling.",
     "The other reports about {component} point to the same root cause in {label}.",
     "This and #{dup} have the same cause: {label}.", "Looks like the same root cause as #{dup}."),
    ("Tested the fix on staging, it looks good to me.", "Tested on staging with {ms}: I can {step} again.",
     "The fix works on staging. Thanks, {who}!", "Verified on staging; {label} behaves now."),
    ("Bisected it to the refactoring of the request handler.", 'Bisected it to the commit "{commit}".',
     'git bisect points at "{commit}".', 'It started with "{commit}"; the change to {label} looks suspicious.'),
    ("This also affects the command-line tools.", "This also affects {other}.",
     "{other} shows the same problem.", "Not only {component}: {other} is affected as well."),
)
_FOLLOW_UPS = ("Thanks for the detailed report.", "Adding {who} to CC.", "See also #{dup}.",
               "I will look at it again after {ms}.", "Raising it in the next planning call.",
               "The nightly build shows the same.", "Marking it for the release notes.")
_HAND_OVER = ("{who} knows this code better.", "Reassigning to {who}, who wrote this part.",
              "{who}, could you take this one?", "Handing this over to {who}.", "{who} is already working on it.")
_TAKE = ("Taking this.", "I'll take this one.", "Accepting; I will look at it this week.",
         "Mine. It should make {ms}.", "Taking it, I was in that code anyway.")
_REOPEN = ("Still happens with the fix, reopening.", "Reopening: it came back on {ms}.",
           "The fix does not cover the second case, reopening.", "Seen again today, so reopening.")
_NTH = ("second", "third", "fourth", "fifth", "sixth")
_PAST = {"open": "opened", "sort": "sorted", "attach": "attached", "switch": "switched", "log": "logged",
         "save": "saved", "press": "pressed", "reload": "reloaded", "run": "ran"}


def _comment(rng: random.Random, kind: int, ticket: int, comp: str, label: str, step: str, ms: str, later: str,
             who: str, commit: str, other: str) -> str:
    """A comment of kind ``kind`` (an index into ``_COMMENTS``) about ticket number ``ticket``."""
    verb, _, rest = step.partition(" ")
    values = {"ms": ms, "later": later, "label": label, "step": step, "step_past": f"{_PAST[verb]} {rest}",
              "who": who, "commit": commit, "other": other, "component": comp, "n": rng.choice(("Two", "Three",
              "Four", "Five")), "nth": rng.choice(_NTH), "num": ticket, "dup": max(1, ticket - rng.randint(1, 60))}
    text = rng.choice(_COMMENT_WAYS[kind]).format(**values)
    if rng.random() < 0.35:
        text += " " + rng.choice(_FOLLOW_UPS).format(**values)
    return text[0].upper() + text[1:]


_CLOSE = {"fixed": "Fixed in {rev}; the regression test covers the reported case.",
          "invalid": "This is the documented behaviour, closing.",
          "wontfix": "We decided not to change this; see the discussion on the mailing list.",
          "duplicate": "Closing as a duplicate of #{dup}.",
          "worksforme": "Could not reproduce with the current release; please reopen with more details."}

# repository kinds: (files, commit message templates over a file's topic)
_REPO_FILES = {
    "server": ("src/app.py", "src/auth.py", "src/models.py", "src/views.py", "src/storage.py", "src/search.py",
               "src/mailer.py", "tests/test_auth.py", "tests/test_views.py", "setup.cfg", "README.md",
               "docs/install.rst"),
    "client": ("src/index.ts", "src/api.ts", "src/components/TicketList.tsx", "src/components/DatePicker.tsx",
               "src/theme.css", "src/i18n/de.ts", "test/api.test.ts", "vite.config.ts", "README.md"),
    "tools": ("deploy.sh", "ansible/site.yml", "ansible/roles/web/tasks/main.yml", "docker/Dockerfile",
              "scripts/backup.py", "scripts/import_csv.py", "Makefile", "README.md"),
}
# how a commit message names the file it changes
_LABEL = {"app": "the app factory", "auth": "the auth module", "models": "the models", "views": "the views",
          "storage": "the storage backend", "search": "the search module", "mailer": "the mailer",
          "test auth": "the auth tests", "test views": "the view tests", "setup": "the package setup",
          "README": "the README", "install": "the install guide", "index": "the entry point", "api": "the API client",
          "TicketList": "the ticket list", "DatePicker": "the date picker", "theme": "the theme",
          "de": "the German strings", "api.test": "the API tests", "vite": "the build config",
          "deploy": "the deploy script", "site": "the playbook", "main": "the web role", "Dockerfile": "the Dockerfile",
          "backup": "the backup script", "import csv": "the CSV import script", "Makefile": "the Makefile"}
_VERBS = ("Fix", "Refactor", "Simplify", "Speed up", "Add tests for", "Document", "Harden", "Clean up")
_TOPICS = ("the date handling", "error messages", "the retry loop", "input validation", "the cache keys",
           "the logging setup", "Unicode file names", "the config parser", "pagination", "the timeout handling",
           "the upload size check", "the permission checks")


@dataclass(frozen=True)
class Person:
    username: str
    realname: str
    email: str
    password: str
    role: str  # "lead" (TRAC_ADMIN), "developer" (the developers group), "reporter" (the reporters group)


@dataclass(frozen=True)
class Component:
    name: str
    owner: str  # username


@dataclass(frozen=True)
class Milestone:
    name: str
    due: int  # minute
    completed: int | None  # minute, None when open
    description: str


@dataclass(frozen=True)
class Commit:
    author: str  # username
    minute: int
    message: str
    files: tuple[tuple[str, str], ...]  # (path, the line this commit adds to it)


@dataclass(frozen=True)
class Repo:
    name: str
    kind: str  # key of the file layout
    main: tuple[Commit, ...]
    branches: tuple[tuple[str, int, tuple[Commit, ...]], ...]  # (name, index of the main commit it starts at, commits)
    tags: tuple[tuple[str, int], ...]  # (tag, index of the main commit it points at)


@dataclass(frozen=True)
class Change:
    author: str
    minute: int
    comment: str
    fields: tuple[tuple[str, str], ...]  # (field, new value)


@dataclass(frozen=True)
class Ticket:
    summary: str
    type: str
    component: str
    milestone: str
    priority: str
    reporter: str
    owner: str
    description: str
    minute: int
    changes: tuple[Change, ...]
    status: str  # after its changes
    resolution: str


@dataclass(frozen=True)
class WikiPage:
    name: str
    author: str
    minute: int
    text: str


@dataclass(frozen=True)
class World:
    seed: int
    people: tuple[Person, ...]
    components: tuple[Component, ...]
    milestones: tuple[Milestone, ...]
    repos: tuple[Repo, ...]
    tickets: tuple[Ticket, ...] = field(repr=False)
    wiki: tuple[WikiPage, ...] = field(repr=False)

    def to_json(self) -> dict:
        return asdict(self)

    def person(self, username: str) -> Person:
        return next(p for p in self.people if p.username == username)


def agree(subject: tuple[str, str], predicate: tuple[str, str]) -> str:
    """``subject`` (words, "sg"/"pl") with the predicate's verb form of the same number."""
    words, number = subject
    return f"{words} {predicate[0] if number == 'sg' else predicate[1]}"


def _people(rng: random.Random, pool: Pool | None) -> tuple[Person, ...]:
    names = pool.people(16) if pool else [f"{f} {rng.choice(_LAST)}" for f in rng.sample(_FIRST, 16)]
    out, seen = [], set()
    for name in names:
        first, last = name.split(" ", 1)
        user = (first[0] + last).lower().replace(" ", "").replace("-", "")
        if user in seen or not user.isascii() or not user.isalnum():
            continue
        seen.add(user)
        out.append((user, name, first))
    roles = ["lead", *["developer"] * 7, *["reporter"] * (len(out) - 8)]
    return tuple(Person(u, n, f"{u}@forge.example", f"{f.lower()}-{rng.randint(1000, 9999)}", r)
                 for (u, n, f), r in zip(out, roles, strict=False))


def _names(seed: int) -> tuple[dict[str, str], dict[str, str]]:
    """component key -> shown component name, repository kind -> repository name."""
    if slice_of_seed(seed) != "heldout":
        return {k: k for k in _COMPONENTS}, {"server": "server", "client": "web-client", "tools": "deploy-tools"}
    coined = [w.lower() for w in pool_for(seed, PURPOSE).words("adjective")[:len(_COMPONENTS) + 3]]
    comps = dict(zip(_COMPONENTS, coined, strict=False))
    return comps, {"server": f"{coined[-3]}-server", "client": f"{coined[-2]}-client", "tools": f"{coined[-1]}-ops"}


def _label(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    return _LABEL.get(base.rsplit(".", 1)[0].replace("_", " ")) or _LABEL[base.split(".")[0].replace("_", " ")]


def _repo(rng: random.Random, name: str, kind: str, devs: list[str], start: int,
          areas: tuple[str, ...] = ()) -> Repo:
    """A repository's history; ``areas``: a held-out forge's coined component names, one of which
    prefixes every commit message ("chorvirko: Fix ..."), as many projects write them."""
    files = _REPO_FILES[kind]
    minute = start
    seen: set[str] = set()

    def commit() -> Commit:
        nonlocal minute
        while True:
            path = rng.choice(files)
            stem = _label(path)
            msg = f"{rng.choice(_VERBS)} {rng.choice(_TOPICS)} in {stem}"
            if areas:
                msg = f"{rng.choice(areas)}: {msg}"
            if msg not in seen:
                break
        seen.add(msg)
        minute += rng.randint(40, 900)
        extra = rng.choice([p for p in files if p != path]) if rng.random() < 0.3 else None
        body = f"{msg[0].lower()}{msg[1:]}"
        return Commit(rng.choice(devs), minute, msg,
                      tuple((p, f"{body} ({len(seen)})") for p in ([path, extra] if extra else [path])))

    first = Commit(devs[0], minute, "Initial import", tuple((p, "initial version") for p in files))
    main = [first, *(commit() for _ in range(rng.randint(55, 75)))]
    tags, k, major, minor = [], 0, 1, 0
    while True:
        k += rng.randint(8, 14)
        if k >= len(main) - 2:
            break
        tags.append((f"v{major}.{minor}.0", k))
        minor += 1
        if minor == 4:
            major, minor = major + 1, 0
    branches = []
    for bname in rng.sample(("feature/bulk-edit", "fix/session-timeout", "experiment/async-io", "release/1.x"), 2):
        at = rng.randrange(len(main) // 2, len(main) - 1)
        save = minute
        minute = main[at].minute
        branches.append((bname, at, tuple(commit() for _ in range(rng.randint(2, 5)))))
        minute = max(save, minute)
    return Repo(name, kind, tuple(main), tuple(branches), tuple(tags))


def _ticket_text(rng: random.Random, ttype: str, comp: str, subjects, held: bool) -> str:
    if ttype == "defect":  # a held-out forge's subjects name their (coined) component: "The login page in chorvirko"
        words, number = rng.choice(subjects)
        subject = (f"{words} in {comp}", number) if held else (words, number)
        return f"{agree(subject, rng.choice(_DEFECT_PRED))} {rng.choice(_WHEN)}"
    if ttype == "enhancement":
        return rng.choice(_ENH).format(x=rng.choice(_ENH_X), c=comp)
    return rng.choice(_TASK).format(x=rng.choice(_TASK_X), c=comp)


def world(seed: int, n_tickets: int = N_TICKETS) -> World:
    """The forge content of ``seed``: the same seed always gives the same content (see the module doc)."""
    rng = random.Random(f"trac-world-{seed}")
    comp_names, repo_names = _names(seed)
    held = slice_of_seed(seed) == "heldout"
    people = _people(rng, pool_for(seed, PURPOSE) if held else None)
    devs = [p.username for p in people if p.role != "reporter"]
    users = [p.username for p in people]
    comps = tuple(Component(comp_names[k], rng.choice(devs)) for k in _COMPONENTS)
    owner_of = {c.name: c.owner for c in comps}
    major = rng.choice((1, 2))  # milestone names are common words of every forge, never a world's secret
    ms_names = [f"{major}.{m}" for m in range(0, 7)]
    milestones = []
    for i, m in enumerate(ms_names):
        due = 60 * 24 * (30 * i + rng.randint(0, 10))
        done = due - rng.randint(0, 3000) if i < 3 else None
        milestones.append(Milestone(m, due, done, f"Release {m}: " + rng.choice((
            "stabilise the storage layer and close the remaining regressions.",
            "the new search backend and the importer.",
            "performance work on the ticket pages and the API.",
            "security fixes and the upgraded authentication flow.",
            "polish for the web interface and the notification settings.")) + "\n\nRelease manager: "
            + rng.choice(devs)))
    areas = tuple(comp_names.values()) if held else ()
    repos = tuple(_repo(rng, repo_names[kind], kind, devs, 0, areas) for kind in ("server", "client", "tools"))
    tickets: list[Ticket] = []
    seen: set[str] = set()
    minute = 0
    crng = random.Random(f"trac-comments-{seed}")  # comment wording only: the world's other draws do not depend on it
    labels = {k: [s[0].lower() + s[1:] for s, _ in subjects if s.startswith("The ")]
              for k, subjects in _COMPONENTS.items()}  # the parts of a component's code a comment can blame
    open_ms = [m.name for m in milestones if m.completed is None]
    while len(tickets) < n_tickets:
        key = rng.choice(list(_COMPONENTS))
        comp = comp_names[key]
        ttype = rng.choices(TYPES, weights=(6, 3, 2))[0]
        summary = _ticket_text(rng, ttype, comp, _COMPONENTS[key], held)
        if summary in seen:
            continue
        seen.add(summary)
        minute += rng.randint(5, 160)
        reporter = rng.choice(users)
        owner = owner_of[comp]
        prio = rng.choices(PRIORITIES, weights=(1, 2, 6, 3, 1))[0]
        ms = rng.choice(ms_names)
        steps = rng.sample(_STEPS, 3)
        desc = (f"{rng.choice(_OPENERS)}\n\n 1. {steps[0]}\n 2. {steps[1]}\n 3. {steps[2]}\n\n"
                f"Expected: it works as documented.\nActual: {summary[0].lower()}{summary[1:]}."
                if ttype == "defect" else
                f"{summary}.\n\nThis would help the {comp} component's users; "
                + rng.choice(_WHY))
        changes, t, status, resolution = [], minute, "new", ""
        for _ in range(rng.choices((0, 1, 2, 3), weights=(3, 4, 3, 2))[0]):
            t += rng.randint(30, 3000)
            author, kind = rng.choice(users), rng.randrange(len(_COMMENTS))
            changes.append(Change(author, t, _comment(
                crng, kind, len(tickets) + 1, comp, crng.choice(labels[key]), crng.choice(_STEPS), ms,
                ms_names[min(ms_names.index(ms) + 1, len(ms_names) - 1)],
                people_name(people, crng.choice([u for u in devs if u != author] or devs)),
                crng.choice(repos[0].main).message, crng.choice([c for c in comp_names.values() if c != comp])), ()))
        fate = "closed" if ms not in open_ms else rng.choices(("new", "assigned", "accepted", "closed", "reopened"),
                                                              weights=(4, 3, 2, 3, 1))[0]
        if fate in ("assigned", "accepted", "closed", "reopened"):
            t += rng.randint(30, 3000)
            other = rng.choice([d for d in devs if d != owner])
            if fate == "assigned":
                changes.append(Change(owner, t, crng.choice(_HAND_OVER).format(who=people_name(people, other)),
                                      (("owner", other), ("status", "assigned"))))
                owner, status = other, "assigned"
            else:
                changes.append(Change(owner, t, crng.choice(_TAKE).format(ms=ms), (("status", "accepted"),)))
                status = "accepted"
        if fate in ("closed", "reopened"):
            t += rng.randint(30, 3000)
            resolution = rng.choices(RESOLUTIONS, weights=(8, 1, 1, 1, 1))[0]
            rev = rng.choice(repos[0].main).message
            dup = max(1, len(tickets) - rng.randint(1, 40))
            comment = _CLOSE[resolution].format(rev=f"the commit \"{rev}\"", dup=dup)
            changes.append(Change(owner, t, comment, (("status", "closed"), ("resolution", resolution))))
            status = "closed"
            if fate == "reopened":
                t += rng.randint(30, 3000)
                changes.append(Change(reporter, t, crng.choice(_REOPEN).format(ms=ms),
                                      (("status", "reopened"), ("resolution", ""))))
                status, resolution = "reopened", ""
        tickets.append(Ticket(summary, ttype, comp, ms, prio, reporter, owner, desc, minute, tuple(changes),
                              status, resolution))
    return World(seed, people, comps, tuple(milestones), repos, tuple(tickets),
                 _wiki(rng, people, comps, milestones, repos))


def people_name(people: tuple[Person, ...], username: str) -> str:
    return next(p.realname for p in people if p.username == username)


_SECTIONS = ("Overview", "Responsibilities", "Configuration", "Known issues", "Release checklist", "Contacts")
_PARA = ("The {c} component is maintained by {o}. Changes go through review on the {r} repository before they "
         "are merged to the main branch.",
         "Configuration lives in the [{c}] section of the server's settings file; every option has a default, "
         "and the defaults are listed in the admin guide.",
         "Known problems are tracked as tickets with the component set to {c}; see the [query:component={c} "
         "open tickets] for the current list.",
         "Before a release, the owner of {c} runs the integration tests against the release branch and signs off "
         "in the release ticket.",
         "Questions about {c} go to {o} first, then to the developers' mailing list.",
         "The {c} code follows the project's style guide: small functions, typed interfaces and a test for every "
         "bug fix.")


def _wiki(rng: random.Random, people, comps, milestones, repos) -> tuple[WikiPage, ...]:
    lead = next(p for p in people if p.role == "lead")
    pages = []
    for c in comps:
        name = "Component" + "".join(w.capitalize() for w in c.name.split("-"))
        secs = rng.sample(_SECTIONS, 4)
        body = "\n\n".join(f"== {s} ==\n\n" + rng.choice(_PARA).format(
            c=c.name, o=people_name(people, c.owner), r=repos[0].name) for s in secs)
        pages.append(WikiPage(name, c.owner, 60 * 24 * rng.randint(1, 60),
                              f"= The {c.name} component =\n\nOwner: {people_name(people, c.owner)}\n\n{body}\n"))
    for m in milestones:
        name = f"ReleaseNotes{m.name.replace('.', '_')}"
        items = "\n".join(f" * {rng.choice(_VERBS)} {rng.choice(_TOPICS)} ({rng.choice(comps).name})"
                          for _ in range(rng.randint(4, 8)))
        pages.append(WikiPage(name, lead.username, m.due,
                              f"= Release notes for {m.name} =\n\n== Highlights ==\n\n{items}\n\n"
                              f"== Upgrading ==\n\nRun the database upgrade before restarting the server.\n"))
    for title, text in (
            ("DevelopmentProcess", "= Development process =\n\n== Branches ==\n\nWork happens on short-lived "
                                   "branches merged after one review.\n\n== Tickets ==\n\nEvery change refers to a "
                                   "ticket; close the ticket from the commit message.\n"),
            ("CodingStyle", "= Coding style =\n\n== Python ==\n\nFormat with the project's formatter; type every "
                            "public function.\n\n== TypeScript ==\n\nStrict mode on; no implicit any.\n"),
            ("OnCall", "= On-call rotation =\n\n== This month ==\n\n" + "\n".join(
                f" * week {i + 1}: {people_name(people, p.username)}" for i, p in
                enumerate(rng.sample([p for p in people if p.role != 'reporter'], 4))) + "\n")):
        pages.append(WikiPage(title, lead.username, 60 * 24 * rng.randint(1, 30), text))
    links = "\n".join(f" * [wiki:{p.name}]" for p in pages)
    start = ("= Welcome to the forge =\n\nThis is the project's tracker, wiki and repository browser.\n\n"
             "== Repositories ==\n\n" + "\n".join(f" * [browser:{r.name} {r.name}]" for r in repos) +
             f"\n\n== Wiki pages ==\n\n{links}\n\n== Planning ==\n\nSee the [roadmap:] and the [report:1 active "
             f"tickets].\n")
    return (WikiPage("WikiStart", lead.username, 0, start), *pages)
