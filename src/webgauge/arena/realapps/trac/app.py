"""Trac 1.6, the project tracker with wiki and repository browser, as a real arena app (a code forge).

Layout under ``apps_home()/trac``: ``venv/`` (the forge's own virtualenv: Trac and TracAccountManager
from PyPI, for the sign-in form; the project's environment is not touched), ``env/`` (the served Trac
environment: ``conf/trac.ini``, ``db/trac.db`` on SQLite, ``htpasswd`` with the people's passwords and
``repos/NAME.git``, bare git repositories Trac browses through Debian's ``git``) and
``snapshots/seed-N/`` (``trac.db``, ``htpasswd`` and ``repos/`` right after seeding). Resetting copies the
snapshot's rows back in place (``restore_db``: the undo log; sessions and sign-in cookies live in the
database, so they are dropped with the rest), copies the password file back and brings ``repos/`` back
to the snapshot's file list. The server is Trac's own ``tracd`` on 127.0.0.1, started by
:mod:`.serve_script`, which reopens the environment when the database file was replaced or its world
stamp (``db/world``, written when a reset restored another seed's database whole) changed.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ...core.gate import GatedRoute
from ..base import (
    AppStats,
    ContentCount,
    InstallReport,
    LoopbackServer,
    RealApp,
    RealAppSpec,
    apps_home,
    checked_reset,
    checked_seed,
    open_state_db,
    restore_db,
    restore_file,
    restore_tree,
)
from .content import EPOCH, Repo, World, world

__all__ = ["GATED", "IRREVERSIBLE", "SPEC", "TracServer", "app", "build_seed", "fast_import_stream", "home",
           "install", "installed_version", "reset", "state", "stats"]

PIP_SPEC = ("Trac>=1.6,<1.7", "TracAccountManager>=0.6,<0.7")
HERE = Path(__file__).resolve().parent
SNAPSHOT_FORMAT = 2  # 2: comments worded about their ticket (1,205 distinct of 3,078 at seed 0, was 150)

TRAC_INI = """
[components]
tracopt.versioncontrol.git.* = enabled
acct_mgr.api.* = enabled
acct_mgr.web_ui.loginmodule = enabled
acct_mgr.htfile.htpasswdstore = enabled
acct_mgr.pwhash.htpasswdhashmethod = enabled
acct_mgr.admin.* = enabled
acct_mgr.db.sessionstore = disabled
acct_mgr.register.* = disabled
acct_mgr.notification.* = disabled
acct_mgr.guard.* = disabled
trac.web.auth.loginmodule = disabled

[account-manager]
password_store = HtPasswdStore
htpasswd_file = htpasswd
htpasswd_hash_type = sha
hash_method = HtPasswdHashMethod
persistent_sessions = false

