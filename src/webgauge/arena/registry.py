"""The one registry of arena task families, read by every entry point.

Two kinds of family live here:

- the arena's **own** families (:mod:`webgauge.arena.tasks`: the twelve apps served by
  :class:`~webgauge.arena.apps.server.ArenaServer`, plus plug-in families), always present;
- the **real-app** families (``roundup.*``, ``mediawiki.*``, ``oscar.*``: open-source apps
  installed with ``webgauge arena apps install NAME``, docs/arena-real-apps.md). Their names
  are always known; they are *available* when their app is installed. Choosing one whose app
  is missing fails with :class:`~webgauge.arena.realapps.AppNotInstalled`, whose one-line
  message is the command that installs it.

``webgauge arena run | tasks | sweep | safety | package | verify``, the gymnasium ids
(``webgauge/arena-<family>-v0``), the BrowserGym ids (``browsergym/webgauge.<family>``),
``webgauge arena serve``, the runner and the re-scorer all build tasks here
(:func:`build_tasks`, :func:`task_for`) and ask here which app a family runs on (:func:`app_of`).
The names are static tables (no world is built to list them); a test checks them against the
families the modules build.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import TypedDict

from .core.task import Task
from .realapps.base import AppNotInstalled

__all__ = ["OWN_FAMILIES", "REAL_FAMILIES", "FamilyStatus", "AppNotInstalled", "all_family_names", "app_of",
           "build_tasks", "family_status", "installed_apps", "is_installed", "real_tasks", "require_app", "select",
           "task_for"]

OWN_FAMILIES = (
    "account.rename", "account.revoke_key", "account.rotate_keys", "admin.count_status",
    "admin.deactivate_across_pages", "admin.deactivate_group", "admin.delete_user", "admin.flag_email",
    "admin.set_role", "board.drag", "board.multi_archive", "board.triage", "cal.book", "cal.booking_reference",
    "cal.cancel", "cal.cancel_team_day", "cal.wiki_review", "dash.ack_team", "dash.escalate", "dash.peak_month",
    "desks.book", "desks.team_visit", "forum.attach_file", "forum.carry_solution", "forum.count_solved",
    "forum.moderate", "forum.top_authors", "forum.upvote_solution", "forum.wiki_reply", "mail.archive_sender",
    "mail.cleanup", "mail.forward", "maps.drop_pin", "maps.nearest", "maps.route", "maps.share_place", "maps.zone",
    "media.details_resize", "media.match_brief", "media.rights_expiry", "media.share_to_brief", "media.tag_matches",
    "media.ticket_code", "shop.buy_variant", "shop.cancel_order", "shop.cheapest", "shop.mobile_address",
    "shop.promo_tab", "shop.reorder_from_mail", "shop.sticky_add", "strata.buy_again", "strata.mobile_cart",
    "strata.mobile_star", "strata.snooze_top", "wiki.lookup", "wiki.owner_to_admin", "wiki.team_retention",
    "wiki.update_fact",
)
"""The task family names of the arena's own built-in families (plug-in families come on top)."""

REAL_FAMILIES: dict[str, tuple[str, ...]] = {
    "roundup": ("roundup.close", "roundup.reassign", "roundup.new", "roundup.count", "roundup.bulk", "roundup.dup",
                "roundup.latest"),
    "mediawiki": ("mediawiki.census", "mediawiki.district", "mediawiki.older", "mediawiki.add", "mediawiki.new",
                  "mediawiki.sheet", "mediawiki.rename", "mediawiki.sync", "mediawiki.largest"),
    "oscar": ("oscar.photo", "oscar.variant", "oscar.review", "oscar.wish", "oscar.count", "oscar.admin_status",
              "oscar.admin_count", "oscar.admin_report", "oscar.admin_stock", "oscar.admin_price",
              "oscar.admin_voucher", "oscar.admin_retire"),
    "trac": ("trac.busiest", "trac.committer", "trac.tag", "trac.file", "trac.reassign", "trac.wiki", "trac.member",
             "trac.release", "trac.delete"),
    "spirit": ("spirit.unanswered", "spirit.last", "spirit.liked", "spirit.subscribe", "spirit.quote", "spirit.new",
               "spirit.moderate", "spirit.spam"),
}
"""Real app -> its task family names (each family's name starts with its app's name)."""


class FamilyStatus(TypedDict):
    """One family as ``webgauge arena tasks --families`` lists it."""
    family: str
    app: str | None  # None: the arena's own apps
    installed: bool
    install: str | None  # the command that installs the family's app, when it is missing


