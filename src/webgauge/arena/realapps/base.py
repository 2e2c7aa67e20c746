"""What every real app shares: where it is installed, how it is snapshotted and reset, and
the env adapter that resets in-process (no subprocess per reset).

An app lives under :func:`apps_home` (``WEBGAUGE_APPS_HOME``, default
``~/.cache/webgauge/apps``), one folder per app. Its seed worlds are snapshots: the app's
SQLite database file plus its upload folder, built once per seed through the app's own API
and restored on every reset by :func:`restore_db` (the rows written since the last reset, copied back
from the snapshot through an undo log its triggers keep: time in proportion to what changed, not to
the database's size; see :mod:`.undo`) and by bringing the upload folder back to the snapshot's file list.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from ..adapters.external import ExternalApp, ExternalControl, ResetError
from .undo import RestoreResult, pristine, restore_db

__all__ = [
    "AppNotInstalled",
    "AppStats",
    "ContentCount",
    "InstallReport",
    "LoopbackServer",
    "RealApp",
    "RealAppControl",
    "RealAppSpec",
    "RestoreResult",
    "apps_home",
    "check_seed",
    "checked_reset",
    "checked_seed",
    "median_ms",
    "open_state_db",
    "restore_db",
    "restore_file",
    "restore_tree",
    "stop_server",
    "wait_until_up",
]


class AppNotInstalled(RuntimeError):
    """The app is not installed; the message names the command that installs it."""


def apps_home() -> Path:
    return Path(os.environ.get("WEBGAUGE_APPS_HOME") or Path.home() / ".cache" / "webgauge" / "apps")


@dataclass(frozen=True)
class InstallReport:
    name: str
    version: str
    seconds: float
    steps: tuple[str, ...]  # what was done, in order ("already installed" when nothing was)


@dataclass(frozen=True)
class ContentCount:
    """One kind of content in a seed's world: how many items, and how many distinct texts they carry
    (``distinct`` is None where the kind has no text to compare, e.g. files counted by bytes)."""

    kind: str  # "issues", "message bodies", "products", ...
    count: int
    distinct: int | None = None
    note: str = ""  # what was counted, in a few words ("distinct titles", "mean 1,240 bytes")


@dataclass(frozen=True)
class AppStats:
    """What ``webgauge arena apps stats NAME`` prints: content counts of one seed's snapshot, read with
    SQL from the snapshot itself (never from the generator)."""

    app: str
    seed: int
    rows: tuple[ContentCount, ...]


@dataclass(frozen=True)
class RealAppSpec:
    """One real app: what it is and the functions that install it and tell whether it is."""

    name: str
    kind: str  # "issue tracker", "wiki", "shop"
    licence: str
    source: str  # how it installs: "PyPI: roundup"
    install: Callable[[Callable[[str], None]], InstallReport]
    version: Callable[[], str | None]  # installed version, None when not installed
    server: Callable[[], Any] | None = None  # the app's server: a context manager with ``base_url``
    arena_app: Callable[[Any], RealApp] | None = None  # the app under that server as an arena app
    stats: Callable[[int], AppStats] | None = None  # content counts of seed N's snapshot (builds it if missing)

    @property
    def install_command(self) -> str:
        return f"webgauge arena apps install {self.name}"

    def require(self) -> str:
        v = self.version()
        if v is None:
            raise AppNotInstalled(f"real app {self.name!r} is not installed; run: {self.install_command}")
        return v


SEED_LIMIT = 2 ** 64 + 2 ** 128
"""Seeds are whole numbers below this: public seeds below 2**64, held-out seeds 2**64 plus a 128-bit HMAC."""


def check_seed(seed: object) -> int:
    """``seed`` as an int, or a one-line ``ValueError`` naming what a seed is (nothing is created first)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed {seed!r} is not a seed: seeds are whole numbers from 0 (public seeds 0 to 2**64-1, "
                         "held-out seeds above)")
    return seed


_F = TypeVar("_F", bound=Callable[..., Any])


def checked_seed(fn: _F) -> _F:
    """``fn(seed, ...)`` refusing a seed that is not one before it does anything."""

    @wraps(fn)
    def run(seed: int, *args: Any, **kwargs: Any) -> Any:
        return fn(check_seed(seed), *args, **kwargs)

    return run  # type: ignore[return-value]


def checked_reset(name: str, version: Callable[[], str | None]) -> Callable[[_F], _F]:
    """An app's ``reset(seed)`` refusing a bad seed and a missing install before it touches a file,
    so a failed reset leaves nothing behind (``reset.__wrapped__`` is the unchecked reset the
    installer itself uses)."""

    def wrap(fn: _F) -> _F:
        @wraps(fn)
        def reset(seed: int) -> None:
            check_seed(seed)
            if version() is None:
                raise AppNotInstalled(f"real app {name!r} is not installed; run: webgauge arena apps install {name}")
            fn(seed)

        return reset  # type: ignore[return-value]

    return wrap