[git]
cached_repository = true
persistent_cache = false
git_bin = git
"""


def home() -> Path:
    return apps_home() / "trac"


def _py() -> Path:
    return home() / "venv" / "bin" / "python"


def _site() -> list[Path]:
    return sorted((home() / "venv").glob("lib/python*/site-packages"))


def installed_version() -> str | None:
    metas = [m for s in _site() for m in s.glob("[Tt]rac-*.dist-info")]
    if not metas or not (home() / "env" / "db" / "trac.db").is_file():
        return None
    return sorted(metas)[-1].name[len("Trac-"):-len(".dist-info")]


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "PYTHONDONTWRITEBYTECODE": "1", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(home())}


def _run(argv: list[str], what: str, timeout: float = 900, stdin: bytes | None = None) -> str:
    proc = subprocess.run(argv, env=_env(), capture_output=True, check=False, timeout=timeout, input=stdin)
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed: {(proc.stderr or proc.stdout).decode(errors='replace')[-1500:]}")
    return proc.stdout.decode(errors="replace")


def install(say=print) -> InstallReport:
    """Install the forge (idempotent): virtualenv, pip install, a blank Trac environment, seed 0."""
    t0, steps = time.perf_counter(), []
    h = home()
    h.mkdir(parents=True, exist_ok=True)
    if shutil.which("git") is None:
        raise RuntimeError("Trac browses repositories with git, which is missing; run: apt-get install git")

    def step(msg: str, fn) -> None:
        say(msg)
        t = time.perf_counter()
        fn()
        steps.append(f"{msg} ({time.perf_counter() - t:.1f} s)")

    if not _py().is_file():
        step(f"python -m venv {h / 'venv'}", lambda: _run([sys.executable, "-m", "venv", str(h / "venv")], "venv"))
    if not any(any(s.glob("[Tt]rac-*.dist-info")) for s in _site()):
        step(f"pip install {' '.join(PIP_SPEC)} (into the forge's venv)",
             lambda: _run([str(_py()), "-m", "pip", "install", "-q", "--disable-pip-version-check", *PIP_SPEC],
                          "pip install"))
    blank = h / "blank"
    if not (blank / "db" / "trac.db").is_file():
        step("trac-admin initenv (blank environment on SQLite)", lambda: _blank(blank))
    if not (_snap(0) / "trac.db").is_file():
        step("seeding seed 0 through Trac's model API and git fast-import", lambda: build_seed(0))
    if not (h / "env" / "db" / "trac.db").is_file():
        step("serving environment env/ <- seed 0", _make_live)
    return InstallReport("trac", installed_version() or "?", time.perf_counter() - t0,
                         tuple(steps) or ("already installed",))


def _blank(blank: Path) -> None:
    tmp = blank.with_name("blank.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    _run([str(home() / "venv" / "bin" / "trac-admin"), str(tmp), "initenv", "Forge", "sqlite:db/trac.db"],
         "trac-admin initenv")
    ini = tmp / "conf" / "trac.ini"
    text = ini.read_text(encoding="utf-8").replace("log_type = file", "log_type = none")
    text = text.replace("src = site/your_project_logo.png", "src = common/trac_banner.png").replace(
        "alt = (please configure the [header_logo] section in trac.ini)", "alt = Forge")
    text = text.replace("descr = My example project", "descr = Tracker, wiki and repositories of the project")
    ini.write_text(text + TRAC_INI, encoding="utf-8")
    (tmp / "htpasswd").write_text("", encoding="utf-8")
    shutil.rmtree(blank, ignore_errors=True)
    os.replace(tmp, blank)


def _make_live() -> None:
    live = home() / "env"
    tmp = live.with_name("env.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(home() / "blank", tmp)
    shutil.rmtree(live, ignore_errors=True)
    os.replace(tmp, live)
    reset.__wrapped__(0)  # type: ignore[attr-defined]


def _snap(seed: int) -> Path:
    return home() / "snapshots" / f"seed-{int(seed)}.v{SNAPSHOT_FORMAT}"


def _comment(path: str, line: str) -> str:
    if path.endswith((".ts", ".tsx")):
        return f"// {line}"
    if path.endswith(".css"):
        return f"/* {line} */"
    if path.endswith((".md", ".rst")):
        return f"- {line}"
    return f"# {line}"


def _header(path: str) -> list[str]:
    name = path.rsplit("/", 1)[-1]
    if path.endswith(".md"):
        return [f"# {name}", ""]
    if path.endswith(".rst"):
        return [name, "=" * len(name), ""]
    return [_comment(path, f"{name}: part of the project; see README for the layout"), ""]


def fast_import_stream(repo: Repo, w: World) -> bytes:
    """The ``git fast-import`` stream of ``repo``: main branch, side branches and tags, each commit
    adding its lines to the files it touches (authors and times from the content)."""
    out: list[bytes] = []
    files: dict[str, list[str]] = {}
    mark = 0

    def commit(ref: str, c, parent: int | None, state: dict[str, list[str]]) -> int:
        nonlocal mark
        mark += 1
        p = w.person(c.author)
        ts = EPOCH + 60 * c.minute
        msg = c.message.encode()
        out.append(f"commit {ref}\nmark :{mark}\n".encode())
        out.append(f"author {p.realname} <{p.email}> {ts} +0000\ncommitter {p.realname} <{p.email}> {ts} +0000\n"
                   .encode())
        out.append(b"data %d\n%s\n" % (len(msg), msg))
        if parent is not None:
            out.append(f"from :{parent}\n".encode())
        for path, line in c.files:
            lines = state.setdefault(path, _header(path))
            lines.append(_comment(path, line))
            data = ("\n".join(lines) + "\n").encode()
            out.append(f"M 100644 inline {path}\n".encode() + b"data %d\n%s\n" % (len(data), data))
        return mark

    marks, snapshots = [], []
    parent = None
    for c in repo.main:
        parent = commit("refs/heads/main", c, parent, files)
        marks.append(parent)
        snapshots.append({k: list(v) for k, v in files.items()})
    for name, at, commits in repo.branches:
        state = {k: list(v) for k, v in snapshots[at].items()}
        bparent: int | None = marks[at]
        for c in commits:
            bparent = commit(f"refs/heads/{name}", c, bparent, state)
    for tag, at in repo.tags:
        out.append(f"reset refs/tags/{tag}\nfrom :{marks[at]}\n\n".encode())
    out.append(b"done\n")
    return b"".join(out)


def _htpasswd(w: World) -> str:
    return "".join(f"{p.username}:{{SHA}}{base64.b64encode(hashlib.sha1(p.password.encode()).digest()).decode()}\n"
                   for p in w.people)


@checked_seed
def build_seed(seed: int) -> Path:
    """Create seed ``seed``'s snapshot: a copy of the blank environment, the seed's repositories made
    with ``git fast-import``, its content written through Trac's model API (a process in the forge's
    venv), saved as ``snapshots/seed-N.vF`` (F: ``SNAPSHOT_FORMAT``)."""
    snap = _snap(seed)
    if (snap / "trac.db").is_file():
        return snap
    home().mkdir(parents=True, exist_ok=True)
    with open(home() / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return snap if (snap / "trac.db").is_file() else _build(seed, snap)


def _build(seed: int, snap: Path) -> Path:
    blank = home() / "blank"
    if not (blank / "db" / "trac.db").is_file():
        raise RuntimeError("the forge is not installed; run: webgauge arena apps install trac")
    w = world(seed)
    work = home() / f"build-{int(seed)}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(blank, work)
    (work / "htpasswd").write_text(_htpasswd(w), encoding="utf-8")
    for r in w.repos:
        git_dir = work / "repos" / f"{r.name}.git"
        _run(["git", "init", "-q", "--bare", "-b", "main", str(git_dir)], "git init")
        _run(["git", "-C", str(git_dir), "fast-import", "--quiet", "--done"], f"git fast-import ({r.name})",
             stdin=fast_import_stream(r, w))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(w.to_json(), f)
    try:
        proc = subprocess.run([str(_py()), str(HERE / "seed_script.py"), str(work), f.name,
                               str(home() / "env")], env=_env(),
                              capture_output=True, text=True, check=False, timeout=1800)
    finally:
        os.unlink(f.name)
    if proc.returncode != 0:
        raise RuntimeError(f"seeding the forge's seed {seed} failed: {proc.stderr[-2500:]}")
    conn = sqlite3.connect(work / "db" / "trac.db")
    conn.execute("VACUUM")
    conn.close()
    tmp = snap.with_name(snap.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    shutil.copy2(work / "db" / "trac.db", tmp / "trac.db")
    shutil.copy2(work / "htpasswd", tmp / "htpasswd")
    shutil.copytree(work / "repos", tmp / "repos")
    shutil.rmtree(snap, ignore_errors=True)
    os.replace(tmp, snap)
    shutil.rmtree(work, ignore_errors=True)
    return snap


WORLD_STAMP = "world"  # in env/db/: rewritten when a reset put another world in place (serve_script.py reads it)


@checked_reset("trac", installed_version)
def reset(seed: int) -> None:
    """Restore the seed's snapshot: the database (sessions and sign-in cookies in it), the password
    file and the repositories."""
    snap = build_seed(seed)
    live = home() / "env"
    # the rows written since the last reset, in place: tracd's pooled connections and its caches stay (Trac
    # checks each cached table's generation in the database on every request, as its multi-process
    # deployments need); a whole copy (another seed's world) gets a new world stamp, on which the server
    # reopens the environment (generations of two seeds' databases may be equal)
    if restore_db(snap / "trac.db", live / "db" / "trac.db").mode == "whole":
        stamp = live / "db" / WORLD_STAMP
        stamp.write_text(f"{seed} {time.time_ns()}\n", encoding="utf-8")
    restore_file(snap / "htpasswd", live / "htpasswd")
    restore_tree(snap / "repos", live / "repos")
    for git_dir in (live / "repos").glob("*.git"):  # git needs these folders even when they hold no file
        for sub in ("refs/heads", "refs/tags", "objects/info"):
            (git_dir / sub).mkdir(parents=True, exist_ok=True)


# Trac's tables as a task can change them (times in microseconds since 1970, as Trac stores them)
_TABLES = {
    "ticket": "SELECT id, type, time, changetime, component, severity, priority, owner, reporter, cc, version, "
              "milestone, status, resolution, summary, description, keywords FROM ticket ORDER BY id",
    "ticket_change": "SELECT ticket || ':' || time || ':' || field AS key, ticket, time, author, field, oldvalue, "
                     "newvalue FROM ticket_change ORDER BY ticket, time, field",
    "milestone": "SELECT name AS key, name, due, completed, description FROM milestone ORDER BY name",
    "component": "SELECT name AS key, name, owner, description FROM component ORDER BY name",
    "version": "SELECT name AS key, name, time, description FROM version ORDER BY name",
    "enum": "SELECT type || ':' || name AS key, type, name, value FROM enum ORDER BY type, name",
    "permission": "SELECT username || ':' || action AS key, username, action FROM permission ORDER BY username, "
                  "action",
    "wiki": "SELECT name || ':' || version AS key, name, version, time, author, text, comment, readonly FROM wiki "
            "ORDER BY name, version",
    "attachment": "SELECT type || ':' || id || ':' || filename AS key, type, id, filename, size, author FROM "
                  "attachment ORDER BY 1",
    "repository": "SELECT id || ':' || name AS key, id, name, value FROM repository ORDER BY id, name",
    "revision": "SELECT repos || ':' || rev AS key, repos, rev, author, message FROM revision ORDER BY repos, rev",
    "report": "SELECT id, author, title FROM report ORDER BY id",
}


def state() -> dict[str, list[dict]]:
    """The forge's stored state, read with SQL from Trac's own tables."""
    db = home() / "env" / "db" / "trac.db"
    conn = open_state_db(db)
    try:
        return {t: [dict(r) for r in conn.execute(q)] for t, q in _TABLES.items()}
    finally:
        conn.close()


def stats(seed: int) -> AppStats:
    """Content counts of seed ``seed``'s snapshot, read with SQL from its database and with git from
    its repositories (builds the snapshot when missing)."""
    snap = build_seed(seed)
    conn = sqlite3.connect(f"file:{snap / 'trac.db'}?mode=ro", uri=True)
    try:
        def one(q: str) -> int:
            return int(conn.execute(q).fetchone()[0])

        rows = [
            ContentCount("tickets", one("SELECT count(*) FROM ticket"),
                         one("SELECT count(DISTINCT summary) FROM ticket"),
                         "distinct summaries"),
            ContentCount("ticket comments", one("SELECT count(*) FROM ticket_change WHERE field='comment' AND "
                                                "newvalue<>''"),
                         one("SELECT count(DISTINCT newvalue) FROM ticket_change WHERE field='comment'"),
                         "distinct comment texts"),
            ContentCount("ticket field changes", one("SELECT count(*) FROM ticket_change WHERE field<>'comment'")),
            ContentCount("milestones", one("SELECT count(*) FROM milestone")),
            ContentCount("components", one("SELECT count(*) FROM component")),
            ContentCount("wiki pages", one("SELECT count(DISTINCT name) FROM wiki"),
                         one("SELECT count(DISTINCT text) FROM wiki"), "distinct page texts (Trac's guide included)"),
            ContentCount("people with permissions", one("SELECT count(DISTINCT sid) FROM session WHERE "
                                                        "authenticated=1")),
            ContentCount("repositories", one("SELECT count(*) FROM repository WHERE name='name'")),
            ContentCount("commits", one("SELECT count(*) FROM revision"),
                         one("SELECT count(DISTINCT message) FROM revision"), "distinct commit messages"),
        ]
    finally:
        conn.close()
    refs = 0
    for git_dir in sorted((snap / "repos").glob("*.git")):
        refs += len(_run(["git", "-C", str(git_dir), "tag"], "git tag").split())
    rows.append(ContentCount("tags", refs, None, "git tags over all repositories"))
    return AppStats("trac", seed, tuple(rows))


@dataclass
class TracServer(LoopbackServer):
    """``tracd`` for the forge on loopback; use as a context manager."""

    what: str = "tracd"
    url_timeout: float = 20.0

    def command(self) -> tuple[list[str], dict[str, str]]:
        SPEC.require()
        return ([str(_py()), str(HERE / "serve_script.py"), str(home() / "env"), "-s", "--hostname=127.0.0.1",
                 "-p", str(self.port)], _env())


IRREVERSIBLE = ("Delete page", "Delete milestone")  # the controls the approval gate asks before
# the requests that delete: a wiki page's or a milestone's delete form (POST with ``action=delete``), the
# admin panel's "Remove selected items" on milestones, and Trac's XML-RPC if a plug-in ever serves it
GATED = (GatedRoute("Delete page", r"/wiki(/.*)?", "POST", ((r"action", r"(?i)delete"),)),
         GatedRoute("Delete milestone", r"/milestone(/.*)?", "POST", ((r"action", r"(?i)delete"),)),
         GatedRoute("Delete milestone", r"/admin/ticket/milestones(/.*)?", "POST", ((r"remove", r".*"),)))


def app(server: TracServer) -> RealApp:
    """The forge as an arena app (reset in-process; from a shell: ``webgauge arena apps reset trac SEED``)."""
    return RealApp("trac", server.base_url + "/",
                   [sys.executable, "-m", "webgauge.cli.main", "arena", "apps", "reset", "trac", "{seed}"],
                   state, irreversible=IRREVERSIBLE, gated=GATED, reset_fn=reset,
                   state_files=lambda: (home() / "env" / "db" / "trac.db",))


SPEC = RealAppSpec("trac", "code forge", "BSD-3-Clause (Trac, TracAccountManager)", f"PyPI: {', '.join(PIP_SPEC)}",
                   install, installed_version, server=TracServer, arena_app=app, stats=stats)
