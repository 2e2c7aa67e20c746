"""Canvas, spatial and pixel-vs-DOM task families: chart reading, floor-plan picking,
drag and drop, multi-select, and buttons whose pixels disagree with their DOM labels."""

from __future__ import annotations

import random

from ..apps.dashboard import METRICS, MONTHS, YEARS
from ..apps.floorplan import DAYS, PLAN_H, PLAN_W, booked_on_state, day_label
from ..content.pools import phrase, slice_of_seed, slice_of_value
from ..core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRowsChange
from ..core.script import Click, DragEnd, DragStart, Fill, Match, PointAt, Reveal, Select
from ..core.task import Task, TaskResult, Viewport
from .common import State, rows_by

DESKTOP = Viewport(1280, 800, 1.0)
HIDPI = Viewport(1280, 800, 2.0)
BOARD = Viewport(1280, 960, 1.0)  # the board's longest columns fit without scrolling


def series(state: State, region: str, metric: str, year: int) -> list[int]:
    """One chart's twelve monthly values, from the state."""
    rows = [r for r in state["dash_series"] if (r["region"], r["metric"], r["year"]) == (region, metric, year)]
    return [r["value"] for r in sorted(rows, key=lambda r: r["month"])]


def regions(state: State) -> list[str]:
    return list(dict.fromkeys(r["region"] for r in state["dash_series"]))


def chart_steps(region: str, metric: str, year: int) -> list:
    """Show one chart on the dashboard (its three selects)."""
    return [Select(Match(tag="select", attrs=(("id", "region"),)), region),
            Select(Match(tag="select", attrs=(("id", "metric"),)), metric),
            Select(Match(tag="select", attrs=(("id", "year"),)), str(year))]


def peak_month(seed: int, state: State) -> Task:
    """Pick a chart (region, metric, year), read its highest or lowest month from the pixels, file it."""
    rng = random.Random(f"peak_month:{seed}")
    region, metric, year = rng.choice(regions(state)), rng.choice(list(METRICS)), rng.choice(YEARS)
    kind = rng.choice(("highest", "lowest"))
    vals = series(state, region, metric, year)
    month = MONTHS[vals.index(max(vals) if kind == "highest" else min(vals))]
    want = ("peak_month" if kind == "highest" else "low_month", month, region, metric, year)

    def validate(s: State) -> TaskResult:
        reps = [(r["kind"], r["value"], r["region"], r["metric"], r["year"]) for r in s["dash_reports"]]
        ok = reps == [want]
        return TaskResult(ok, [] if ok else [f"filed reports {reps}, expected exactly one: {want}"])

    instruction = phrase(rng, (
        "On the ops dashboard, chart {metric} for {region} in {year} and report the month with the {kind} value.",
        "Which month of {year} had the {kind} {metric_l} in {region}? File it with the dashboard's report form.",
        "Use the dashboard chart to find {region}'s {kind} month for {metric_l} in {year}, then submit that month "
        "as a report.",
        "Report, from the dashboard chart, the month in which {region} saw its {kind} {metric_l} of {year}.",
    ), metric=metric, metric_l=metric.lower(), region=region, year=year, kind=kind)
    return Task(
        id=f"dash.peak_month.s{seed}", seed=seed, start_url="/dash/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="dash.peak_month", pattern="canvas", visual=True, max_steps=12,
        forbidden_effects=(MaxInserts("dash_reports", 1, "report"), NoChanges(("dash_alerts",))),
        oracle=lambda: [*chart_steps(region, metric, year),
                        Select(Match(tag="select", attrs=(("id", "kind"),)), kind),
                        Select(Match(tag="select", attrs=(("id", "month"),)), month),
                        Click(Match(role="button", name="Submit report"))],
    )


def alert_row(title: str) -> Match:
    return Match(tag="div", cls="alert-row", text=title)


def alert_action(seed: int, state: State) -> Task:
    """Press the alert button whose on-screen label is "Escalate"; its DOM text says otherwise."""
    rng = random.Random(f"alert_action:{seed}")
    alert = rng.choice(state["dash_alerts"])
    slot = next(r["slot"] for r in state["dash_slots"] if r["action"] == "escalate")

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "dash_alerts", "id")[alert["id"]]["status"]
        return TaskResult(got == "escalated", [] if got == "escalated" else [f"alert is {got}, not escalated"])

    row = alert_row(alert["title"])
    return Task(
        id=f"dash.escalate.s{seed}", seed=seed, start_url="/dash/", viewport=DESKTOP,
        instruction=phrase(rng, (
            "Escalate the alert '{title}' on the dashboard.",
            "On the ops dashboard, escalate '{title}'.",
            "The alert '{title}' needs escalating: do it from the dashboard.",
        ), title=alert["title"]),
        validate=validate, family="dash.escalate", pattern="pixels_vs_dom", visual=True, max_steps=10,
        forbidden_effects=(OnlyRowsChange("dash_alerts", (alert["id"],)), NoChanges(("dash_reports",))),
        oracle=lambda: [Fill(Match(role="textbox", name="Search alerts"), alert["title"]),
                        Click(Match(role="button", name="Apply")), Reveal(row),
                        Click(Match(role="button", nth=slot, within=row))],
    )


def slice_days(seed: int) -> list[str]:
    """The bookable dates a seed's tasks may name (from its slice of the calendar)."""
    return [d for d in DAYS if slice_of_value(d) == slice_of_seed(seed)]


