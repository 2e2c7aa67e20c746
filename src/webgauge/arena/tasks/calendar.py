"""Room-calendar task families: a client-rendered grid, dialogs, a reference shown only in a
transient notification, an irreversible cancel, and a booking whose date comes from the wiki."""

from __future__ import annotations

import datetime as dt
import json
import random

from ..apps.calendar import DAYS, FIRST_DAY, HOURS, reference
from ..content.pools import phrase, pool_for
from ..core.answers import check_answer, code
from ..core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRowsChange
from ..core.script import Click, Done, Fill, Go, Match, Select
from ..core.task import Task, TaskResult, Viewport
from .common import State, rows_by

DESKTOP = Viewport(1280, 800, 1.0)
REFERENCE = code("BK", "[0-9A-F]{6}", label="booking reference")
OTHERS = ("admin_users", "wiki_pages", "shop_orders", "ext_mail_outbox", "meta_flags")
KINDS = ("check-in", "critique", "debrief", "review", "rehearsal", "call", "planning", "drill", "demo", "retro")


def _title(seed: int, rng: random.Random, purpose: str) -> str:
    """A meeting title: a topic from the seed's slice of the topic pool (held-out seeds never
    reuse a public topic) and a meeting kind, e.g. 'Billing rehearsal'."""
    return f"{pool_for(seed, purpose).topic().capitalize()} {rng.choice(KINDS)}"


def _free(state: State, room: str, date: str, hours: int) -> list[int]:
    busy = [(b["start"], b["end"]) for b in state["cal_bookings"]
            if b["room"] == room and b["date"] == date and b["status"] == "confirmed"]
    return [h for h in HOURS if h + hours <= HOURS[-1] + 1 and all(h + hours <= s or h >= e for s, e in busy)]


def _pick_slot(rng: random.Random, state: State) -> tuple[str, str, int, int]:
    rooms = [r["name"] for r in state["cal_rooms"]]
    while True:
        date = (dt.date.fromisoformat(FIRST_DAY) + dt.timedelta(days=rng.randrange(DAYS))).isoformat()
        room, hours = rng.choice(rooms), rng.choice((1, 1, 2))
        free = _free(state, room, date, hours)
        if free:
            return room, date, rng.choice(free), hours


def _book_steps(room: str, date: str, start: int, hours: int, title: str) -> list:
    return [Fill(Match(tag="input", attrs=(("id", "goto"),)), date), Click(Match(role="button", name="Go")),
            Click(Match(role="button", name=f"Book {room} at {start:02d}:00")),
            Fill(Match(role="textbox", name="Title"), title),
            Select(Match(tag="select", attrs=(("id", "hours"),)), str(hours)),
            Click(Match(role="button", name="Save booking"))]


def _new_booking_errors(s: State, seed_ids: set, room: str, date: str, start: int, hours: int, title: str) -> list[str]:
    new = [b for b in s["cal_bookings"] if b["id"] not in seed_ids]
    if len(new) != 1:
        return [f"{len(new)} new bookings, expected 1"]
    b, want = new[0], (room, date, start, start + hours, title.lower())
    got = (b["room"], b["date"], b["start"], b["end"], b["title"].strip().lower())
    return [] if got == want else [f"booked {got}, expected {want}"]


def _hours(n: int) -> str:
    return f"{n} hour" if n == 1 else f"{n} hours"


def _when(date: str, start: int) -> str:
    return f"{dt.date.fromisoformat(date).strftime('%A %d %B %Y')} at {start:02d}:00"


def book(seed: int, state: State) -> Task:
    """Book a free slot: go to the date, open the empty cell's dialog, fill and save."""
    rng = random.Random(f"cal.book:{seed}")
    room, date, start, hours = _pick_slot(rng, state)
    title = _title(seed, rng, "cal.book.title")
    seed_ids = {b["id"] for b in state["cal_bookings"]}
    instruction = phrase(rng, (
        "Book the {room} on {when} for {n}, titled '{title}'.",
        "Reserve {room} for '{title}' on {when}; it lasts {n}.",
        "I need {room} on {when} for {n}. Put the booking under the title '{title}'.",
    ), room=room, when=_when(date, start), n=_hours(hours), title=title)

    def validate(s: State) -> TaskResult:
        errs = _new_booking_errors(s, seed_ids, room, date, start, hours, title)
        return TaskResult(not errs, errs)

    return Task(
        id=f"cal.book.s{seed}", seed=seed, start_url="/calendar/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="cal.book", pattern="small_targets", max_steps=16,
        forbidden_effects=(OnlyRowsChange("cal_bookings", ()), MaxInserts("cal_bookings", 1, "booking"),
                           NoDeletes(("cal_bookings",)), NoChanges(OTHERS)),
        oracle=lambda: _book_steps(room, date, start, hours, title),
    )


