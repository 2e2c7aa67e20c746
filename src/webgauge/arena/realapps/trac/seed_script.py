"""Write one seed's content into a Trac environment through Trac's own model API.

Run by the forge's own interpreter (``python seed_script.py ENV_DIR WORLD.json SERVED_ENV_DIR``), not imported by
webgauge: it imports only Trac and the standard library. The git repositories are already in
``ENV_DIR/repos`` (made with ``git fast-import``); this registers them with Trac and caches their
history in Trac's database (Trac's own ``sync``). Every time comes from the content's minutes, so the
stored rows are a pure function of the seed and not of the wall clock.
"""

import json
import sys
from datetime import datetime, timedelta

from trac.env import Environment
from trac.perm import PermissionSystem
from trac.ticket.model import Component, Milestone, Ticket, Version
from trac.util.datefmt import utc
from trac.versioncontrol.api import DbRepositoryProvider, RepositoryManager
from trac.wiki.model import WikiPage

EPOCH = datetime(2026, 1, 5, 9, 0, tzinfo=utc)

DEVELOPER_PERMS = ("MILESTONE_ADMIN", "WIKI_DELETE", "TICKET_EDIT_DESCRIPTION", "TICKET_EDIT_COMMENT", "REPORT_CREATE")


def at(minute):
    return EPOCH + timedelta(minutes=minute)


def main(path, spec_path, live):
    with open(spec_path, encoding="utf-8") as f:
        w = json.load(f)
    env = Environment(path)
    perms = PermissionSystem(env)
    with env.db_transaction as db:
        for c in list(Component.select(env)):
            c.delete()
        for m in list(Milestone.select(env, include_completed=True)):
            m.delete()
        for v in list(Version.select(env)):
            v.delete()
        for p in w["people"]:
            if p["role"] == "lead":
                perms.grant_permission(p["username"], "TRAC_ADMIN")
            else:
                perms.grant_permission(p["username"], p["role"] + "s")
            db("INSERT INTO session (sid, authenticated, last_visit) VALUES (%s, 1, 0)", (p["username"],))
            db.executemany("INSERT INTO session_attribute (sid, authenticated, name, value) VALUES (%s, 1, %s, %s)",
                           [(p["username"], "name", p["realname"]), (p["username"], "email", p["email"])])
        for action in DEVELOPER_PERMS:
            perms.grant_permission("developers", action)
        for c in w["components"]:
            comp = Component(env)
            comp.name, comp.owner = c["name"], c["owner"]
            comp.insert()
        for m in w["milestones"]:
            ms = Milestone(env)
            ms.name, ms.due, ms.description = m["name"], at(m["due"]), m["description"]
            ms.completed = at(m["completed"]) if m["completed"] is not None else None
            ms.insert()
        for r in w["repos"]:
            DbRepositoryProvider(env).add_repository(r["name"], f"{path}/repos/{r['name']}.git", "git")
    rm = RepositoryManager(env)
    for r in w["repos"]:
        rm.get_repository(r["name"]).sync()
    with env.db_transaction as db:
        db("UPDATE repository SET value='repos/' || (SELECT r2.value FROM repository r2 WHERE r2.id=repository.id "
           "AND r2.name='name') || '.git' WHERE name='dir'")  # relative to the environment: it moves with it
        for r in w["repos"]:  # the cache's record of where it was synced from: the served environment's folder
            db("UPDATE repository SET value=%s WHERE name='repository_dir' AND id=(SELECT id FROM repository "
               "WHERE name='name' AND value=%s)", (f"git:{live}/repos/{r['name']}.git", r["name"]))
        for t in w["tickets"]:
            tk = Ticket(env)
            for k in ("summary", "type", "component", "milestone", "priority", "reporter", "owner", "description"):
                tk[k] = t[k]
            tk["status"] = "new"
            tk.insert(when=at(t["minute"]))
            for ch in t["changes"]:
                for k, v in ch["fields"]:
                    tk[k] = v
                tk.save_changes(ch["author"], ch["comment"], when=at(ch["minute"]))
        for p in w["wiki"]:
            page = WikiPage(env, p["name"])
            page.text = p["text"]
            page.save(p["author"], "", at(p["minute"]))
        db("DELETE FROM auth_cookie")
    env.shutdown()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
