"""Run ``tracd`` (Trac's own standalone server) for one environment, dropping Trac's in-process
environment (its database connections and caches) whenever another world was put in place.

Run by the forge's own interpreter: ``python serve_script.py ENV_DIR tracd-arguments...``. A reset
restores the rows an episode changed in place, and Trac's caches follow by themselves: each cached
table has a generation in the database's ``cache`` table, which Trac compares on every request. A
reset to another seed copies that seed's database whole, whose generations may equal the old
world's, so it rewrites the world stamp ``db/world``; a database file put in place by rename has a
new inode. Before each request the file's inode and the stamp are compared with those the environment
was opened on; when either differs the environment is shut down and opened anew. Otherwise this is
tracd unchanged.
"""

import os
import sys
import threading

import trac.env
import trac.web.main
import trac.web.standalone

ENV = os.path.abspath(sys.argv[1])
DB = os.path.join(ENV, "db", "trac.db")
STAMP = os.path.join(ENV, "db", "world")  # the app module's WORLD_STAMP
_seen = {"world": None}
_lock = threading.Lock()
_dispatch = trac.web.main.dispatch_request


def _world():  # (the database file's inode, the stamp's text)
    try:
        with open(STAMP, "rb") as f:
            return os.stat(DB).st_ino, f.read()
    except FileNotFoundError:
        return os.stat(DB).st_ino, b""


def dispatch(environ, start_response):
    world = _world()
    if world != _seen["world"]:
        with _lock, trac.env.env_cache_lock:
            world = _world()
            if world != _seen["world"]:
                env = trac.env.env_cache.pop(ENV, None)
                if env is not None:
                    env.shutdown()
                _seen["world"] = world
    return _dispatch(environ, start_response)


trac.web.standalone.dispatch_request = dispatch
sys.argv = ["tracd", *sys.argv[2:], ENV]
trac.web.standalone.main()
