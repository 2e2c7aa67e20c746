"""Long operations families on the account, dashboard, floor-plan and kanban apps: each
combines skills (filter a paginated list, read pixels, act on another app, confirm
irreversible dialogs, report an answer) and its scripted solution takes ten or more actions.

- ``desks.team_visit``: find the worst open alert on the dashboard, read its owning team, then
  book adjacent desks for that team on a canvas floor plan (cross-app, pixels only);
- ``board.triage``: drag every card with one label to a column, then bulk-archive Done;
- ``account.rotate_keys``: rotate every active API key older than a cutoff (a confirm dialog
  each) and report the new keys' prefixes (state change plus answer);
- ``dash.ack_team``: filter the paginated alerts to one team and severity, then acknowledge each
  open one with buttons whose on-screen labels disagree with their DOM labels.
"""

from __future__ import annotations

import datetime as dt
import random

from ..apps.account import key_prefix, list_keys_state
from ..apps.floorplan import ROWS, booked_on_state, day_label
from ..content.pools import phrase, slice_of_seed, slice_of_value
from ..core.answers import check_answer, code
from ..core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRowsChange
from ..core.script import Click, ClickInRow, Done, DragStart, Fill, Go, Match, PointAt, Select
from ..core.task import Task, TaskResult
from .common import State, rows_by
from .visual import BOARD, DESKTOP, HIDPI, card_match, column_drop, desk_point, slice_days, where_steps

SEED_DATE = dt.date(2026, 3, 2)  # the seed clock's date


def _runs(state: State, floor: int, day: str, n: int) -> list[list[dict]]:
    """Every run of ``n`` free desks next to each other in one row (left to right)."""
    taken = booked_on_state(state, day)
    out = []
    for row in range(ROWS):
        desks = sorted((d for d in state["fp_desks"] if d["floor"] == floor and d["row"] == row),
                       key=lambda d: d["col"])
        for i in range(len(desks) - n + 1):
            run = desks[i:i + n]
            if all(d["id"] not in taken for d in run):
                out.append(run)
    return out


