"""City-map task families: targets that exist only in pixels (a pin halfway between two
places, the nearest place of a kind, a route through named stops), a zone resized by
dragging its handle, and a share code shown only in a transient notification."""

from __future__ import annotations

import math
import random

from ..apps.maps import KINDS, LISTS, M_PER_PX, MAP_H, MAP_W, handle_at, share_code
from ..content.pools import phrase
from ..core.answers import check_answer, code
from ..core.effects import MaxInserts, NoChanges, NoDeletes, OnlyRowsChange
from ..core.script import Click, Done, DragEnd, DragStart, Fill, Match, PointAt, Select
from ..core.task import Task, TaskResult, Viewport
from .common import State, new_rows, rows_by

DESKTOP = Viewport(1280, 800, 1.0)
TABLES = ("maps_places", "maps_pins", "maps_favs", "maps_routes", "maps_zones", "maps_shares")
OTHERS = ("media_assets", "media_briefs", "cal_bookings", "wiki_pages", "meta_flags")
MAP = Match(tag="canvas", attrs=(("aria-label", "City map"),))
SHARE_CODE = code("MP", "[0-9A-F]{6}", label="share code")
PIN_NAMES = ("Meeting point", "Pickup spot", "Picnic spot", "Food truck", "Photo stop", "Drop-off", "Market stall",
             "Rendezvous", "Bike repair", "Ice cream stand", "First aid tent", "Info desk")
ROUTE_NAMES = ("Morning deliveries", "Tuesday loop", "Courier run", "Sample drop", "Client tour", "Book returns",
               "Flyer round", "Night shift", "Weekend errands", "Bakery run")


def _places(state: State, depot: bool = False) -> list[dict]:
    return [p for p in state["maps_places"] if (p["kind"] == "depot") == depot]


def _kind(p: dict) -> str:
    return KINDS[p["kind"]][0].lower()


def _at(x: float, y: float) -> PointAt:
    return PointAt(MAP, x / MAP_W, y / MAP_H)


def _mode(name: str) -> Click:
    return Click(Match(role="button", name=name))


def _untouched(*keep: str) -> NoChanges:
    return NoChanges(tuple(t for t in TABLES if t not in keep) + OTHERS)