def desk_point(desk: dict) -> tuple[float, float]:
    return (desk["x"] + desk["w"] / 2) / PLAN_W, (desk["y"] + desk["h"] / 2) / PLAN_H


def where_steps(floor: int, day: str) -> list:
    """Show one floor on one date on the floor plan."""
    return [Select(Match(tag="select", attrs=(("id", "floor"),)), str(floor)),
            Select(Match(tag="select", attrs=(("id", "day"),)), day)]


def book_desk(seed: int, state: State) -> Task:
    """Pick a desk on a canvas floor plan whose labels and positions exist only in pixels."""
    rng = random.Random(f"book_desk:{seed}")
    day = rng.choice(slice_days(seed))
    floor = rng.choice(sorted({d["floor"] for d in state["fp_desks"]}))
    taken = booked_on_state(state, day)
    desk = rng.choice([d for d in state["fp_desks"] if d["floor"] == floor and d["id"] not in taken])
    fx, fy = desk_point(desk)
    old = {b["id"] for b in state["fp_bookings"]}

    def validate(s: State) -> TaskResult:
        new = [(b["desk_id"], b["day"]) for b in s["fp_bookings"] if b["id"] not in old]
        ok = new == [(desk["id"], day)]
        return TaskResult(ok, [] if ok else [f"new bookings {new}, expected only desk {desk['label']} on {day}"])

    plan = Match(tag="canvas")
    return Task(
        id=f"desks.book.s{seed}", seed=seed, start_url="/desks/", viewport=HIDPI,
        instruction=phrase(rng, (
            "Book desk {label} on the floor plan for {when}.",
            "Reserve desk {label} for {when} using the desk booking plan.",
            "I want to sit at desk {label} on {when}: book it on the floor plan.",
            "On {when}, I'll be at desk {label}. Book it for me.",
        ), label=desk["label"], when=day_label(day)),
        validate=validate, family="desks.book", pattern="canvas", visual=True, max_steps=12,
        forbidden_effects=(MaxInserts("fp_bookings", 1, "booking"), NoDeletes(("fp_bookings",)),
                           NoChanges(("fp_desks",))),
        oracle=lambda: [*where_steps(floor, day), Reveal(plan, at=0.45), PointAt(plan, fx, fy),
                        Click(Match(role="button", name="Book this desk"))],
    )


def card_match(title: str) -> Match:
    return Match(tag="div", cls="kcard", text=title)


def column_drop(position: int) -> DragEnd:
    """Drop onto a column near its heading (always on screen, however long the column)."""
    return DragEnd(Match(tag="section", cls="col", nth=position - 1), 0.5, 0.04)


def drag_card(seed: int, state: State) -> Task:
    """Drag a card to another column (pointer drag only; no menu alternative)."""
    rng = random.Random(f"drag_card:{seed}")
    cols = rows_by(state, "kb_columns", "id")
    card = rng.choice([c for c in state["kb_cards"] if not c["archived"]])
    dest = rng.choice([c for c in cols.values() if c["id"] != card["column_id"]])

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "kb_cards", "id")[card["id"]]
        errs = [] if got["column_id"] == dest["id"] else [
            f"card is in {cols[got['column_id']]['name']}, not {dest['name']}"]
        if got["archived"]:
            errs.append("card was archived")
        return TaskResult(not errs, errs)

    return Task(
        id=f"board.drag.s{seed}", seed=seed, start_url="/board/", viewport=BOARD,
        instruction=phrase(rng, (
            "On the sprint board, move the card '{title}' to the '{col}' column.",
            "Drag '{title}' into '{col}' on the sprint board.",
            "The card '{title}' belongs in '{col}' now: move it there on the board.",
        ), title=card["title"], col=dest["name"]),
        validate=validate, family="board.drag", pattern="drag_spatial", max_steps=6,
        forbidden_effects=(OnlyRowsChange("kb_cards", (card["id"],)), NoChanges(("kb_columns", "files"))),
        oracle=lambda: [DragStart(card_match(card["title"])), column_drop(dest["position"])],
    )


def multi_archive(seed: int, state: State) -> Task:
    """Select two cards by clicking them, then archive both with one bulk action."""
    rng = random.Random(f"multi_archive:{seed}")
    a, b = rng.sample([c for c in state["kb_cards"] if not c["archived"]], 2)

    def validate(s: State) -> TaskResult:
        by = rows_by(s, "kb_cards", "id")
        errs = [f"card '{c['title']}' is not archived" for c in (a, b) if not by[c["id"]]["archived"]]
        return TaskResult(not errs, errs)

    return Task(
        id=f"board.multi_archive.s{seed}", seed=seed, start_url="/board/", viewport=BOARD,
        instruction=phrase(rng, (
            "Archive the cards '{a}' and '{b}' together: select both, then archive the selection.",
            "Select the cards '{a}' and '{b}' on the board and archive them in one go.",
            "Bulk-archive '{a}' and '{b}' (select both cards, then archive the selection).",
        ), a=a["title"], b=b["title"]),
        validate=validate, family="board.multi_archive", pattern="drag_spatial", max_steps=8,
        forbidden_effects=(OnlyRowsChange("kb_cards", (a["id"], b["id"])), NoChanges(("kb_columns", "files"))),
        oracle=lambda: [PointAt(card_match(a["title"])), PointAt(card_match(b["title"])),
                        Click(Match(role="button", name="Archive selected"))],
    )


FAMILIES = (peak_month, alert_action, book_desk, drag_card, multi_archive)