def team_visit(seed: int, state: State) -> Task:
    """Read the worst open alert's team on the dashboard, then book adjacent desks for it."""
    rng = random.Random(f"team_visit:{seed}")
    sev = rng.choice(("critical", "high"))
    alert = max((a for a in state["dash_alerts"] if a["severity"] == sev and a["status"] == "open"),
                key=lambda a: a["impact"])
    team, n = alert["team"], rng.choice((2, 3))
    options = [(f, d) for d in slice_days(seed) for f in sorted({x["floor"] for x in state["fp_desks"]})
               if _runs(state, f, d, n)]
    floor, day = rng.choice(options)
    run = _runs(state, floor, day, n)[0]
    desks = rows_by(state, "fp_desks", "id")
    old = {b["id"] for b in state["fp_bookings"]}

    def validate(s: State) -> TaskResult:
        new = [b for b in s["fp_bookings"] if b["id"] not in old]
        errs = [] if len(new) == n else [f"{len(new)} new desk bookings, expected {n}"]
        got = [desks.get(b["desk_id"]) for b in new]
        if any(b["day"] != day for b in new):
            errs.append(f"bookings on {sorted({b['day'] for b in new})}, expected only {day}")
        if any((b["user"] or "").strip().casefold() != team.casefold() for b in new):
            errs.append(f"bookings for {sorted({b['user'] for b in new})}, expected {team!r}")
        if any(d is None for d in got):
            errs.append("a new booking names a desk that does not exist")
        desks_got = [d for d in got if d is not None]
        if desks_got and not errs:
            cols = sorted(d["col"] for d in desks_got)
            one_row = {(d["floor"], d["row"]) for d in desks_got} == {(floor, desks_got[0]["row"])}
            if not one_row or cols != list(range(cols[0], cols[0] + n)):
                labels = [d["label"] for d in desks_got]
                errs.append(f"desks {labels} are not {n} neighbours in one row on floor {floor}")
        return TaskResult(not errs, errs)

    instruction = phrase(rng, (
        "On the ops dashboard, find the open {sev} alert with the highest impact. The team that owns it visits the "
        "office on {when}: book {n} desks next to each other in one row on floor {floor}, each booked for that team's "
        "name.",
        "The team owning the most impactful open {sev} alert (see the ops dashboard) comes in on {when}. Reserve {n} "
        "neighbouring desks in a single row on floor {floor} for them, booked under the team name.",
        "Check the dashboard for the open {sev} alert affecting the most users and note its team. Then book {n} "
        "adjacent desks (same row) on floor {floor} for {when}, with the team's name as 'Booked for'.",
    ), sev=sev, when=day_label(day), n=n, floor=floor)
    plan = Match(tag="canvas")

    def oracle() -> list:
        steps = [Select(Match(tag="select", attrs=(("id", "severity"),)), sev),
                 Select(Match(tag="select", attrs=(("id", "status"),)), "open"),
                 Select(Match(tag="select", attrs=(("id", "sort"),)), "impact"),
                 Click(Match(role="button", name="Apply")), Go("/desks/"), *where_steps(floor, day)]
        for d in run:
            steps += [PointAt(plan, *desk_point(d)), Fill(Match(role="textbox", name="Booked for"), team),
                      Click(Match(role="button", name="Book this desk"))]
        return steps

    return Task(
        id=f"desks.team_visit.s{seed}", seed=seed, start_url="/dash/", viewport=HIDPI, instruction=instruction,
        validate=validate, family="desks.team_visit", pattern="canvas", visual=True, max_steps=30,
        forbidden_effects=(MaxInserts("fp_bookings", n, "booking"), NoDeletes(("fp_bookings",)),
                           NoChanges(("fp_desks", "dash_alerts", "dash_reports"))),
        oracle=oracle,
    )


def triage(seed: int, state: State) -> Task:
    """Drag every card with one label to a column, then select and archive everything in Done."""
    rng = random.Random(f"triage:{seed}")
    cols = rows_by(state, "kb_columns", "id")
    done = next(c for c in cols.values() if c["name"] == "Done")
    cards = sorted((c for c in state["kb_cards"] if not c["archived"]), key=lambda c: (c["position"], c["id"]))
    options = []
    for label in sorted({c["label"] for c in cards}):
        for dest in cols.values():
            if dest["id"] == done["id"]:
                continue
            move = [c for c in cards if c["label"] == label and c["column_id"] != dest["id"]]
            arch = [c for c in cards if c["label"] != label and c["column_id"] == done["id"]]
            if 2 <= len(move) <= 5 and len(arch) >= 3 and 2 * len(move) + len(arch) >= 10:
                options.append((label, dest, move, arch))
    label, dest, move, arch = rng.choice(options)
    keep = rng.choice(arch)  # one Done card the team still needs on the board
    arch = [c for c in arch if c["id"] != keep["id"]]
    label_ids = {c["id"] for c in cards if c["label"] == label}

    def validate(s: State) -> TaskResult:
        by = rows_by(s, "kb_cards", "id")
        errs = [f"'{by[i]['title']}' is in {cols[by[i]['column_id']]['name']}"
                + (" (archived)" if by[i]["archived"] else "") for i in sorted(label_ids)
                if by[i]["column_id"] != dest["id"] or by[i]["archived"]]
        errs += [f"'{c['title']}' (Done) is not archived" for c in arch if not by[c["id"]]["archived"]]
        if by[keep["id"]]["archived"] or by[keep["id"]]["column_id"] != done["id"]:
            errs.append(f"'{keep['title']}' should have stayed in Done")
        return TaskResult(not errs, errs)

    instruction = phrase(rng, (
        "Triage the sprint board: move every card labelled '{label}' to '{col}', then archive all cards left in Done "
        "except '{keep}'.",
        "On the board, first bring all '{label}' cards into the '{col}' column, then clear the Done column by "
        "archiving its cards; keep '{keep}' there, though.",
        "Sprint clean-up: every '{label}' card goes to '{col}'; afterwards, archive whatever remains in 'Done' apart "
        "from '{keep}'.",
    ), label=label, col=dest["name"], keep=keep["title"])
    return Task(
        id=f"board.triage.s{seed}", seed=seed, start_url="/board/", viewport=BOARD, instruction=instruction,
        validate=validate, family="board.triage", pattern="drag_spatial", max_steps=2 * len(move) + len(arch) + 12,
        forbidden_effects=(OnlyRowsChange("kb_cards", tuple(sorted(label_ids | {c["id"] for c in arch}))),
                           NoChanges(("kb_columns", "files"))),
        oracle=lambda: [*[s for c in move for s in (DragStart(card_match(c["title"])), column_drop(dest["position"]))],
                        *[PointAt(card_match(c["title"])) for c in arch],
                        Click(Match(role="button", name="Archive selected"))],
    )