def restore_file(snapshot: Path, live: Path) -> None:
    """Put ``snapshot`` in place of ``live`` atomically (a reader sees the old or the new file, never half)."""
    tmp = live.with_name(live.name + ".wg-restore")
    shutil.copyfile(snapshot, tmp)
    os.replace(tmp, live)
    for extra in (live.with_name(live.name + "-journal"), live.with_name(live.name + "-wal"),
                  live.with_name(live.name + "-shm")):
        if extra.exists():
            extra.unlink()


_MANIFESTS: dict[str, dict[str, tuple[int, int]]] = {}


def _scan(root: Path) -> dict[str, tuple[int, int]]:
    """relative path -> (size, mtime_ns) of every file under ``root`` (os.scandir: one pass, no sorting)."""
    out: dict[str, tuple[int, int]] = {}
    stack = [(str(root), "")]
    while stack:
        path, rel = stack.pop()
        try:
            it = os.scandir(path)
        except FileNotFoundError:
            continue
        with it:
            for e in it:
                r = f"{rel}{e.name}"
                if e.is_dir(follow_symlinks=False):
                    stack.append((e.path, r + "/"))
                else:
                    st = e.stat(follow_symlinks=False)
                    out[r] = (st.st_size, st.st_mtime_ns)
    return out


def restore_tree(snapshot: Path, live: Path) -> int:
    """Make folder ``live`` hold exactly the files of ``snapshot``: extra files go, changed or missing
    ones are copied back (with their times, so size and mtime identify an unchanged file). The
    snapshot's file list is read once per process. Returns how many files were touched."""
    key = str(snapshot)
    if key not in _MANIFESTS:
        _MANIFESTS[key] = _scan(snapshot)
    want, have = _MANIFESTS[key], _scan(live)
    touched = 0
    for rel in have.keys() - want.keys():
        os.unlink(live / rel)
        touched += 1
    for rel, sig in want.items():
        if have.get(rel) != sig:
            dst = live / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(snapshot / rel, dst)
            touched += 1
    return touched


@dataclass(frozen=True)
class RealApp(ExternalApp):
    """An :class:`ExternalApp` whose reset is a Python callable run in-process (``reset_fn(seed)``);
    ``reset_command`` stays the equivalent command line, for users who drive the app from outside."""

    reset_fn: Callable[[int], None] | None = None
    state_files: Callable[[], tuple[Path, ...]] | None = None
    """The SQLite files the state query reads (each with its ``-wal`` and ``-journal``) and the folders
    of the files it reads that are only ever added, never rewritten: while none of them changes, the
    state is not read again (:meth:`RealAppControl.state`)."""

    def control(self) -> RealAppControl:
        return RealAppControl(self)


_HEAD_FDS: dict[str, tuple[int, int]] = {}  # path -> (inode, a descriptor of it kept open)


def _read_head(path: Path, head: int) -> tuple[os.stat_result, bytes]:
    """The stat and first ``head`` bytes of file ``path``, read through a descriptor this process keeps
    open for as long as the path names the same file. POSIX drops every lock a process holds on a file
    when any of its descriptors of that file is closed, so opening and closing a database file here would
    take the locks of this process's own SQLite connections to it (a WAL database's shared lock, held for
    as long as a connection is open; see ``undo.restore_db``)."""
    key = str(path)
    st = os.stat(path)
    have = _HEAD_FDS.get(key)
    if have is None or have[0] != st.st_ino:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        if have is not None:
            os.close(have[1])  # a file no longer at this path (a restore put another in place)
        _HEAD_FDS[key] = have = (os.fstat(fd).st_ino, fd)
    st = os.fstat(have[1])
    return st, os.pread(have[1], head, 0)


def _file_mark(path: Path, head: int) -> tuple[object, ...] | None:
    """(inode, size, mtime_ns, first ``head`` bytes) of file ``path``, (inode, mtime_ns, its entries'
    names) of a folder; None when it does not exist."""
    try:
        if path.is_dir():
            return path.stat().st_ino, path.stat().st_mtime_ns, tuple(sorted(os.listdir(path)))
        if head == 0:
            st = os.stat(path)
            return st.st_ino, st.st_size, st.st_mtime_ns, b""
        st, data = _read_head(path, head)
        return st.st_ino, st.st_size, st.st_mtime_ns, data
    except FileNotFoundError:
        return None


