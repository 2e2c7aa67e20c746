"""Handlers whose module takes long to import in a worker process (never in the driver):
a worker that cannot report ready in time."""

import multiprocessing
import time

if multiprocessing.parent_process() is not None:  # a spawned worker, not the driver
    time.sleep(60)

from run_handlers import echo  # noqa: E402,F401
