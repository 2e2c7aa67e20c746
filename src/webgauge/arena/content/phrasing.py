"""How a held-out world words its instructions: the public templates, rewritten per world.

Every family picks its instruction among a few public sentence templates
(:func:`webgauge.arena.content.pools.phrase`). In a held-out world those templates are not used as
they stand: a PRNG keyed with the world's content key (from its secret seed) rewrites each
chosen template, swapping set phrases for equivalents ("Reply with" / "Respond with",
"Sign in" / "Log in", ...), and frames the whole instruction with an opening and a closing
chosen the same way ("Task for you: ... Thanks."). Neither changes what is asked: fields,
names and values are untouched, and the validators judge stored state, not wording.

:func:`phrasing_for` activates a world's phrasing while a family builds its task (the
registry in :mod:`webgauge.arena.tasks` wraps every family in it); public seeds get an
identity phrasing, so public instructions are exactly the templates. :func:`recording`
collects the templates used, which is how ``arena report --variety`` measures how many
held-out instructions share a template with the public slice.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import random
import re
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["Phrasing", "phrasing_for", "rewrite", "frame", "recording", "Recorded", "OPENERS", "CLOSERS", "SWAPS"]

OPENERS = ("", "Task for you: ", "Quick task: ", "Next on the list: ", "When you get a moment: ", "Request: ",
           "Today's errand: ", "One job for you: ", "From the team's to-do list: ", "A small request: ",
           "Follow-up item: ", "Assignment: ", "Ticket for you: ", "Here is what I need. ", "New request: ",
           "Please handle this one. ")
CLOSERS = ("", " Thanks.", " Thank you.", " Thanks in advance.", " Much appreciated.", " Cheers.",
           " That is all for now.", " Appreciated.", " Thanks a lot.", " Many thanks.")

SWAPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"\bReply with\b", ("Respond with", "Answer with")),
    (r"\breply with\b", ("respond with", "answer with")),
    (r"\bAnswer with\b", ("Reply with", "Respond with")),
    (r"\banswer with\b", ("reply with", "respond with")),
    (r"\btell me\b", ("let me know",)),
    (r"\bTell me\b", ("Let me know",)),
    (r"\bLook up\b", ("Check", "Find")),
    (r"\blook up\b", ("check", "find")),
    (r"^Find\b", ("Locate", "Look up")),
    (r"\bSign in\b", ("Log in",)),
    (r"\bsign in\b", ("log in",)),
    (r"\bLog in\b", ("Sign in",)),
    (r"\blog in\b", ("sign in",)),
    (r"\bthe docs page\b", ("the wiki page", "the documentation page")),
    (r"\bin the docs\b", ("in the wiki", "in the documentation")),
    (r"\bexactly once\b", ("only once", "a single time")),
    (r"\bthe cart\b", ("the shopping cart",)),
    (r"^Book\b", ("Reserve",)),
    (r"^Reserve\b", ("Book",)),
    (r"\bmake sure\b", ("ensure",)),
    (r"\bMake sure\b", ("Ensure",)),
    (r"\band nobody else\b", ("and no one else",)),
    (r"\band no other\b", ("and not any other",)),
    (r"\bLeave every other\b", ("Keep every other",)),
)
"""Set phrases and the equivalents a held-out world may say instead (regex on template text, never on fields)."""

_FIELD = re.compile(r"(\{[^{}]*\})")


@dataclass(frozen=True)
class Phrasing:
    """One world's phrasing: ``None`` key means the public identity."""

    key: bytes | None = None

    def _rng(self, what: str, text: str) -> random.Random:
        assert self.key is not None
        return random.Random(hmac.new(self.key, f"arena-phrasing-v1:{what}:{text}".encode(), hashlib.sha256).digest())

    def rewrite(self, template: str) -> str:
        """The world's version of a template (fields such as ``{title}`` kept as they are)."""
        if self.key is None:
            return template
        rng = self._rng("swap", template)
        parts = _FIELD.split(template)
        for i in range(0, len(parts), 2):  # even parts are text, odd parts are {fields}
            for pattern, alternatives in SWAPS:
                if rng.random() < 0.7:
                    parts[i] = re.sub(pattern, lambda _m, alts=alternatives: rng.choice(alts), parts[i])
        return "".join(parts)

    def frame(self, family: str) -> tuple[str, str]:
        """``(opening, closing)`` around the family's instructions in this world (never both empty)."""
        if self.key is None:
            return "", ""
        rng = self._rng("frame", family)
        opener, closer = rng.choice(OPENERS), rng.choice(CLOSERS)
        if not opener and not closer:
            opener = rng.choice(OPENERS[1:])
        return opener, closer


_CURRENT: ContextVar[Phrasing] = ContextVar("arena_phrasing", default=Phrasing())
_RECORD: ContextVar[Recorded | None] = ContextVar("arena_phrasing_record", default=None)


@dataclass
class Recorded:
    """The templates (as rewritten) used while :func:`recording` was active, and the frame."""

    templates: list[str]
    opener: str = ""
    closer: str = ""

    @property
    def signature(self) -> tuple[str, ...]:
        """What identifies an instruction's wording: its frame and its templates, in order."""
        return (self.opener, *self.templates, self.closer)

    @property
    def core(self) -> tuple[str, ...]:
        """The templates alone (what a held-out instruction says inside its frame)."""
        return tuple(self.templates)


@contextlib.contextmanager
def phrasing_for(key: bytes | None) -> Iterator[Phrasing]:
    """Use the phrasing of the world keyed by ``key`` (``None``: public, templates as they are)."""
    token = _CURRENT.set(Phrasing(key))
    try:
        yield _CURRENT.get()
    finally:
        _CURRENT.reset(token)


@contextlib.contextmanager
def recording() -> Iterator[Recorded]:
    """Collect the templates :func:`rewrite` hands out (and the frame :func:`frame` applies)."""
    rec = Recorded([])
    token = _RECORD.set(rec)
    try:
        yield rec
    finally:
        _RECORD.reset(token)


def rewrite(template: str) -> str:
    """The current world's version of ``template`` (recorded if a recording is active)."""
    out = _CURRENT.get().rewrite(template)
    rec = _RECORD.get()
    if rec is not None:
        rec.templates.append(out)
    return out


def frame(family: str, instruction: str) -> str:
    """``instruction`` inside the current world's opening and closing for ``family``."""
    opener, closer = _CURRENT.get().frame(family)
    rec = _RECORD.get()
    if rec is not None:
        rec.opener, rec.closer = opener, closer
    return f"{opener}{instruction}{closer}"