def sqlite_signature(files: tuple[Path, ...]) -> tuple[object, ...]:
    """What changes whenever a committed write reaches one of the SQLite databases ``files`` (a
    folder among them: whenever a file in it is added, removed or renamed): each
    file's inode (a restore puts another file in place), size and modification time, plus its
    header's change counter (bytes 24-27, raised by every committed transaction in rollback mode,
    however close in time) and its ``-wal`` file's header (salts and checkpoint count) and size (every
    commit in WAL mode appends frames), and whether a ``-journal`` exists."""
    out: list[object] = []
    for f in files:
        out.append(_file_mark(f, 100))
        out.append(_file_mark(f.with_name(f.name + "-wal"), 32))
        out.append(_file_mark(f.with_name(f.name + "-journal"), 0))
    return tuple(out)


_READS: contextvars.ContextVar[dict[str, set[str]] | None] = contextvars.ContextVar("wg_state_reads", default=None)


def open_state_db(path: Path) -> sqlite3.Connection:
    """A read-only connection to an app's SQLite database for its state query (rows as
    :class:`sqlite3.Row`). While :class:`RealAppControl` reads the state, SQLite's authorizer records
    every table a statement reads (through views and joins too), so that the control knows which
    tables the state depends on, from the query itself rather than from a list kept beside it."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    conn.row_factory = sqlite3.Row
    reads = _READS.get()
    if reads is not None:
        seen = reads.setdefault(os.path.realpath(path), set())

        def note(action: int, arg1: str | None, _arg2: str | None, _db: str | None, _src: str | None) -> int:
            if action == sqlite3.SQLITE_READ and arg1:
                seen.add(arg1)
            return sqlite3.SQLITE_OK

        conn.set_authorizer(note)
    return conn


@dataclass(frozen=True)
class _Kept:
    """A state read that depended only on tables the undo log shows untouched since the snapshot."""

    reads: dict[str, frozenset[str]]  # database file -> the tables the state query read
    state: Any
    hash: str


class RealAppControl(ExternalControl):
    """The control of a real app: resets in-process; the state read again only when it may have
    changed, so that an env reset (the hash check after the restore, the seed state, the state after
    the start page) costs a few small queries instead of reading the app's database:

    - while none of the app's database files changed since the last read (:func:`sqlite_signature`),
      the last read is the answer;
    - while the undo log (:func:`.undo.pristine`) shows that none of the tables a state query read
      was written since the database was last its snapshot, that read is the answer again: a reset
      restores the snapshot, so every reset of a seed after its first is answered so, even when the
      start page wrote to tables the state does not read (a cache, a session)."""

    KEEP = 8  # snapshots' states kept (each a few MB at full volume)

    def __init__(self, app: ExternalApp) -> None:
        super().__init__(app)
        self._memo: tuple[tuple[object, ...], Any, str] | None = None
        self._kept: dict[tuple[object, ...], _Kept] = {}
        self.state_reads = 0  # reads of the database (not answered from the last read)

    def state(self, eid: str) -> tuple[Any, str]:
        files_fn = getattr(self.app, "state_files", None)
        if files_fn is None:
            self.state_reads += 1
            return super().state(eid)
        files = files_fn()
        sig = sqlite_signature(files)
        memo = self._memo
        if memo is not None and memo[0] == sig:
            return memo[1], memo[2]
        before = _pristine_view(files)
        if before is not None:
            kept = self._kept.get(before.key)
            if kept is not None and _untouched(kept.reads, before.touched):
                self._memo = (sig, kept.state, kept.hash) if sqlite_signature(files) == sig else None
                return kept.state, kept.hash
        reads: dict[str, set[str]] = {}
        tok = _READS.set(reads)
        try:
            state, h = super().state(eid)
        finally:
            _READS.reset(tok)
        self.state_reads += 1
        # kept only when nothing was written during the read (else the next read reads again)
        self._memo = (sig, state, h) if sqlite_signature(files) == sig else None
        if before is not None:
            self._keep(before, reads, state, h, _pristine_view(files))
        return state, h

    def _keep(self, before: _View, reads: dict[str, set[str]], state: Any, h: str, after: _View | None) -> None:
        """Keep a read whose tables the log showed untouched before and after it, all of them covered by the log."""
        read = {p: frozenset(t) for p, t in reads.items()}
        if after is None or after.key != before.key or not _covered(read, before.tables):
            return
        if _untouched(read, before.touched) and _untouched(read, after.touched):
            self._kept.pop(before.key, None)
            self._kept[before.key] = _Kept(read, state, h)
            while len(self._kept) > self.KEEP:
                del self._kept[next(iter(self._kept))]

    def fresh_state(self, eid: str) -> tuple[Any, str]:
        """The state read from the database itself, never from a kept read (for checks of the reset)."""
        self.state_reads += 1
        return super().state(eid)

    def _run_reset(self, seed: int) -> None:
        fn = getattr(self.app, "reset_fn", None)
        if fn is None:
            return super()._run_reset(seed)
        try:
            fn(seed)
        except (OSError, RuntimeError) as exc:
            raise ResetError(f"reset of {self.app.name!r} to seed {seed} failed: {exc}") from exc


class _View(NamedTuple):
    key: tuple[object, ...]  # names the content of everything the undo log does not cover
    touched: dict[str, frozenset[str]]  # database file -> the tables written since its snapshot
    tables: dict[str, frozenset[str]]  # database file -> the tables the log covers


def _pristine_view(files: tuple[Path, ...]) -> _View | None:
    """For the state files ``files``: a key naming the content of everything the undo log does not
    cover (each database's snapshot token, each folder's entries), the tables written per database since
    its snapshot, and the tables the log covers per database; None when some database is not provably a
    copy of its snapshot (:func:`.undo.pristine`)."""
    key: list[object] = []
    touched: dict[str, frozenset[str]] = {}
    tables: dict[str, frozenset[str]] = {}
    for f in files:
        if f.is_dir():  # a store whose files are only ever added: its entries name its content
            key.append(("dir", str(f), tuple(sorted(os.listdir(f)))))
            continue
        p = pristine(f)
        if p is None:
            return None
        real = os.path.realpath(f)
        key.append(("db", real, p.token))
        touched[real], tables[real] = p.touched, p.tables
    return _View(tuple(key), touched, tables)


def _covered(reads: dict[str, frozenset[str]], tables: dict[str, frozenset[str]]) -> bool:
    """Whether the state read something, and only tables of the state's databases that the log covers."""
    return bool(reads) and all(p in tables and t and t <= tables[p] for p, t in reads.items())


