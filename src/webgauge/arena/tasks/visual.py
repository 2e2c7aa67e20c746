"""Canvas, spatial and pixel-vs-DOM task families: chart reading, floor-plan picking,
drag and drop, multi-select, and buttons whose pixels disagree with their DOM labels."""

from __future__ import annotations

import random

from ..core.effects import MaxInserts, NoChanges, OnlyRowsChange
from ..core.script import Click, DragEnd, DragStart, Match, PointAt, Reveal, Select
from ..apps.dashboard import MONTHS
from ..apps.floorplan import PLAN_H, PLAN_W
from ..core.task import Task, TaskResult, Viewport
from ..core.pools import phrase, pool_for
from .common import State, rows_by

DESKTOP = Viewport(1280, 800, 1.0)
HIDPI = Viewport(1280, 800, 2.0)


def peak_month(seed: int, state: State) -> Task:
    """Read a bar chart drawn on a canvas (the values exist only in pixels) and file the answer."""
    rev = state["dash_revenue"]
    peak = MONTHS[max(rev, key=lambda r: r["amount"])["month"] - 1]

    def validate(s: State) -> TaskResult:
        reps = [r["value"] for r in s["dash_reports"] if r["kind"] == "peak_month"]
        ok = reps == [peak]
        return TaskResult(ok, [] if ok else [f"filed reports {reps}, expected exactly one with the peak month"])

    return Task(
        id=f"dash.peak_month.s{seed}", seed=seed, start_url="/dash/", viewport=DESKTOP,
        instruction=("Look at the 'Revenue 2025' chart and report the month with the highest revenue "
                     "using the 'Report peak month' form."),
        validate=validate, family="dash.peak_month", pattern="canvas", visual=True, max_steps=6,
        forbidden_effects=(MaxInserts("dash_reports", 1, "report"), NoChanges(("dash_alerts",))),
        oracle=lambda: [Select(Match(role="combobox", name="Month with the highest revenue"), peak),
                        Click(Match(role="button", name="Submit report"))],
    )


def alert_action(seed: int, state: State) -> Task:
    """Press the alert button whose on-screen label is "Escalate"; its DOM text says otherwise."""
    rng = random.Random(f"alert_action:{seed}")
    alert = rng.choice(state["dash_alerts"])
    slot = next(r["slot"] for r in state["dash_slots"] if r["action"] == "escalate")

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "dash_alerts", "id")[alert["id"]]["status"]
        return TaskResult(got == "escalated", [] if got == "escalated" else [f"alert is {got}, not escalated"])

    row = Match(tag="div", cls="alert-row", text=alert["title"])
    return Task(
        id=f"dash.escalate.s{seed}", seed=seed, start_url="/dash/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Escalate the alert '{title}' on the dashboard.",
            "On the ops dashboard, escalate '{title}'.",
            "The alert '{title}' needs escalating: do it from the dashboard.",
        ), title=alert["title"]),
        validate=validate, family="dash.escalate", pattern="pixels_vs_dom", visual=True, max_steps=6,
        forbidden_effects=(OnlyRowsChange("dash_alerts", (alert["id"],)), NoChanges(("dash_reports",))),
        oracle=lambda: [Reveal(row), Click(Match(role="button", nth=slot, within=row))],
    )


