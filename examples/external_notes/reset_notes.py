"""Reset the notes app's SQLite file to a seed: ``python reset_notes.py DB SEED``.

Recreates every table in one transaction (the server may keep running): the users, no
session (everyone is logged out), and twelve notes drawn from ``random.Random(SEED)``.
"""

from __future__ import annotations

import random
import sqlite3
import sys

TOPICS = ("invoice", "roadmap", "hiring", "offsite", "budget", "release", "audit", "vendor", "backup", "launch",
          "survey", "training", "security", "migration", "onboarding", "pricing", "support", "contract")
VERBS = ("Review", "Draft", "Send", "Plan", "Check", "Update", "Book", "Renew", "Archive", "Prepare")


def reset(db: str, seed: int) -> None:
    rng = random.Random(seed)
    conn = sqlite3.connect(db, timeout=10, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        for t in ("users", "sessions", "notes"):
            conn.execute(f"DROP TABLE IF EXISTS {t}")
        conn.execute("CREATE TABLE users(name TEXT PRIMARY KEY, password TEXT)")
        conn.execute("CREATE TABLE sessions(token TEXT PRIMARY KEY, user TEXT)")
        conn.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT, status TEXT, owner TEXT)")
        conn.execute("INSERT INTO users VALUES('robin', ?)", (f"pw-{rng.randrange(10**6):06d}",))
        titles = rng.sample([f"{v} {t}" for v in VERBS for t in TOPICS], 12)
        conn.executemany("INSERT INTO notes(title, status, owner) VALUES(?,?, 'robin')",
                         [(t, rng.choice(("open", "open", "done"))) for t in titles])
        conn.execute("COMMIT")
    finally:
        conn.close()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: reset_notes.py DB SEED")
    reset(sys.argv[1], int(sys.argv[2]))