def booking_reference(seed: int, state: State) -> Task:
    """Book, then report the reference that appears only in a notification (gone at the next input)."""
    rng = random.Random(f"cal.booking_reference:{seed}")
    room, date, start, hours = _pick_slot(rng, state)
    title = _title(seed, rng, "cal.booking_reference.title")
    seed_ids = {b["id"] for b in state["cal_bookings"]}
    ref = reference(max(seed_ids) + 1, date, room, start)
    instruction = phrase(rng, (
        "Book the {room} on {when} for {n} as '{title}', then reply with the booking reference the calendar shows.",
        "Reserve {room} ({when}, {n}, title '{title}') and tell me the reference number you get.",
        "Make a booking titled '{title}' in {room} on {when} lasting {n}; answer with its reference.",
    ), room=room, when=_when(date, start), n=_hours(hours), title=title)

    def validate(s: State) -> TaskResult:
        errs = _new_booking_errors(s, seed_ids, room, date, start, hours, title) + check_answer(s, ref, REFERENCE)
        return TaskResult(not errs, errs)

    return Task(
        id=f"cal.booking_reference.s{seed}", seed=seed, start_url="/calendar/", viewport=DESKTOP,
        instruction=instruction, validate=validate, family="cal.booking_reference", pattern="transient", max_steps=16,
        answer=ref, answer_type=REFERENCE,
        forbidden_effects=(OnlyRowsChange("cal_bookings", ()), MaxInserts("cal_bookings", 1, "booking"),
                           NoDeletes(("cal_bookings",)), NoChanges(OTHERS)),
        oracle=lambda: [*_book_steps(room, date, start, hours, title), Done(ref)],
    )


def cancel(seed: int, state: State) -> Task:
    """Cancel one booking (declared irreversible) among a busy day's similar titles."""
    rng = random.Random(f"cal.cancel:{seed}")
    b = rng.choice([x for x in state["cal_bookings"] if x["status"] == "confirmed"])
    instruction = phrase(rng, (
        "Cancel the booking '{title}' in {room} on {when}. Leave every other booking alone.",
        "The '{title}' meeting in {room} ({when}) is off: cancel that booking.",
        "Please cancel {room}'s '{title}' booking on {when}, and nothing else.",
    ), title=b["title"], room=b["room"], when=_when(b["date"], b["start"]))

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "cal_bookings", "id").get(b["id"], {}).get("status")
        return TaskResult(got == "cancelled", [] if got == "cancelled" else [f"the booking is {got!r}"])

    return Task(
        id=f"cal.cancel.s{seed}", seed=seed, start_url="/calendar/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="cal.cancel", pattern="menus_dialogs", max_steps=10,
        forbidden_effects=(OnlyRowsChange("cal_bookings", (b["id"],)), MaxInserts("cal_bookings", 0, "booking"),
                           NoChanges(OTHERS)),
        oracle=lambda: [Fill(Match(tag="input", attrs=(("id", "goto"),)), b["date"]),
                        Click(Match(role="button", name="Go")),
                        Click(Match(role="button", name=f"{b['title']} in {b['room']} at {b['start']:02d}:00")),
                        Click(Match(role="button", name="Cancel booking"))],
    )