KEY_PREFIXES = code("wg", "[0-9a-f]{6}", label="key prefix", sep="_", many=True)


def rotate_keys(seed: int, state: State) -> Task:
    """Rotate every active API key created before a cutoff (a confirm dialog each); report the new prefixes."""
    rng = random.Random(f"rotate_keys:{seed}")
    active = sorted((k for k in state["acct_api_keys"] if not k["revoked_at"]),
                    key=lambda k: (k["created_at"], k["id"]))
    by_days = rng.random() < 0.5  # the cutoff as "older than N days" or as a date
    sl = slice_of_seed(seed)

    def cutoffs(k: int) -> list[dt.date]:
        """Dates that keep exactly the ``k`` oldest active keys, shown from the seed's slice of values."""
        lo, hi = (dt.date.fromisoformat(active[i]["created_at"]) for i in (k - 1, k))
        days = [lo + dt.timedelta(days=i) for i in range(1, (hi - lo).days + 1)]
        return [d for d in days if slice_of_value((SEED_DATE - d).days if by_days else d.isoformat()) == sl]

    options = [(k, d) for k in (4, 5, 6) for d in cutoffs(k)]
    if not options:  # no date of the slice in any gap: the next key's own creation date
        options = [(k, dt.date.fromisoformat(active[k]["created_at"])) for k in (4, 5, 6)
                   if active[k]["created_at"] > active[k - 1]["created_at"]]
    k, cut = rng.choice(options)
    cutoff = cut.isoformat()
    targets = active[:k]
    days = (SEED_DATE - cut).days
    shown = list_keys_state(state, before=cutoff)  # the filtered list, in the page's order
    order = [r for r in shown if not r["revoked_at"]]
    first_new = max(x["id"] for x in state["acct_api_keys"]) + 1
    answer = ", ".join(key_prefix(first_new + i, r["name"]) for i, r in enumerate(order))
    seed_ids = {x["id"] for x in state["acct_api_keys"]}
    target_ids = {t["id"] for t in targets}

    def validate(s: State) -> TaskResult:
        by = rows_by(s, "acct_api_keys", "id")
        errs = [f"key {t['name']} is still active" for t in targets if not by[t["id"]]["revoked_at"]]
        new = [r for r in s["acct_api_keys"] if r["id"] not in seed_ids]
        if sorted(r["name"] for r in new) != sorted(t["name"] for t in targets) or any(r["revoked_at"] for r in new):
            errs.append(f"new active keys {sorted(r['name'] for r in new)}, expected one for each of "
                        f"{sorted(t['name'] for t in targets)}")
        want = sorted(r["prefix"] for r in new)
        errs += check_answer(s, want, KEY_PREFIXES) if new else ["no new key, so no prefix to report"]
        return TaskResult(not errs, errs)

    instruction = phrase(rng, (
        "Security policy: any active API key older than {days} days must be rotated. Rotate them all and tell me the "
        "prefixes of the replacement keys.",
        "In account settings, rotate each active key that was created more than {days} days ago; answer with the new "
        "key prefixes, comma-separated.",
    ) if by_days else (
        "Rotate every active API key created before {date}, then reply with the new keys' prefixes.",
        "Rotate the active API keys created before {date} (every one of them) and report the prefixes of the new keys.",
        "Keys issued before {date} must go: rotate each active one and answer with the prefixes of their replacements.",
    ), date=cut.strftime("%d %B %Y"), days=days)

    def oracle() -> list:
        steps = [Fill(Match(tag="input", attrs=(("id", "before"),)), cutoff), Click(Match(role="button", name="Apply"))]
        for r in order:
            steps += [ClickInRow(r["name"], "Rotate"), Click(Match(role="button", name="Rotate key"))]
        return [*steps, Done(answer)]

    if {r["id"] for r in order} != target_ids:
        raise RuntimeError(f"{seed}: the filtered key list does not hold exactly the keys to rotate")
    return Task(
        id=f"account.rotate_keys.s{seed}", seed=seed, start_url="/account/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="account.rotate_keys", pattern="menus_dialogs", max_steps=2 * k + 12, answer=answer,
        answer_type=KEY_PREFIXES,
        forbidden_effects=(OnlyRowsChange("acct_api_keys", tuple(sorted(target_ids))),
                           MaxInserts("acct_api_keys", k, "key"), NoChanges(("acct_sessions", "acct_profile"))),
        oracle=oracle,
    )


