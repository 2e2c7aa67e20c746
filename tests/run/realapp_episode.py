"""One oracle episode on a real app (Roundup) in real Chromium, as docs/arena-real-apps.md shows (for the
loopback socket test): ``python realapp_episode.py FAMILY SEED`` prints ``{"task", "success", "port"}``,
the port being the app server's."""

from __future__ import annotations

import asyncio
import json
import sys


async def main(family: str, seed: int) -> None:
    from webgauge.arena.env.episode import play
    from webgauge.arena.realapps.roundup import app as roundup
    from webgauge.arena.realapps.roundup.tasks import build_tasks
    from webgauge.browser import Browser

    roundup.SPEC.require()  # names the install command when Roundup is missing
    [task] = build_tasks((seed,), families=[family])
    with roundup.RoundupServer() as srv:
        port = srv.port
        async with Browser.launch() as browser:
            rapp = roundup.app(srv)
            env = rapp.env(browser)
            try:
                record, _ = await play(env, rapp.oracle(task, env), task, keep_dom=False)
            finally:
                await env.close()
    print(json.dumps({"task": task.id, "success": record.success, "port": port}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
