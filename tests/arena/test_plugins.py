"""Plug-ins through real entry points: a package on the path declares an app and a family;
a fresh interpreter serves the app, seeds and resets its table and builds the family."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

PLUGIN = '''
from webgauge.arena.apps.asgi import AsgiApp
from webgauge.arena.core.effects import NoDeletes
from webgauge.arena.core.script import Click, Match
from webgauge.arena.core.task import Task, TaskResult, Viewport


async def _home(request):
    from starlette.responses import HTMLResponse
    rows = request.state.conn.execute("SELECT text FROM notes_items ORDER BY id").fetchall()
    return HTMLResponse("<ul>" + "".join(f"<li>{r[0]}</li>" for r in rows) + "</ul>")


def _app():
    from starlette.applications import Starlette
    from starlette.routing import Route
    return Starlette(routes=[Route("/notes/", _home)])


class _Lazy:
    app = None
    async def __call__(self, scope, receive, send):
        _Lazy.app = _Lazy.app or _app()
        await _Lazy.app(scope, receive, send)


def _seed(conn, rng, seed):
    for i in range(3):
        conn.execute("INSERT INTO notes_items(text) VALUES(?)", (f"note {rng.randrange(1000)} of seed {seed}",))


APP = AsgiApp(name="notes", prefix="/notes", title="Notes", app=_Lazy(),
              schema="CREATE TABLE notes_items(id INTEGER PRIMARY KEY, text TEXT);", seed=_seed)


def pin_note(seed, state):
    note = state["notes_items"][0]
    return Task(id=f"notes.pin.s{seed}", instruction=f"Pin {note['text']!r}.", seed=seed, start_url="/notes/",
                viewport=Viewport(), validate=lambda s: TaskResult(False, ["not pinned"]), family="notes.pin",
                pattern="states", forbidden_effects=(NoDeletes(("notes_items",)),),
                oracle=lambda: [Click(Match(text=note["text"]))])


FAMILIES = (pin_note,)
'''

CHECK = '''
import urllib.request
from webgauge.arena.apps import SITES
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.apps.server import ArenaServer
from webgauge.arena.tasks import FAMILIES, build_tasks, seed_state

assert "notes.pin_note" in FAMILIES and "notes" in SITES
assert len(seed_state(0)["notes_items"]) == 3
(task,) = build_tasks((0,), families=["notes.pin_note"])
with ArenaServer() as srv:
    c = ControlClient(srv.control_url)
    ep = c.create(seed=0)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    html = opener.open(srv.episode_url(ep["id"], "/notes/")).read().decode()
    assert task.instruction.split("'")[1] in html, html
    r = c.reset(ep["id"])
    assert r["hash"] == r["seed_hash"]
print("plugin ok")
'''


def test_an_app_and_a_family_plug_in_through_entry_points(tmp_path):
    pkg = tmp_path / "wg_notes_plugin"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent(PLUGIN))
    info = tmp_path / "wg_notes_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: wg-notes-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[webgauge.arena.apps]\nnotes = wg_notes_plugin:APP\n\n"
                                           "[webgauge.arena.families]\nnotes = wg_notes_plugin\n")
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(src)])}
    out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "plugin ok" in out.stdout, out.stderr[-2000:]
    # a broken plug-in is a clear error naming the entry point
    (info / "entry_points.txt").write_text("[webgauge.arena.families]\nbroken = wg_notes_plugin:nope\n")
    out = subprocess.run([sys.executable, "-c", "import webgauge.arena"], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode != 0 and "arena plug-in 'broken'" in out.stderr and "uninstall" in out.stderr