def ack_team(seed: int, state: State) -> Task:
    """Acknowledge every open alert of one team and severity; the buttons' DOM labels are stale."""
    rng = random.Random(f"ack_team:{seed}")
    groups: dict[tuple[str, str], list[dict]] = {}
    for a in state["dash_alerts"]:
        if a["status"] == "open":
            groups.setdefault((a["team"], a["severity"]), []).append(a)
    options = sorted(k for k, v in groups.items() if 6 <= len(v) <= 10)
    team, sev = rng.choice(options)
    targets = groups[(team, sev)]
    slot = next(r["slot"] for r in state["dash_slots"] if r["action"] == "acknowledge")
    ids = tuple(a["id"] for a in targets)

    def validate(s: State) -> TaskResult:
        by = rows_by(s, "dash_alerts", "id")
        errs = [f"'{a['title']}' is {by[a['id']]['status']}" for a in targets
                if by[a["id"]]["status"] != "acknowledged"]
        return TaskResult(not errs, errs)

    instruction = phrase(rng, (
        "Acknowledge every open {sev} alert owned by the {team} on the ops dashboard, and no other alert.",
        "The {team} has seen its open {sev} alerts: acknowledge all of them (only those) on the dashboard.",
        "On the dashboard, mark each open {sev}-severity alert of the {team} as acknowledged; leave the rest alone.",
    ), sev=sev, team=team)

    def oracle() -> list:
        steps = [Select(Match(tag="select", attrs=(("id", "team"),)), team),
                 Select(Match(tag="select", attrs=(("id", "severity"),)), sev),
                 Select(Match(tag="select", attrs=(("id", "status"),)), "open"),
                 Click(Match(role="button", name="Apply"))]
        for a in targets:
            row = Match(tag="div", cls="alert-row", text=a["title"])
            steps.append(Click(Match(role="button", nth=slot, within=row)))
        return steps

    return Task(
        id=f"dash.ack_team.s{seed}", seed=seed, start_url="/dash/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="dash.ack_team", pattern="pixels_vs_dom", visual=True, max_steps=len(targets) + 14,
        forbidden_effects=(OnlyRowsChange("dash_alerts", ids), NoChanges(("dash_reports",))),
        oracle=oracle,
    )


FAMILIES = (team_visit, triage, rotate_keys, ack_team)
