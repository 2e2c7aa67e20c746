"""Mail and account task families: menus, dense small targets, loading states, similar names."""

from __future__ import annotations

import random

from ..content.pools import phrase, pool_for
from ..core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRecipients, OnlyRowsChange
from ..core.script import Click, ClickInRow, Fill, Match, Wait
from ..core.task import Task, TaskResult, Viewport
from .common import State, rows_by

DESKTOP = Viewport(1280, 800, 1.0)
LAPTOP = Viewport(1024, 640, 1.0)


def _search(text: str) -> list:
    return [Fill(Match(role="textbox", name="Search mail"), text), Click(Match(role="button", name="Search"))]


def forward_mail(seed: int, state: State) -> Task:
    """Forward a message (found by search among hundreds) through a "More" popover menu to exactly one person."""
    rng = random.Random(f"forward_mail:{seed}")
    # a subject no other subject contains (a search for it finds one message): the subjects joined
    # with a character none holds, where two containing subjects would give two disjoint matches
    subjects = "\0".join(r["subject"] for r in state["mail_messages"])
    inbox = [r for r in state["mail_messages"] if r["folder"] == "inbox" and r["sender"].endswith("@example.test")
             and "\0" not in r["subject"] and subjects.count(r["subject"]) == 1]
    m = rng.choice(inbox)
    contacts = [c for c in state["mail_contacts"] if c["email"] != m["sender"]]
    to = rng.choice(contacts)

    def validate(s: State) -> TaskResult:
        sent = [r for r in s["ext_mail_outbox"] if r["to_addr"].lower() == to["email"]]
        errs = []
        if len(sent) != 1:
            errs.append(f"{len(sent)} messages delivered to {to['email']}, expected 1")
        elif sent[0]["subject"] != f"Fwd: {m['subject']}":
            errs.append(f"subject {sent[0]['subject']!r}, expected 'Fwd: {m['subject']}'")
        elif m["body"].splitlines()[0] not in sent[0]["body"]:
            errs.append("the forwarded message does not contain the original text")
        return TaskResult(not errs, errs)

    return Task(
        id=f"mail.forward.s{seed}", seed=seed, start_url="/mail/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Forward the message '{subject}' from {sender} to {to} <{email}>.",
            "Send {to} <{email}> a forward of {sender}'s message '{subject}'.",
            "{to} ({email}) needs the mail '{subject}' that {sender} sent: forward it to them.",
        ), subject=m["subject"], sender=m["sender_name"], to=to["name"], email=to["email"]),
        validate=validate, family="mail.forward", pattern="menus_dialogs", max_steps=12,
        forbidden_effects=(OnlyRecipients((to["email"],)), MaxInserts("ext_mail_outbox", 1, "message"),
                           OnlyRowsChange("mail_messages", ())),
        oracle=lambda: [*_search(m["subject"]), Click(Match(role="link", name=m["subject"])),
                        Click(Match(role="button", name="More ▾")), Click(Match(role="menuitem", name="Forward")),
                        Fill(Match(role="textbox", name="To"), to["email"]), Click(Match(role="button", name="Send"))],
    )


