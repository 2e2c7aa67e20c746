"""Contamination control: a public slice and a held-out slice regenerated from a secret seed.

The generation procedure is public (this module): held-out seed ``i`` is the first 16 bytes
(128 bits) of ``HMAC-SHA256(secret, "arena-heldout-v2:<i>")`` read as an integer, offset to
:data:`~webgauge.arena.content.pools.HELDOUT_BASE` (2**64) so it never meets a public seed. Each seed
yields new site content and new task instances (targets, values and wording are drawn from
the seed too), through exactly the same families and validators as the public slice. Each
held-out world coins its own people, product lines, companies, towns and topics, and rewords
its instructions, with a key derived from its seed (:func:`~webgauge.arena.content.pools.content_key`;
:mod:`webgauge.arena.content`), so the public code run at seeds chosen without the secret does
not reproduce them; its dates and amounts come from parts of the calendar and of the amounts
that no public seed uses.

What stays private: the secret itself (a file or the ``WEBGAUGE_ARENA_SECRET`` environment
variable, never stored in a run or a package), and therefore the held-out seeds, their
instructions, fixture contents and validators' targets. Agents only ever receive
``Task.public()``; packages publish held-out tasks by hash only (see
:mod:`webgauge.arena.outputs.package`), and that hash is salted with the secret
(:func:`instruction_digest`): an HMAC, so nobody can confirm a guessed instruction by
hashing it. :func:`secret_commitment` publishes a hash of the secret so
that the held-out slice can be checked once the secret is revealed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import os
from dataclasses import dataclass
from pathlib import Path

from ..content.pools import HELDOUT_BASE
from ..core.task import Task

__all__ = ["PUBLIC_SEEDS", "SECRET_ENV", "GENERATION_PROCEDURE", "SEED_BITS", "Slices", "heldout_seeds",
           "instruction_digest", "load_secret", "make_slices", "secret_commitment"]

PUBLIC_SEEDS = (0, 1)
SECRET_ENV = "WEBGAUGE_ARENA_SECRET"
SALT = "arena-heldout-v2"
SEED_BITS = 128
OFFSET = HELDOUT_BASE  # held-out seeds never collide with public seeds (all below 2**64)

GENERATION_PROCEDURE = (
    f"held-out seed i = 2**64 + int.from_bytes(HMAC-SHA256(secret, '{SALT}:' + str(i))[:16], 'big'); "
    "tasks = webgauge.arena.build_tasks(seeds) with the same families, validators and forbidden effects as "
    "the public slice; site content is seeded from random.Random(f'{seed}:{site}'), names are coined and "
    "instruction templates reworded with key HMAC-SHA256('arena-heldout-content-v1', str(seed)).")


def load_secret(path: str | os.PathLike | None = None) -> bytes:
    """The held-out secret from ``path`` or the ``WEBGAUGE_ARENA_SECRET`` variable."""
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise FileNotFoundError(f"secret file {p} does not exist; create it with e.g. "
                                    f"`python -c 'import secrets; print(secrets.token_hex(32))' > {p}`")
        data = p.read_bytes().strip()
    else:
        data = os.environ.get(SECRET_ENV, "").strip().encode()
    if len(data) < 16:
        raise ValueError(f"the held-out secret must be at least 16 bytes; pass a secret file or set {SECRET_ENV}")
    return data


def secret_commitment(secret: bytes) -> str:
    """A public hash of the secret (publish it; reveal the secret later to prove the slice)."""
    return hashlib.sha256(b"arena-heldout-commitment:" + secret).hexdigest()


def instruction_digest(secret: bytes, instruction: str) -> str:
    """The salted hash a package publishes for a held-out instruction (HMAC-SHA256 keyed by a
    key derived from the secret): checkable once the secret is revealed, unguessable before."""
    key = hmac.new(secret, f"{SALT}:instruction-key".encode(), hashlib.sha256).digest()
    return hmac.new(key, instruction.encode(), hashlib.sha256).hexdigest()


def heldout_seeds(secret: bytes, n: int, public: tuple[int, ...] = PUBLIC_SEEDS) -> list[int]:
    """``n`` held-out seeds derived from ``secret`` (deterministic, distinct, never public)."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    out: list[int] = []
    i = 0
    while len(out) < n:
        mac = hmac.new(secret, f"{SALT}:{i}".encode(), hashlib.sha256).digest()
        seed = OFFSET + int.from_bytes(mac[:SEED_BITS // 8], "big")
        if seed not in public and seed not in out:
            out.append(seed)
        i += 1
    return out


@dataclass
class Slices:
    public: list[Task]
    heldout: list[Task]
    commitment: str

    @property
    def slice_of(self) -> dict[int, str]:
        """seed -> ``public`` / ``heldout`` (what :func:`~webgauge.arena.runner.run_arena` takes)."""
        return {**{t.seed: "public" for t in self.public}, **{t.seed: "heldout" for t in self.heldout}}

    @property
    def tasks(self) -> list[Task]:
        return self.public + self.heldout


def make_slices(secret: bytes, *, public_seeds: tuple[int, ...] = PUBLIC_SEEDS, n_heldout: int = 2,
                families: list[str] | None = None) -> Slices:
    """The public slice (``public_seeds``) and the held-out slice (``n_heldout`` secret seeds)."""
    from ..registry import build_tasks as build_any  # own and real-app families

    seeds = heldout_seeds(secret, n_heldout, tuple(public_seeds))
    heldout = [_opaque(t, secret) for t in build_any(tuple(seeds), families=families)]
    return Slices(public=build_any(tuple(public_seeds), families=families), heldout=heldout,
                  commitment=secret_commitment(secret))


def _opaque(task: Task, secret: bytes) -> Task:
    """A held-out task whose id does not reveal its seed (the agent sees the id)."""
    tag = hmac.new(secret, f"{SALT}:id:{task.id}".encode(), hashlib.sha256).hexdigest()[:10]
    return dataclasses.replace(task, id=f"{task.family}.h{tag}",
                               params={**task.params, "slice": "heldout", "source_id": task.id,
                                       "instruction_hmac": instruction_digest(secret, task.instruction)})
