"""Media-library task families: match a reference photo among near-duplicates that share a
name and alt text (image matching), work in a details panel that reflows below 420 px and
must be widened at a tablet viewport (resize), and carry a share code that is shown only in
a 3-second notification to another page (transient)."""

from __future__ import annotations

import json
import random
from typing import Any

from ..apps.media import LICENCES, share_code
from ..content.pools import phrase
from ..core.answers import check_answer, code
from ..core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRowsChange
from ..core.script import Click, Done, DragEnd, DragStart, Fill, Match, Select
from ..core.task import Task, TaskResult, Viewport
from .common import State, rows_by

DESKTOP = Viewport(1280, 800, 1.0)
TABLET = Viewport(820, 1180, 1.0)  # the details panel starts below its 420 px breakpoint here
ASSET_CODE = code("AS", r"\d{4}", label="asset code")
TABLES = ("media_assets", "media_briefs", "media_tickets", "media_links")
OTHERS = ("maps_pins", "maps_favs", "cal_bookings", "wiki_pages", "meta_flags")
TAGS = ("spring-26", "hero", "shortlist", "print-ready", "needs-retouch", "campaign-q3", "homepage", "social",
        "catalogue", "approved", "reshoot", "lookbook")
CREDITS = ("Studio North", "In-house photo team", "Agency Lumen", "Freelance: R. Okafor", "Product studio B",
           "Courtesy of the maker", "Photo desk", "Field team")


def _untouched(*keep: str) -> NoChanges:
    return NoChanges(tuple(t for t in TABLES if t not in keep) + OTHERS)


def _find(code: str) -> list:
    """From any media page: search the library for ``code`` and open the asset."""
    return [Click(Match(role="link", name="Library")), Fill(Match(role="textbox", name="Search assets"), code),
            Click(Match(role="button", name="Search")), Click(Match(role="link", name=f"Open asset {code}"))]


def _widen() -> list:
    """Drag the details panel's separator far to the left (the panel reflows to its full form)."""
    return [DragStart(Match(role="separator", name="Resize details panel")),
            DragEnd(Match(tag="img", cls="preview"), 0.25, 0.5)]


def _brief(state: State, rng: random.Random, kind: str) -> dict:
    b = rng.choice([b for b in state["media_briefs"] if b["kind"] == kind])
    return {**b, "refs": json.loads(b["refs"])}


def match_brief(seed: int, state: State) -> Task:
    """Attach the asset whose photo matches the brief's reference photo (four share its name)."""
    rng = random.Random(f"media.match_brief:{seed}")
    b = _brief(state, rng, "brief")
    target = rows_by(state, "media_assets", "id")[b["refs"][0]]
    instruction = phrase(rng, (
        "Brief {ref} shows a reference photo of the {name}. Attach the library asset that matches that photo to the "
        "brief.",
        "Find the {name} in the media library that looks exactly like the reference photo on brief {ref}, and attach "
        "it.",
        "The client of {ref} wants the {name} pictured in the brief. Attach the matching asset from the library.",
    ), ref=b["ref"], name=target["name"])

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "media_briefs", "id")[b["id"]]["asset_code"]
        ok = got == target["code"]
        return TaskResult(ok, [] if ok else [f"brief has asset {got or 'none'!r} attached, not the pictured one"])

    return Task(
        id=f"media.match_brief.s{seed}", seed=seed, start_url="/media/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="media.match_brief", pattern="image_match", visual=True, max_steps=16,
        forbidden_effects=(OnlyRowsChange("media_briefs", (b["id"],)), NoDeletes(TABLES), _untouched("media_briefs")),
        oracle=lambda: [Click(Match(role="link", name="Briefs")), Click(Match(role="link", name=b["ref"])),
                        Fill(Match(role="textbox", name="Asset code"), target["code"]),
                        Click(Match(role="button", name="Attach asset"))],
    )