def app_of(family: str) -> str | None:
    """The real app ``family`` runs on (``"roundup"`` for ``roundup.close``), or None for an own family."""
    app = family.split(".", 1)[0]
    return app if family in REAL_FAMILIES.get(app, ()) else None


def all_family_names() -> tuple[str, ...]:
    """Every built-in family name, own and real, installed or not (no world is built)."""
    return (*OWN_FAMILIES, *(f for fams in REAL_FAMILIES.values() for f in fams))


def is_installed(app: str) -> bool:
    from .realapps import get_spec

    return get_spec(app).version() is not None


def installed_apps() -> list[str]:
    return [a for a in REAL_FAMILIES if is_installed(a)]


def require_app(app: str) -> str:
    """The app's installed version, or :class:`AppNotInstalled` naming the install command."""
    from .realapps import get_spec

    return get_spec(app).require()


def family_status() -> list[FamilyStatus]:
    """Every built-in family with its app and whether that app is installed."""
    have = {a: is_installed(a) for a in REAL_FAMILIES}
    rows: list[FamilyStatus] = [{"family": f, "app": None, "installed": True, "install": None} for f in OWN_FAMILIES]
    for app, fams in REAL_FAMILIES.items():
        rows += [{"family": f, "app": app, "installed": have[app],
                  "install": None if have[app] else f"webgauge arena apps install {app}"} for f in fams]
    return rows


def select(families: Iterable[str] | None) -> tuple[list[str] | None, dict[str, list[str] | None]]:
    """Split a family selection into own names (None: all own families) and real apps -> their names
    (None: all the app's families). No selection means the own families and every *installed* app;
    an app's name (``roundup``) selects all its families. Raises ``ValueError`` for a name nobody
    knows and :class:`AppNotInstalled` for a real family whose app is missing (nothing is built)."""
    if families is None:
        return None, {app: None for app in installed_apps()}
    own: list[str] = []
    real: dict[str, list[str] | None] = {}
    for name in dict.fromkeys(families):
        if name in REAL_FAMILIES:
            real[name] = None
        elif (app := app_of(name)) is not None:
            if real.get(app, []) is not None:
                real.setdefault(app, []).append(name)  # type: ignore[union-attr]
        else:
            own.append(name)
    for app in real:
        require_app(app)
    return own, real


def real_tasks(app: str, seeds: Iterable[int], families: Iterable[str] | None = None) -> list[Task]:
    """``app``'s tasks at ``seeds`` (built from the seeds' content; the app need not be installed)."""
    builder: Callable[..., list[Task]] = importlib.import_module(f"webgauge.arena.realapps.{app}.tasks").build_tasks
    return builder(seeds=tuple(seeds), families=None if families is None else list(families))


def build_tasks(seeds: Iterable[int] = (0, 1), families: Iterable[str] | None = None) -> list[Task]:
    """One task per (family, seed), own and real-app families alike (see :func:`select`)."""
    from . import tasks as own_tasks

    seeds = tuple(seeds)
    wanted = None if families is None else list(families)
    own, real = select(wanted)
    out: list[Task] = []
    if own is None or own:
        try:
            out += own_tasks.build_tasks(seeds, families=own)
        except ValueError:
            raise ValueError(_unknown(own or [])) from None
    for app, fams in real.items():
        out += real_tasks(app, seeds, fams)
    if wanted is not None and not out and seeds:
        raise ValueError(_unknown(wanted))
    return out


def _unknown(names: list[str]) -> str:
    from . import tasks as own_tasks

    own_known = sorted(set(OWN_FAMILIES) | set(own_tasks.FAMILIES))
    bad = [n for n in names if n not in own_known and app_of(n) is None and n not in REAL_FAMILIES]
    real = ", ".join(f"{app}.* ({', '.join(f.split('.', 1)[1] for f in fams)})" for app, fams in REAL_FAMILIES.items())
    return (f"no family matches {sorted(bad or names)}; own families: {', '.join(OWN_FAMILIES)}; "
            f"real-app families: {real} (or an app's name for all its families)")


def task_for(family: str, seed: int) -> Task:
    """The base task of ``family`` at ``seed`` (the very task :func:`build_tasks` gives)."""
    got = [t for t in build_tasks((seed,), families=[family]) if t.family == family]
    if not got:
        raise KeyError(f"no family {family!r}; `webgauge arena tasks --families` lists them")
    return got[0]