def _untouched(reads: dict[str, frozenset[str]], touched: dict[str, frozenset[str]]) -> bool:
    return all(not (t & touched.get(p, frozenset())) for p, t in reads.items())


def free_port() -> int:
    """A free TCP port on loopback for an app's server."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_up(proc: subprocess.Popen[bytes], url: str, what: str, *, url_timeout: float, poll_s: float,
                  limit_s: float = 60.0) -> None:
    """Wait until ``url`` answers 200 while ``proc`` (the app's server) runs; a ``RuntimeError``
    saying ``what`` did not come up when the process exits or ``limit_s`` passes first."""
    deadline = time.monotonic() + limit_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=url_timeout) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not come up")
        time.sleep(poll_s)


@dataclass
class LoopbackServer:
    """An app's server process on 127.0.0.1, as a context manager: a subclass names the command
    (:meth:`command`, which also checks the install and writes what the server reads first), what to
    call it in errors, how long its first page may take, the app's path on the server, the page whose
    200 says it is up, and whether it runs in a session of its own (stopped with its process group)."""

    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    what: str = "the app's server"
    url_timeout: float = 10.0
    base_path: str = ""  # where the app lives on the server ("/tracker")
    up_path: str = "/"  # the page, below base_path, that answers 200 once the server is up
    own_session: bool = False  # PHP's built-in server forks workers that outlive a parent stopped alone

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.base_path}"

    def command(self) -> tuple[list[str], dict[str, str]]:  # argv and environment
        raise NotImplementedError

    def cwd(self) -> str | None:  # the server's working directory (None: this process's)
        return None

    def __enter__(self):  # noqa: ANN204
        self.port = self.port or free_port()
        argv, env = self.command()
        self.proc = subprocess.Popen(argv, env=env, cwd=self.cwd(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                     start_new_session=self.own_session)
        try:
            wait_until_up(self.proc, self.base_url + self.up_path, f"{self.what} on port {self.port}",
                          url_timeout=self.url_timeout, poll_s=0.3, limit_s=90)
        except RuntimeError:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        stop_server(self.proc)
        self.proc = None


def stop_server(proc: subprocess.Popen[bytes] | None) -> None:
    """Terminate an app's server (killed after 10 s) and reap it. A server started in a session of
    its own (``start_new_session=True``) is stopped with its whole process group: PHP's built-in
    server with ``PHP_CLI_SERVER_WORKERS`` forks workers that outlive a parent stopped alone."""
    if proc is None:
        return
    try:
        group = os.getpgid(proc.pid) == proc.pid
    except ProcessLookupError:
        group = False

    def send(sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(proc.pid, sig)
            else:
                os.kill(proc.pid, sig)

    send(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        send(signal.SIGKILL)
        proc.wait()
    if group:  # the workers may still be on their way out
        send(signal.SIGKILL)


def median_ms(fn: Callable[[], object], n: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    s = sorted(times)
    return s[len(s) // 2], times