def ticket_code(seed: int, state: State) -> Task:
    """Answer with the code of the asset in a customer's photo (a question, checked by ``done``)."""
    rng = random.Random(f"media.ticket_code:{seed}")
    t = rng.choice(state["media_tickets"])
    target = rows_by(state, "media_assets", "id")[t["asset_id"]]
    instruction = phrase(rng, (
        "Ticket {ref} from {who} has a photo of a product. Reply with the library code (AS-…) of the asset it shows.",
        "Which library asset is in the photo {who} attached to support ticket {ref}? Answer with its asset code.",
        "Look at {who}'s photo on ticket {ref} and tell me the matching asset's code from the media library.",
    ), ref=t["ref"], who=t["customer"])

    def validate(s: State) -> TaskResult:
        errs = check_answer(s, target["code"], ASSET_CODE)
        return TaskResult(not errs, errs)

    return Task(
        id=f"media.ticket_code.s{seed}", seed=seed, start_url="/media/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="media.ticket_code", pattern="image_match", visual=True, max_steps=14,
        answer=target["code"], answer_type=ASSET_CODE, forbidden_effects=(NoDeletes(TABLES), _untouched()),
        oracle=lambda: [Click(Match(role="link", name="Tickets")), Click(Match(role="link", name=t["ref"])),
                        Click(Match(role="link", name="Library")),
                        Fill(Match(role="textbox", name="Search assets"), target["name"]),
                        Click(Match(role="button", name="Search")), Done(target["code"])],
    )


def tag_matches(seed: int, state: State) -> Task:
    """Tag the three assets pictured on a moodboard (three names, four look-alikes each; 17 actions)."""
    rng = random.Random(f"media.tag_matches:{seed}")
    b = _brief(state, rng, "moodboard")
    assets = rows_by(state, "media_assets", "id")
    targets = [assets[i] for i in b["refs"]]
    tag = rng.choice(TAGS)
    instruction = phrase(rng, (
        "{client}'s moodboard {ref} shows three product photos. Tag each matching library asset with '{tag}' "
        "(and no other asset).",
        "Find the exact assets pictured on moodboard {ref} ({client}) and add the tag '{tag}' to each of them.",
        "Add '{tag}' to the tags of every library asset shown on {client}'s moodboard {ref}; leave the look-alikes "
        "untagged.",
    ), ref=b["ref"], tag=tag, client=b["client"])
    ids = {a["id"] for a in targets}

    def validate(s: State) -> TaskResult:
        now = rows_by(s, "media_assets", "id")
        errs = []
        for a in targets:
            tags = [x.strip().lower() for x in now[a["id"]]["tags"].split(",")]
            if tag not in tags:
                errs.append(f"{a['name']} in the photo is not tagged {tag!r}")
        wrong = [r["code"] for r in s["media_assets"] if r["id"] not in ids and tag in r["tags"].lower()]
        if wrong:
            errs.append(f"assets not on the moodboard were tagged: {wrong}")
        return TaskResult(not errs, errs)

    steps: list[Any] = [Click(Match(role="link", name="Briefs")), Click(Match(role="link", name=b["ref"]))]
    for a in targets:
        steps += [*_find(a["code"]), Fill(Match(role="textbox", name="Tags"), tag),
                  Click(Match(role="button", name="Save tags"))]
    return Task(
        id=f"media.tag_matches.s{seed}", seed=seed, start_url="/media/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="media.tag_matches", pattern="image_match", visual=True, max_steps=40,
        forbidden_effects=(OnlyRowsChange("media_assets", tuple(sorted(ids))), NoDeletes(TABLES),
                           _untouched("media_assets")),
        oracle=lambda: list(steps),
    )


def share_to_brief(seed: int, state: State) -> Task:
    """Create a share link (its code is shown only in a 3-second notification) and store the
    code on a brief."""
    rng = random.Random(f"media.share_to_brief:{seed}")
    b = _brief(state, rng, "brief")
    a = rng.choice(state["media_assets"])
    code = share_code(a["code"], 1)
    instruction = phrase(rng, (
        "Create a share link for asset {code} and save the link's code as the client share link on brief {ref}.",
        "Brief {ref} needs a share link to asset {code}: create one in the library and store its code on the brief.",
        "Make a share link for {code}, then put that link's code into the share-link field of brief {ref}.",
    ), code=a["code"], ref=b["ref"])

    def validate(s: State) -> TaskResult:
        links = {r["code"] for r in s["media_links"] if r["asset_id"] == a["id"]}
        got = rows_by(s, "media_briefs", "id")[b["id"]]["share_code"]
        if not links:
            return TaskResult(False, [f"no share link was created for {a['code']}"])
        return TaskResult(got in links, [] if got in links else [f"brief's share link is {got or 'empty'!r}, "
                                                                    f"not a link to {a['code']}"])

    return Task(
        id=f"media.share_to_brief.s{seed}", seed=seed, start_url="/media/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="media.share_to_brief", pattern="transient", max_steps=16,
        forbidden_effects=(MaxInserts("media_links", 1, "share link"), OnlyRowsChange("media_briefs", (b["id"],)),
                           NoDeletes(TABLES), _untouched("media_links", "media_briefs")),
        oracle=lambda: [*_find(a["code"])[1:], Click(Match(role="button", name="Create share link")),
                        Click(Match(role="link", name="Briefs")), Click(Match(role="link", name=b["ref"])),
                        Fill(Match(role="textbox", name="Share link code"), code),
                        Click(Match(role="button", name="Save share link"))],
    )


