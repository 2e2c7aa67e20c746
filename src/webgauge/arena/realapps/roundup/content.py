"""The seed's tracker content, a pure function of the seed: people, keywords and a few hundred
issues with message histories that read like a software project's tracker.

Public seeds draw people and issue titles from the fixed lists below. Held-out seeds (at or
above :data:`~webgauge.arena.content.pools.HELDOUT_BASE`) take their people (real names, and
the user names and passwords made from them) from the arena's seeded pool
(:func:`~webgauge.arena.content.pools.pool_for` with purpose ``roundup-tracker``), which for a
held-out seed coins words with the world's secret content key
(:mod:`webgauge.arena.content.synth`), and every issue title names one of the tracker's
components, product names coined the same way (:func:`components`). So a held-out tracker's
people and titles appear in no list, and trackers built from seeds chosen without the secret
share almost none of them.

Nothing here touches Roundup: :func:`world` returns plain records, and the seed script
writes them through Roundup's own API (``db.user.create``, ``db.msg.create``,
``db.issue.create``), so the stored rows are what Roundup itself makes of them.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from ...content.pools import Pool, pool_for, slice_of_seed

__all__ = ["KEYWORDS", "N_COMPONENTS", "N_ISSUES", "PRIORITIES", "PURPOSE", "STATUSES", "USERNAME", "Issue",
           "Message", "Person", "World", "components", "world"]

# Roundup's classic template's own statuses and priorities (initial_data.py), in its order.
STATUSES = ("unread", "deferred", "chatting", "need-eg", "in-progress", "testing", "done-cbb", "resolved")
PRIORITIES = ("critical", "urgent", "bug", "feature", "wish")
KEYWORDS = ("login", "search", "export", "mail-gateway", "performance", "ui", "api", "docs", "security", "i18n")
N_ISSUES = 240
N_COMPONENTS = 12  # coined component names of a held-out tracker
PURPOSE = "roundup-tracker"  # the pool purpose of the held-out content
USERNAME = re.compile(r"^[a-z0-9_@!%.+-]+$")  # Roundup's classic userauditor (it accepts any case; ours are lower)

_FIRST = ("Amira", "Bastian", "Chiara", "Dmitri", "Elif", "Farid", "Greta", "Hiroshi", "Ines", "Jonas", "Kalinda",
          "Lucas", "Marta", "Nikolai", "Olga", "Pedro", "Quentin", "Rosa", "Sanjay", "Tereza", "Umar", "Valeria",
          "Wen", "Ximena", "Yusuf", "Zofia")
_LAST = ("Andersson", "Baptiste", "Costa", "Dvořák", "Eriksen", "Fontaine", "Gallagher", "Horvat", "Ivanova",
         "Jansen", "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quist", "Rinaldi", "Schmidt",
         "Takahashi", "Ulrich", "Varga", "Weber", "Yilmaz", "Zimmermann")
_ORGS = ("Platform team", "Web team", "Support", "Infrastructure", "Docs guild")
_AREAS = {
    "login": ("Login form", "Password reset", "Session cookie", "Two-factor prompt", "LDAP sign-in"),
    "search": ("Full-text search", "Saved queries", "Search filters", "Issue index page", "Sort by activity"),
    "export": ("CSV export", "PDF report", "Nightly dump", "Bulk download", "XML export"),
    "mail-gateway": ("Mail gateway", "Nosy notifications", "Reply-by-mail", "Bounce handling", "Digest mails"),
    "performance": ("Issue list", "Dashboard", "Attachment upload", "History view", "Startup"),
    "ui": ("Date picker", "Navigation bar", "Issue page layout", "Dark theme", "Keyboard shortcuts"),
    "api": ("REST endpoint", "XML-RPC client", "Webhook", "API token", "Pagination"),
    "docs": ("Install guide", "Upgrade notes", "Admin manual", "Template reference", "FAQ"),
    "security": ("CSRF token", "File upload check", "Role permissions", "Audit log", "Password hashing"),
    "i18n": ("German translation", "Date formats", "Right-to-left layout", "Plural forms", "Time zones"),
}
_SYMPTOMS = {
    "bug": ("fails with a 500 error", "shows the wrong time zone", "drops the last row", "hangs for minutes",
            "ignores the selected filter", "loses unsaved text", "double-encodes umlauts", "crashes on empty input"),
    "critical": ("leaks other users' data", "corrupts the database", "is down for everyone", "deletes attachments"),
    "urgent": ("blocks the release", "breaks for all Safari users", "stopped after the upgrade",
               "times out in production"),
    "feature": ("should support CSV with semicolons", "needs a per-user setting", "could remember the last query",
                "should offer a bulk edit", "needs an audit trail"),
    "wish": ("could use a clearer label", "would be nicer with icons", "might show a preview",
             "could be faster to reach"),
}
_WHEN = ("after upgrading to 2.3", "when the title contains an apostrophe", "on the second page of results",
         "with more than 1000 issues", "for users in UTC+13", "behind the reverse proxy", "since last Tuesday's deploy",
         "when two people edit at once", "on mobile browsers", "with a non-ASCII username")
_OPENERS = ("Steps to reproduce:", "I can reproduce this reliably.", "Reported by a customer this morning.",
            "Seen in the staging logs as well.", "This has come up twice on the mailing list.")
_STEPS = ("open the issue list", "sort by activity", "click the first issue", "attach a 2 MB PDF",
          "switch the language to German", "log out and back in", "save the query as 'mine'", "press Submit twice")
_REPLIES = ("Confirmed on current trunk; the stack trace points at the template layer.",
            "I have a patch that fixes this; it needs a test before it can go in.",
            "Could you attach the server log from around that time?",
            "Not reproducible here with a fresh tracker. Which backend do you use?",
            "Bumping this: three more reports this week.",
            "The workaround is to clear the browser cache, but we need a real fix.",
            "Moved to the next milestone; nobody has time before the release.",
            "Fixed in the branch, waiting for review.",
            "Duplicate reports point to the same root cause in the date handling.",
            "Tested the fix on staging, looks good to me.")


@dataclass(frozen=True)
class Person:
    username: str
    realname: str
    address: str
    organisation: str
    password: str


@dataclass(frozen=True)
class Message:
    author: str  # username
    body: str
    minute: int  # minutes after the tracker's epoch (2026-01-05 09:00 UTC)


@dataclass(frozen=True)
class Issue:
    title: str
    status: str
    priority: str
    keywords: tuple[str, ...]
    assignedto: str | None
    nosy: tuple[str, ...]
    messages: tuple[Message, ...]


@dataclass(frozen=True)
class World:
    seed: int
    people: tuple[Person, ...]
    issues: tuple[Issue, ...] = field(repr=False)

    def to_json(self) -> dict:
        return {"seed": self.seed, "people": [asdict(p) for p in self.people],
                "issues": [asdict(i) for i in self.issues], "keywords": list(KEYWORDS)}


def _people(rng: random.Random) -> tuple[Person, ...]:
    firsts = rng.sample(_FIRST, 14)
    out, seen = [], set()
    for f in firsts:
        last = rng.choice(_LAST)
        user = (f[0] + last).lower().replace("ř", "r").replace("á", "a")
        if user in seen:
            continue
        seen.add(user)
        out.append(Person(user, f"{f} {last}", f"{user}@tracker.example", rng.choice(_ORGS),
                          f"{f.lower()}-{rng.randint(1000, 9999)}"))
    return tuple(out)


def _coined_people(rng: random.Random, pool: Pool) -> tuple[Person, ...]:
    """A held-out tracker's people: coined real names; user name = initial + surname, lower-case ASCII."""
    out, seen = [], set()
    for name in pool.people(14):
        first, last = name.split(" ", 1)
        user = (first[0] + last).lower().replace(" ", "")
        if user in seen or not USERNAME.match(user):
            continue
        seen.add(user)
        out.append(Person(user, name, f"{user}@tracker.example", rng.choice(_ORGS),
                          f"{first.lower()}-{rng.randint(1000, 9999)}"))
    return tuple(out)


