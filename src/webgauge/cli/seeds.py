"""``--seeds`` for the arena commands: whole numbers, ranges and lists (``0-9``, ``0,3,5``, ``7``).

The option may be repeated; every value is parsed here and the seeds are flattened in order
without repeats. A seed that is not a public seed (negative, not a number, 2**64 or more) is a
one-line usage error before anything runs.
"""

from __future__ import annotations

import re

import click

__all__ = ["SEEDS", "SeedsType", "flat_seeds", "parse_seeds"]

PUBLIC_LIMIT = 2 ** 64  # held-out seeds come from a secret (--secret, --heldout), never from the command line
_PART = re.compile(r"([0-9]+)(?:\s*-\s*([0-9]+))?")


def parse_seeds(text: str) -> tuple[int, ...]:
    """``"0-9"`` -> 0..9, ``"0,3,5"`` -> (0, 3, 5), ``"2-4,8"`` -> (2, 3, 4, 8); a ``ValueError`` naming the
    accepted forms otherwise."""
    out: list[int] = []
    for part in str(text).split(","):
        m = _PART.fullmatch(part.strip())
        if m is None:
            raise ValueError(f"{text!r} is not a seed list: write whole numbers from 0, a range like 0-9, "
                             "or a list like 0,3,5")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) is not None else lo
        if hi < lo:
            raise ValueError(f"{part.strip()!r}: a range goes up (write {hi}-{lo})")
        if hi >= PUBLIC_LIMIT:
            raise ValueError(f"{part.strip()!r}: public seeds are 0 to 2**64-1 (held-out seeds come from --secret)")
        if hi - lo >= 100_000:
            raise ValueError(f"{part.strip()!r}: at most 100000 seeds in one range")
        out.extend(range(lo, hi + 1))
    return tuple(out)


def flat_seeds(groups) -> tuple[int, ...]:
    """The seeds of a repeated ``--seeds`` option, in order, each once."""
    return tuple(dict.fromkeys(s for g in groups for s in ((g,) if isinstance(g, int) else g)))


class SeedsType(click.ParamType):
    name = "SEEDS"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        try:
            return parse_seeds(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


SEEDS = SeedsType()