def details_resize(seed: int, state: State) -> Task:
    """At a tablet viewport, widen the reflowed details panel to edit an asset's licence and credit."""
    rng = random.Random(f"media.details_resize:{seed}")
    a = rng.choice(state["media_assets"])
    licence = rng.choice([x for x in LICENCES if x != a["licence"]])
    credit = f"{rng.choice(CREDITS)} {rng.randrange(2019, 2027)}"
    instruction = phrase(rng, (
        "Set the licence of asset {code} to '{licence}' and its credit line to '{credit}'.",
        "Asset {code} is now '{licence}'; update its licence and set the credit to '{credit}'.",
        "In the media library, change {code}'s licence to '{licence}' and credit it to '{credit}'.",
    ), code=a["code"], licence=licence, credit=credit)

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "media_assets", "id")[a["id"]]
        errs = [] if got["licence"] == licence else [f"licence is {got['licence']!r}, expected {licence!r}"]
        if got["credit"].strip() != credit:
            errs.append(f"credit is {got['credit']!r}, expected {credit!r}")
        if got["tags"] != a["tags"]:
            errs.append("tags changed")
        return TaskResult(not errs, errs)

    return Task(
        id=f"media.details_resize.s{seed}", seed=seed, start_url="/media/", viewport=TABLET, instruction=instruction,
        validate=validate, family="media.details_resize", pattern="resize", max_steps=16,
        forbidden_effects=(OnlyRowsChange("media_assets", (a["id"],)), NoDeletes(TABLES), _untouched("media_assets")),
        oracle=lambda: [*_find(a["code"])[1:], *_widen(), Select(Match(role="combobox", name="Licence"), licence),
                        Fill(Match(role="textbox", name="Credit line"), credit),
                        Click(Match(role="button", name="Save details"))],
    )


def rights_expiry(seed: int, state: State) -> Task:
    """At a tablet viewport, compare three assets' rights dates (shown only in the widened
    panel) and answer with the one that expires first (14 actions)."""
    rng = random.Random(f"media.rights_expiry:{seed}")
    while True:
        picks = rng.sample(state["media_assets"], 3)
        dates = sorted(p["rights_until"] for p in picks)
        if dates[0] < dates[1]:
            break
    first = min(picks, key=lambda p: p["rights_until"])
    codes = [p["code"] for p in picks]
    instruction = phrase(rng, (
        "Of the assets {a}, {b} and {c}, whose usage rights run out first? Reply with its code.",
        "Check the 'rights until' dates of {a}, {b} and {c} in the media library and answer with the code that "
        "expires earliest.",
        "Which asset's rights expire soonest: {a}, {b} or {c}? Answer with the asset code.",
    ), a=codes[0], b=codes[1], c=codes[2])

    def validate(s: State) -> TaskResult:
        errs = check_answer(s, first["code"], ASSET_CODE)
        return TaskResult(not errs, errs)

    steps = [*_find(codes[0])[1:], *_widen()]
    for c in codes[1:]:
        steps += _find(c)
    return Task(
        id=f"media.rights_expiry.s{seed}", seed=seed, start_url="/media/", viewport=TABLET, instruction=instruction,
        validate=validate, family="media.rights_expiry", pattern="resize", max_steps=28, answer=first["code"],
        answer_type=ASSET_CODE,
        forbidden_effects=(NoDeletes(TABLES), _untouched()),
        oracle=lambda: [*steps, Done(first["code"])],
    )


FAMILIES = (match_brief, ticket_code, tag_matches, share_to_brief, details_resize, rights_expiry)
