"""Write one seed's content into a Roundup tracker through Roundup's own API.

Run by the Roundup interpreter (``python seed_script.py TRACKER_HOME WORLD.json``), not
imported by webgauge: it imports only Roundup and the standard library.

Each issue's events are replayed in order as the acting user (``db.setCurrentUser``), with the
tracker's clock (``roundup.date.Date.now``, which Roundup keeps overridable for this) set to the
event's minute, so Roundup itself records who created and who last changed an issue, when, and
the journal (the issue's history) with one entry per change. The stored rows are then a pure
function of the seed, not of the wall clock.
"""

import datetime
import json
import sqlite3
import sys

from roundup import date, instance, password

EPOCH = datetime.datetime(2026, 1, 5, 9, 0, tzinfo=datetime.timezone.utc)
_clock = [EPOCH]


def _now(self):
    return _clock[0]


def at(minute):
    _clock[0] = EPOCH + datetime.timedelta(minutes=minute)


def main(home, spec_path):
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    date.Date.now = _now  # the tracker's clock follows the content
    at(0)
    tracker = instance.open(home)
    db = tracker.open("admin")
    kw = {name: db.keyword.create(name=name) for name in spec["keywords"]}
    users = {}
    for p in spec["people"]:
        users[p["username"]] = db.user.create(username=p["username"], realname=p["realname"], address=p["address"],
                                              organisation=p["organisation"], roles="User",
                                              password=password.Password(p["password"], config=db.config))
    db.commit()
    status = {db.status.get(i, "name"): i for i in db.status.list()}
    prio = {db.priority.get(i, "name"): i for i in db.priority.list()}

    def message(m):
        files = [db.file.create(name=a["name"], type=a["type"], content=a["content"]) for a in m["files"]]
        mid = db.msg.create(content=m["body"], author=users[m["author"]], date=date.Date(), files=files)
        return mid, files

    for n, it in enumerate(spec["issues"]):
        first, *rest = it["events"]
        at(first["minute"])
        db.setCurrentUser(first["actor"])
        mid, files = message(first["message"])
        iid = db.issue.create(title=it["title"], status=status[first["status"]], priority=prio[it["priority"]],
                              keyword=[kw[k] for k in it["keywords"]], nosy=[users[first["actor"]]],
                              messages=[mid], files=files)
        for ev in rest:
            at(ev["minute"])
            db.setCurrentUser(ev["actor"])
            change = {}
            if ev["message"] is not None:
                mid, files = message(ev["message"])
                change["messages"] = db.issue.get(iid, "messages") + [mid]
                if files:
                    change["files"] = db.issue.get(iid, "files") + files
                nosy = db.issue.get(iid, "nosy")
                if users[ev["actor"]] not in nosy:  # who writes on an issue follows it (as in the web form)
                    change["nosy"] = nosy + [users[ev["actor"]]]
            if ev["status"] is not None:
                change["status"] = status[ev["status"]]
            if ev["assignedto"] is not None:
                change["assignedto"] = users[ev["assignedto"]]
            db.issue.set(iid, **change)
        nosy = sorted(users[u] for u in it["nosy"])
        if sorted(db.issue.get(iid, "nosy")) != nosy:
            raise SystemExit(f"issue {iid}: nosy {db.issue.get(iid, 'nosy')} is not the content's {nosy}")
        if n % 200 == 199:
            db.commit()
    db.commit()
    db.close()
    conn = sqlite3.connect(home + "/db/db")
    conn.execute("DELETE FROM sessions")
    conn.execute("DELETE FROM otks")
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
