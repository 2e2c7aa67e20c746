"""Run ``tracd`` (Trac's own standalone server) for one environment, dropping Trac's in-process
environment (its database connections and caches) whenever the database file was replaced.

Run by the forge's own interpreter: ``python serve_script.py ENV_DIR tracd-arguments...``. A reset
puts the snapshot's database in place with an atomic rename (a new inode); Trac keeps a pool of
open SQLite connections and cached tables per environment, which would go on reading the replaced
file. So before each request the database file's inode is compared with the one the environment was
opened on; when it differs the environment is shut down and opened anew. Otherwise this is
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
_seen = {"ino": None}
_lock = threading.Lock()
_dispatch = trac.web.main.dispatch_request


def dispatch(environ, start_response):
    ino = os.stat(DB).st_ino
    if ino != _seen["ino"]:
        with _lock, trac.env.env_cache_lock:
            if ino != _seen["ino"]:
                env = trac.env.env_cache.pop(ENV, None)
                if env is not None:
                    env.shutdown()
                _seen["ino"] = ino
    return _dispatch(environ, start_response)


trac.web.standalone.dispatch_request = dispatch
sys.argv = ["tracd", *sys.argv[2:], ENV]
trac.web.standalone.main()
