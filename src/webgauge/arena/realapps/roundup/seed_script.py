"""Write one seed's content into a Roundup tracker through Roundup's own API.

Run by the Roundup interpreter (``python seed_script.py TRACKER_HOME WORLD.json``), not
imported by webgauge: it imports only Roundup and the standard library. Creation and
activity times are then set from the content's own minutes, so the stored rows are a pure
function of the seed and not of the wall clock.
"""

import json
import sqlite3
import sys
import time

from roundup import date, instance, password

EPOCH = 1767603600  # 2026-01-05 09:00 UTC


def stamp(minute):
    return time.strftime("%Y%m%d%H%M%S", time.gmtime(EPOCH + 60 * minute))


def main(home, spec_path):
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    tracker = instance.open(home)
    db = tracker.open("admin")
    kw = {name: db.keyword.create(name=name) for name in spec["keywords"]}
    users = {}
    for p in spec["people"]:
        users[p["username"]] = db.user.create(username=p["username"], realname=p["realname"], address=p["address"],
                                              organisation=p["organisation"], roles="User",
                                              password=password.Password(p["password"], config=db.config))
    status = {db.status.get(i, "name"): i for i in db.status.list()}
    prio = {db.priority.get(i, "name"): i for i in db.priority.list()}
    times = {}
    for it in spec["issues"]:
        mids = []
        for m in it["messages"]:
            mid = db.msg.create(content=m["body"], author=users[m["author"]],
                                date=date.Date(time.strftime("%Y-%m-%d.%H:%M:%S",
                                                             time.gmtime(EPOCH + 60 * m["minute"]))))
            mids.append(mid)
            times[("msg", mid)] = (m["minute"], m["minute"], users[m["author"]], users[m["author"]])
        iid = db.issue.create(title=it["title"], status=status[it["status"]], priority=prio[it["priority"]],
                              keyword=[kw[k] for k in it["keywords"]],
                              assignedto=users[it["assignedto"]] if it["assignedto"] else None,
                              nosy=[users[u] for u in it["nosy"]], messages=mids)
        times[("issue", iid)] = (it["messages"][0]["minute"], it["messages"][-1]["minute"],
                                 users[it["messages"][0]["author"]], users[it["messages"][-1]["author"]])
    db.commit()
    db.close()
    conn = sqlite3.connect(home + "/db/db")
    for (cls, nid), (c, a, creator, actor) in times.items():  # who reported and who last wrote, as in the content
        conn.execute(f"UPDATE _{cls} SET _creation=?, _activity=?, _creator=?, _actor=? WHERE id=?",
                     (stamp(c), stamp(a), creator, actor, nid))
        conn.execute(f"UPDATE {cls}__journal SET date=? WHERE nodeid=?", (stamp(c), nid))
    fixed = stamp(0)
    for cls in ("user", "keyword"):
        conn.execute(f"UPDATE _{cls} SET _creation=?, _activity=?", (fixed, fixed))
        conn.execute(f"UPDATE {cls}__journal SET date=?", (fixed,))
    for cls in ("status", "priority"):
        conn.execute(f"UPDATE {cls}__journal SET date=?", (fixed,))
    conn.execute("DELETE FROM sessions")
    conn.execute("DELETE FROM otks")
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