def archive_sender(seed: int, state: State) -> Task:
    """Archive every inbox message from one sender with 14 px icon buttons in a dense, searchable list."""
    rng = random.Random(f"archive_sender:{seed}")
    counts: dict[str, list[dict]] = {}
    for r in state["mail_messages"]:
        if r["folder"] == "inbox" and r["sender"].endswith("@example.test"):
            counts.setdefault(r["sender"], []).append(r)
    email = rng.choice(sorted(e for e, v in counts.items() if 2 <= len(v) <= 5)
                       or [min(sorted(counts), key=lambda e: len(counts[e]))])
    ids = tuple(r["id"] for r in counts[email])
    name = counts[email][0]["sender_name"]

    def validate(s: State) -> TaskResult:
        by = rows_by(s, "mail_messages", "id")
        errs = [f"message {i} is in {by[i]['folder']}, not archive" for i in ids
                if by.get(i, {}).get("folder") != "archive"]
        return TaskResult(not errs, errs)

    return Task(
        id=f"mail.archive_sender.s{seed}", seed=seed, start_url="/mail/", viewport=LAPTOP,
        instruction=phrase(rng, (
            "Archive every inbox message from {name} <{email}>, and nothing else.",
            "Move all mail from {name} <{email}> to the archive; leave every other message where it is.",
            "Clean up the inbox: archive {name}'s messages ({email}) and only those.",
        ), name=name, email=email),
        validate=validate, family="mail.archive_sender", pattern="small_targets", max_steps=len(ids) + 8,
        forbidden_effects=(OnlyRowsChange("mail_messages", ids), NoChanges(("ext_mail_outbox",)),
                           NoDeletes(("mail_messages",))),
        oracle=lambda: [*_search(email), *[ClickInRow(name, "Archive") for _ in ids]],
    )


def rename(seed: int, state: State) -> Task:
    """Save a profile field behind a disabled-until-changed button with a loading state."""
    rng = random.Random(f"rename:{seed}")
    new = pool_for(seed, "rename").person()

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "acct_profile", "key")["display_name"]["value"]
        return TaskResult(got == new, [] if got == new else [f"display name is {got!r}, expected {new!r}"])

    return Task(
        id=f"account.rename.s{seed}", seed=seed, start_url="/account/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Change your display name to '{new}' and save it.",
            "In your account settings, set the display name to '{new}'.",
            "Your profile should show the name '{new}'. Update it and save.",
            "I now go by '{new}': update the display name on my account.",
        ), new=new),
        validate=validate, family="account.rename", pattern="states", max_steps=8,
        forbidden_effects=(OnlyRowsChange("acct_profile", ("display_name",)),
                           NoChanges(("acct_api_keys", "acct_sessions", "acct_notifications"))),
        oracle=lambda: [Fill(Match(role="textbox", name="Display name"), new),
                        Click(Match(role="button", name="Save changes")), Wait(900)],
    )


def revoke_key(seed: int, state: State) -> Task:
    """Revoke one API key among dozens with near-identical names (search, then a confirm dialog)."""
    rng = random.Random(f"revoke_key:{seed}")
    keys = [k for k in state["acct_api_keys"] if not k["revoked_at"]]
    names = {k["name"] for k in state["acct_api_keys"]}
    similar = [k for k in keys
               if any(n != k["name"] and (n.startswith(k["name"]) or k["name"].startswith(n)) for n in names)]
    k = rng.choice(similar or keys)
    query = k["name"].split("-")[0]  # what a user types: the topic, which also finds the near-twin

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "acct_api_keys", "id")[k["id"]]
        return TaskResult(bool(got["revoked_at"]), [] if got["revoked_at"] else [f"key {k['name']} is still active"])

    return Task(
        id=f"account.revoke_key.s{seed}", seed=seed, start_url="/account/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Revoke the API key named '{name}'. Every other key must stay active.",
            "The API key '{name}' leaked: revoke it, and only it.",
            "In account settings, revoke the key called '{name}' (keep the other keys active).",
            "Find the API key '{name}' (created {created}) and revoke it; leave every other key alone.",
        ), name=k["name"], created=k["created_at"]),
        validate=validate, family="account.revoke_key", pattern="similar_options", max_steps=10,
        forbidden_effects=(OnlyRowsChange("acct_api_keys", (k["id"],)), MaxInserts("acct_api_keys", 0, "key"),
                           NoChanges(("acct_sessions",))),
        oracle=lambda: [Fill(Match(role="textbox", name="Search keys"), query),
                        Click(Match(role="button", name="Apply")),
                        ClickInRow(k["name"], "Revoke"), Click(Match(role="button", name="Revoke key"))],
    )


FAMILIES = (forward_mail, archive_sender, rename, revoke_key)