def drop_pin(seed: int, state: State) -> Task:
    """Drop a pin halfway between two places (a point with no label, DOM node or place)."""
    rng = random.Random(f"maps.drop_pin:{seed}")
    places = _places(state)
    while True:
        a, b = rng.sample(places, 2)
        if 140 <= math.dist((a["x"], a["y"]), (b["x"], b["y"])) <= 360:
            break
    mx, my = (a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2
    name = f"{rng.choice(PIN_NAMES)} {rng.randrange(2, 99)}"
    tol = 18  # map pixels (90 m)
    instruction = phrase(rng, (
        "On the city map, drop a pin halfway between {a} and {b} and save it as '{name}'.",
        "Put a pin named '{name}' on the map at the midpoint between {a} and {b}.",
        "We meet in the middle of {a} and {b}: mark that spot on the map with a pin called '{name}'.",
    ), a=a["name"], b=b["name"], name=name)
    seed_ids = {p["id"] for p in state["maps_pins"]}

    def validate(s: State) -> TaskResult:
        new = new_rows(s, "maps_pins", seed_ids)
        if len(new) != 1:
            return TaskResult(False, [f"{len(new)} new pins, expected 1"])
        p, errs = new[0], []
        if p["name"].strip().lower() != name.lower():
            errs.append(f"pin is named {p['name']!r}, expected {name!r}")
        off = math.dist((p["x"], p["y"]), (mx, my))
        if off > tol:
            errs.append(f"pin is {off * M_PER_PX:.0f} m from the midpoint (allowed {tol * M_PER_PX} m)")
        return TaskResult(not errs, errs)

    return Task(
        id=f"maps.drop_pin.s{seed}", seed=seed, start_url="/maps/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="maps.drop_pin", pattern="map", visual=True, max_steps=10,
        forbidden_effects=(MaxInserts("maps_pins", 1, "pin"), NoDeletes(TABLES), _untouched("maps_pins")),
        oracle=lambda: [_mode("Drop pin"), _at(mx, my), Fill(Match(role="textbox", name="Pin name"), name),
                        Click(Match(role="button", name="Save pin"))],
    )


def _nearest_pair(rng: random.Random, state: State) -> tuple[dict, dict]:
    places = _places(state)
    while True:
        landmark = rng.choice(places)
        kind = rng.choice([k for k in KINDS if k not in ("depot", landmark["kind"])])
        cands = sorted((math.dist((p["x"], p["y"]), (landmark["x"], landmark["y"])), p["id"], p)
                       for p in places if p["kind"] == kind)
        if cands[0][0] <= 0.7 * cands[1][0]:  # clearly the nearest, by eye
            return landmark, cands[0][2]


def nearest(seed: int, state: State) -> Task:
    """Save the place of a kind nearest to a landmark (a judgement of distances on the map)."""
    rng = random.Random(f"maps.nearest:{seed}")
    landmark, target = _nearest_pair(rng, state)
    lst = rng.choice(LISTS)
    note = rng.choice(("", "closest one", "check hours", "for the team", "backup option"))
    instruction = phrase(rng, (
        "Find the {kind} nearest to {landmark} on the map and save it to your '{list}' list{with_note}.",
        "Which {kind} is closest to {landmark}? Save that one to '{list}'{with_note}.",
        "Add the {kind} closest to {landmark} to the '{list}' list{with_note}.",
    ), kind=_kind(target), landmark=landmark["name"], list=lst,
        with_note=f" with the note '{note}'" if note else "")
    seed_ids = {f["id"] for f in state["maps_favs"]}

    def validate(s: State) -> TaskResult:
        new = new_rows(s, "maps_favs", seed_ids)
        if len(new) != 1:
            return TaskResult(False, [f"{len(new)} new saved places, expected 1"])
        f, errs = new[0], []
        if f["place_id"] != target["id"]:
            got = rows_by(s, "maps_places", "id").get(f["place_id"], {}).get("name")
            errs.append(f"saved {got!r}, not the nearest {_kind(target)}")
        if f["list"] != lst:
            errs.append(f"saved to {f['list']!r}, expected {lst!r}")
        if note and f["note"].strip().lower() != note:
            errs.append(f"note is {f['note']!r}, expected {note!r}")
        return TaskResult(not errs, errs)

    fill = [Fill(Match(role="textbox", name="Note"), note)] if note else []
    return Task(
        id=f"maps.nearest.s{seed}", seed=seed, start_url="/maps/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="maps.nearest", pattern="map", visual=True, max_steps=10,
        forbidden_effects=(MaxInserts("maps_favs", 1, "saved place"), NoDeletes(TABLES), _untouched("maps_favs")),
        oracle=lambda: [_at(target["x"], target["y"]), Select(Match(role="combobox", name="List"), lst), *fill,
                        Click(Match(role="button", name="Save place"))],
    )


def route(seed: int, state: State) -> Task:
    """Plan a route through eight named stops in order by clicking them on the map (11 actions)."""
    rng = random.Random(f"maps.route:{seed}")
    stops = rng.sample(_places(state), 8)
    name = f"{rng.choice(ROUTE_NAMES)} {rng.choice('ABCDEFGHJK')}{rng.randrange(1, 10)}"
    listed = ", ".join(p["name"] for p in stops[:-1]) + " and " + stops[-1]["name"]
    instruction = phrase(rng, (
        "Plan a route on the map that visits {stops}, in that order, and save it as '{name}'.",
        "Save a route called '{name}' with these stops in this order: {stops}.",
        "Our courier goes {stops} (in this order). Plan that route on the map and save it under '{name}'.",
    ), stops=listed, name=name)
    want = [p["id"] for p in stops]
    seed_ids = {r["id"] for r in state["maps_routes"]}

    def validate(s: State) -> TaskResult:
        import json

        new = new_rows(s, "maps_routes", seed_ids)
        if len(new) != 1:
            return TaskResult(False, [f"{len(new)} new routes, expected 1"])
        r, errs = new[0], []
        if r["name"].strip().lower() != name.lower():
            errs.append(f"route is named {r['name']!r}, expected {name!r}")
        got = json.loads(r["stops"])
        if got != want:
            places = rows_by(s, "maps_places", "id")
            errs.append(
                f"stops are {[places.get(i, {}).get('name') for i in got]}, expected {[p['name'] for p in stops]}")
        return TaskResult(not errs, errs)

    return Task(
        id=f"maps.route.s{seed}", seed=seed, start_url="/maps/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="maps.route", pattern="map", visual=True, max_steps=24,
        forbidden_effects=(MaxInserts("maps_routes", 1, "route"), NoDeletes(TABLES), _untouched("maps_routes")),
        oracle=lambda: [_mode("Plan route"), *[_at(p["x"], p["y"]) for p in stops],
                        Fill(Match(role="textbox", name="Route name"), name),
                        Click(Match(role="button", name="Save route"))],
    )


def _release_point(cx: float, cy: float, r: float) -> tuple[float, float]:
    for ang in (0.0, math.pi, math.pi / 2, -math.pi / 2, math.pi / 4, 3 * math.pi / 4, -math.pi / 4, -3 * math.pi / 4):
        x, y = cx + r * math.cos(ang), cy + r * math.sin(ang)
        if 6 <= x <= MAP_W - 6 and 6 <= y <= MAP_H - 6:
            return x, y
    raise ValueError("no release point on the map")  # a depot sits well inside the map, so this never happens


def zone(seed: int, state: State) -> Task:
    """Resize a delivery zone by dragging the handle on its rim until it covers one place and
    not another (both judged on the map; the page holds no distances)."""
    rng = random.Random(f"maps.zone:{seed}")
    places = {p["id"]: p for p in state["maps_places"]}
    while True:
        z = rng.choice(state["maps_zones"])
        depot = places[z["depot_id"]]
        r0 = z["radius"] / M_PER_PX
        by = sorted((math.dist((p["x"], p["y"]), (depot["x"], depot["y"])), p["id"], p) for p in _places(state))
        pairs = [(a, b) for a in by for b in by if 45 <= a[0] <= 200 and 24 <= b[0] - a[0] <= 120
                 and not a[0] + 4 <= r0 <= b[0] - 4]
        if pairs:
            (din, _, inside), (dout, _, outside) = rng.choice(pairs)
            break
    cx, cy = depot["x"], depot["y"]
    hx, hy = handle_at(cx, cy, r0)
    rx, ry = _release_point(cx, cy, (din + dout) / 2)
    instruction = phrase(rng, (
        "Resize the delivery zone around {depot} so that it covers {inside} but not {outside}, and save it.",
        "Adjust the {depot} delivery zone on the map: {inside} must be inside it and {outside} outside. Save the zone.",
        "Drag the {depot} zone's edge until the zone includes {inside} and leaves out {outside}; then save it.",
    ), depot=depot["name"], inside=inside["name"], outside=outside["name"])

    def validate(s: State) -> TaskResult:
        got = rows_by(s, "maps_zones", "id")[z["id"]]["radius"] / M_PER_PX
        errs = []
        if got < din + 4:
            errs.append(f"{inside['name']} is not inside the zone (radius {got * M_PER_PX:.0f} m)")
        if got > dout - 4:
            errs.append(f"{outside['name']} is inside the zone (radius {got * M_PER_PX:.0f} m)")
        return TaskResult(not errs, errs)

    return Task(
        id=f"maps.zone.s{seed}", seed=seed, start_url="/maps/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="maps.zone", pattern="resize", visual=True, max_steps=10,
        forbidden_effects=(OnlyRowsChange("maps_zones", (z["id"],)), NoDeletes(TABLES), _untouched("maps_zones")),
        oracle=lambda: [_mode("Edit zone"), DragStart(MAP, hx / MAP_W, hy / MAP_H),
                        DragEnd(MAP, rx / MAP_W, ry / MAP_H),
                        Click(Match(role="button", name="Save zone"))],
    )


def share_place(seed: int, state: State) -> Task:
    """Share a saved place; its share code appears only in a 3-second notification."""
    rng = random.Random(f"maps.share_place:{seed}")
    places = rows_by(state, "maps_places", "id")
    fav = rng.choice(state["maps_favs"])
    name = places[fav["place_id"]]["name"]
    code = share_code(fav["id"], 1)
    instruction = phrase(rng, (
        "Share {place} from your '{list}' list on the map and reply with the share code you get.",
        "I need the share code for {place} (in '{list}'). Share it and tell me the code.",
        "Create a share code for the saved place {place} in the '{list}' list; answer with the code.",
    ), place=name, list=fav["list"])

    def validate(s: State) -> TaskResult:
        codes = [r["code"] for r in s["maps_shares"] if r["fav_id"] == fav["id"]]
        if not codes:
            return TaskResult(False, [f"{name} in {fav['list']} was not shared"])
        errs = check_answer(s, codes[-1], SHARE_CODE)
        return TaskResult(not errs, errs)

    return Task(
        id=f"maps.share_place.s{seed}", seed=seed, start_url="/maps/", viewport=DESKTOP, instruction=instruction,
        validate=validate, family="maps.share_place", pattern="transient", max_steps=8, answer=code,
        answer_type=SHARE_CODE,
        forbidden_effects=(MaxInserts("maps_shares", 1, "share"), NoDeletes(TABLES), _untouched("maps_shares")),
        oracle=lambda: [Click(Match(role="button", name=f"Share {name} from {fav['list']}")), Done(code)],
    )


FAMILIES = (drop_pin, nearest, route, zone, share_place)