def components(seed: int) -> tuple[str, ...]:
    """The component (product) names a held-out tracker's issue titles name, coined for its world;
    ``()`` for a public seed, whose titles name none."""
    if slice_of_seed(seed) != "heldout":
        return ()
    return pool_for(seed, PURPOSE).words("adjective")[:N_COMPONENTS]


def world(seed: int, n_issues: int = N_ISSUES) -> World:
    """The tracker content of ``seed``: the same seed always gives the same content (see the module doc)."""
    rng = random.Random(f"roundup-world-{seed}")
    comps = components(seed)
    people = _coined_people(rng, pool_for(seed, PURPOSE)) if comps else _people(rng)
    names = [p.username for p in people]
    issues, titles = list[Any](), set[str]()
    minute = 0
    while len(issues) < n_issues:
        kw = rng.choice(KEYWORDS)
        prio = rng.choices(PRIORITIES, weights=(1, 2, 6, 3, 2))[0]
        sym_key = prio if prio in _SYMPTOMS else "bug"
        area = rng.choice(_AREAS[kw])
        if comps:
            area = f"{area} in {rng.choice(comps)}"
        title = f"{area} {rng.choice(_SYMPTOMS[sym_key])} {rng.choice(_WHEN)}"
        if title in titles:
            continue
        titles.add(title)
        reporter = rng.choice(names)
        status = rng.choices(STATUSES, weights=(4, 1, 4, 1, 3, 2, 1, 4))[0]
        assigned = None if status == "unread" else rng.choice(names)
        minute += rng.randint(20, 600)
        steps = rng.sample(_STEPS, 3)
        first = Message(reporter, f"{rng.choice(_OPENERS)}\n\n1. {steps[0]}\n2. {steps[1]}\n3. {steps[2]}\n\n"
                                  f"Expected: it works. Actual: {title.lower()}.", minute)
        msgs, t = [first], minute
        for _ in range(rng.choices((0, 1, 2, 3, 4), weights=(3, 4, 3, 2, 1))[0]):
            t += rng.randint(30, 4000)
            msgs.append(Message(rng.choice(names), rng.choice(_REPLIES), t))
        extra = tuple(sorted({kw, *rng.sample(KEYWORDS, rng.choice((0, 0, 1)))}))
        nosy = tuple(sorted({reporter, *([assigned] if assigned else []), *(m.author for m in msgs)}))
        issues.append(Issue(title, status, prio, extra, assigned, nosy, tuple(msgs)))
    return World(seed, people, tuple(issues))