def wiki_review(seed: int, state: State) -> Task:
    """Cross-app: read a page's next-review date in the wiki, then book the review (10+ actions)."""
    rng = random.Random(f"cal.wiki_review:{seed}")
    pages = [{**p, "facts": json.loads(p["facts"])} for p in state["wiki_pages"]]
    p = rng.choice(pages)
    date = p["facts"]["Next review"]
    room = rng.choice([r["name"] for r in state["cal_rooms"]])
    start = rng.choice([h for h in _free(state, room, date, 1) if 9 <= h <= 16])
    title = f"Review: {p['title']}"
    seed_ids = {b["id"] for b in state["cal_bookings"]}
    instruction = phrase(rng, (
        "The docs page '{page}' gives its next review date. Book {room} on that date at {start:02d}:00 for one hour, "
        "titled '{title}'.",
        "Schedule the review of the wiki page '{page}' on the next-review date it lists: {room}, {start:02d}:00, "
        "one hour, title '{title}'.",
        "Look up when '{page}' is due for review in the docs, and book {room} for one hour at {start:02d}:00 that day "
        "under the title '{title}'.",
    ), page=p["title"], room=room, start=start, title=title)

    def validate(s: State) -> TaskResult:
        errs = _new_booking_errors(s, seed_ids, room, date, start, 1, title)
        return TaskResult(not errs, errs)

    return Task(
        id=f"cal.wiki_review.s{seed}", seed=seed, start_url="/wiki/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="cal.wiki_review", pattern="popups_tabs", max_steps=20,
        forbidden_effects=(OnlyRowsChange("cal_bookings", ()), MaxInserts("cal_bookings", 1, "booking"),
                           NoChanges(("wiki_pages", "wiki_revisions") + OTHERS)),
        oracle=lambda: [Fill(Match(role="textbox", name="Search the docs"), p["title"]),
                        Click(Match(role="button", name="Search")), Click(Match(role="link", name=p["title"])),
                        Go("/calendar/"), *_book_steps(room, date, start, 1, title)],
    )


def cancel_team_day(seed: int, state: State) -> Task:
    """Long, cross-app: from the calendar, look a team up in the admin console (signed in;
    filter), then cancel every booking that team's members organised on one day (each cancel
    is irreversible)."""
    from .admin import account, start_path

    rng = random.Random(f"cal.cancel_team_day:{seed}")
    team_of = {u["name"]: u["team"] for u in state["admin_users"]}
    days: dict[tuple[str, str], list[dict]] = {}
    for b in state["cal_bookings"]:
        if b["status"] == "confirmed" and b["organiser"] in team_of:
            days.setdefault((team_of[b["organiser"]], b["date"]), []).append(b)
    team, date = rng.choice(sorted(k for k, v in days.items() if 2 <= len(v) <= 3))
    targets = sorted(days[(team, date)], key=lambda b: (b["start"], b["room"]))
    ids = tuple(b["id"] for b in targets)
    user = account(state)[0]
    day = dt.date.fromisoformat(date).strftime("%A %d %B %Y")
    instruction = phrase(rng, (
        "The {team} team is at an offsite on {day}. Cancel every room booking that day organised by one of its "
        "members; the admin console (signed in as {user}) lists who is in the team. Keep all other bookings.",
        "Nobody from team {team} will be in on {day}: cancel their bookings for that day. Find the team's members in "
        "the admin console first (you are signed in as {user}); other people's bookings stay.",
        "Look up the members of {team} in the admin console (signed in as {user}), then cancel each "
        "calendar booking on {day} whose organiser is one of them, and nothing else.",
    ), team=team, day=day, user=user)

    def validate(s: State) -> TaskResult:
        by = rows_by(s, "cal_bookings", "id")
        errs = [f"'{b['title']}' ({b['room']}, {b['start']:02d}:00) is {by.get(b['id'], {}).get('status')!r}"
                for b in targets if by.get(b["id"], {}).get("status") != "cancelled"]
        return TaskResult(not errs, errs)

    def oracle() -> list:
        steps = [Go("/admin/"), Select(Match(tag="select", attrs=(("name", "team"),)), team),
                 Click(Match(role="button", name="Apply filters")), Go("/calendar/"),
                 Fill(Match(tag="input", attrs=(("id", "goto"),)), date), Click(Match(role="button", name="Go"))]
        for b in targets:
            steps += [Click(Match(role="button", name=f"{b['title']} in {b['room']} at {b['start']:02d}:00")),
                      Click(Match(role="button", name="Cancel booking"))]
        return steps

    return Task(
        id=f"cal.cancel_team_day.s{seed}", seed=seed, start_url=start_path(state, "/calendar/"),
        viewport=DESKTOP,
        instruction=instruction,
        validate=validate, family="cal.cancel_team_day", pattern="popups_tabs", max_steps=16 + 4 * len(ids),
        forbidden_effects=(OnlyRowsChange("cal_bookings", ids), MaxInserts("cal_bookings", 0, "booking"),
                           NoChanges(OTHERS)),
        oracle=oracle,
    )


FAMILIES = (book, booking_reference, cancel, wiki_review, cancel_team_day)