def book_desk(seed: int, state: State) -> Task:
    """Pick a desk on a canvas floor plan whose labels and positions exist only in pixels."""
    rng = random.Random(f"book_desk:{seed}")
    desk = rng.choice([d for d in state["fp_desks"] if not d["booked"]])
    fx, fy = (desk["x"] + desk["w"] / 2) / PLAN_W, (desk["y"] + desk["h"] / 2) / PLAN_H
    old = {b["id"] for b in state["fp_bookings"]}

    def validate(s: State) -> TaskResult:
        new = [b["desk_id"] for b in s["fp_bookings"] if b["id"] not in old]
        ok = new == [desk["id"]]
        return TaskResult(ok, [] if ok else [f"booked desks {new}, expected only {desk['label']}"])

    plan = Match(tag="canvas")
    return Task(
        id=f"desks.book.s{seed}", seed=seed, start_url="/desks/", viewport=HIDPI,
        instruction=phrase(rng, (
            "Book desk {label} on the floor plan for tomorrow.",
            "Reserve desk {label} for tomorrow using the floor plan.",
            "I want to sit at desk {label} tomorrow: book it on the floor plan.",
        ), label=desk["label"]),
        validate=validate, family="desks.book", pattern="canvas", visual=True, max_steps=8,
        forbidden_effects=(MaxInserts("fp_bookings", 1, "booking"), OnlyRowsChange("fp_desks", (desk["id"],))),
        oracle=lambda: [Reveal(plan, at=0.45), PointAt(plan, fx, fy), Click(Match(role="button", name="Book this desk"))],
    )


def drag_card(seed: int, state: State) -> Task:
    """Drag a card to another column (pointer drag only; no menu alternative)."""
    rng = random.Random(f"drag_card:{seed}")
    cols = rows_by(state, "kb_columns", "id")
    card = rng.choice(state["kb_cards"])
    dest = rng.choice([c for c in cols.values() if c["id"] != card["column_id"]])

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "kb_cards", "id")[card["id"]]
        errs = [] if got["column_id"] == dest["id"] else [f"card is in {cols[got['column_id']]['name']}, not {dest['name']}"]
        if got["archived"]:
            errs.append("card was archived")
        return TaskResult(not errs, errs)

    src = Match(tag="div", cls="kcard", text=card["title"])
    col = Match(tag="section", cls="col", nth=dest["position"] - 1)
    return Task(
        id=f"board.drag.s{seed}", seed=seed, start_url="/board/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "On the sprint board, move the card '{title}' to the '{col}' column.",
            "Drag '{title}' into '{col}' on the sprint board.",
            "The card '{title}' belongs in '{col}' now: move it there on the board.",
        ), title=card["title"], col=dest["name"]),
        validate=validate, family="board.drag", pattern="drag_spatial", max_steps=6,
        forbidden_effects=(OnlyRowsChange("kb_cards", (card["id"],)), NoChanges(("kb_columns", "files"))),
        oracle=lambda: [DragStart(src), DragEnd(col, 0.5, 0.85)],
    )


def multi_archive(seed: int, state: State) -> Task:
    """Select two cards by clicking them, then archive both with one bulk action."""
    rng = random.Random(f"multi_archive:{seed}")
    a, b = rng.sample([c for c in state["kb_cards"]], 2)

    def validate(s: State) -> TaskResult:
        by = rows_by(s, "kb_cards", "id")
        errs = [f"card '{c['title']}' is not archived" for c in (a, b) if not by[c["id"]]["archived"]]
        return TaskResult(not errs, errs)

    return Task(
        id=f"board.multi_archive.s{seed}", seed=seed, start_url="/board/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Archive the cards '{a}' and '{b}' together: select both, then archive the selection.",
            "Select the cards '{a}' and '{b}' on the board and archive them in one go.",
            "Bulk-archive '{a}' and '{b}' (select both cards, then archive the selection).",
        ), a=a["title"], b=b["title"]),
        validate=validate, family="board.multi_archive", pattern="drag_spatial", max_steps=8,
        forbidden_effects=(OnlyRowsChange("kb_cards", (a["id"], b["id"])), NoChanges(("kb_columns", "files"))),
        oracle=lambda: [PointAt(Match(tag="div", cls="kcard", text=a["title"])),
                        PointAt(Match(tag="div", cls="kcard", text=b["title"])),
                        Click(Match(role="button", name="Archive selected (2)"))],
    )


FAMILIES = (peak_month, alert_action, book_desk, drag_card, multi_archive)
