"""Fixtures for the arena tests: one real arena server (loopback HTTP, SQLite per episode), and
the oracle played over a list of tasks in real Chromium (two workers, each its own env), and
one task's oracle played step by step on a given env."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from webgauge.arena.agents.oracle import OracleAgent
from webgauge.arena.agents.pointer_oracle import PointerOracle
from webgauge.arena.apps.control import ControlClient
from webgauge.arena.apps.server import ArenaServer
from webgauge.arena.core.effects import check_effects
from webgauge.arena.env import ArenaEnv
from webgauge.arena.env.episode import play
from webgauge.arena.env.page_pool import PagePool


@contextlib.contextmanager
def accepted_connections(server: ArenaServer):
    """The sockets of the connections ``server``'s control port accepts meanwhile (a list that grows)."""
    accepted: list = []
    real = server._control.process_request

    def counting(request, client_address):
        accepted.append(request)
        return real(request, client_address)

    server._control.process_request = counting
    try:
        yield accepted
    finally:
        server._control.process_request = real


@pytest.fixture
def connection_counter():
    """:func:`accepted_connections`: ``with connection_counter(server) as accepted: ...``."""
    return accepted_connections


@pytest.fixture(scope="session")
def heldout_oracle_seed() -> int:
    """A held-out seed of a test secret: the pointer-only oracle plays every family at it
    (tests/arena/test_heldout_oracle.py)."""
    from webgauge.arena.tasks.heldout import heldout_seeds

    return heldout_seeds(b"heldout-oracle-test-secret-0123456789", 1)[0]


#: The public seeds the element-id oracle plays at: each family at one of them, in turn along the
#: family list (a second public world adds nothing the held-out world does not: every family is also
#: played in a held-out world, pointer-only, by the same script through the same element table).
PUBLIC_ORACLE_SEEDS = (0, 1)


def _at_public_seeds(families: list[str], seed: int | None = None):
    """The tasks of ``families``, each at one of :data:`PUBLIC_ORACLE_SEEDS` in turn along the list
    (family ``i`` at ``PUBLIC_ORACLE_SEEDS[i % 2]``): every family played once, every seed used.
    ``seed``: only the families that fall on that seed."""
    from webgauge.arena.tasks import build_tasks

    seeds = PUBLIC_ORACLE_SEEDS
    by_seed = {s: families[i::len(seeds)] for i, s in enumerate(seeds) if seed in (None, s)}
    tasks = [t for s, fams in by_seed.items() if fams for t in build_tasks((s,), families=fams)]  # one world a seed
    assert len(tasks) == sum(map(len, by_seed.values())), "a family built no task (or several) at its seed"
    return tasks


@pytest.fixture
def at_public_seeds():
    """``at_public_seeds(families, seed=None)``: the tasks the element-id oracle plays at the public
    seeds, each family at one of them (:func:`_at_public_seeds`)."""
    return _at_public_seeds


@pytest.fixture(scope="module")
def arena():
    with ArenaServer() as srv:
        yield srv


@pytest.fixture
def control(arena) -> ControlClient:
    return ControlClient(arena.control_url)


@pytest.fixture(scope="module")
async def page_pool():
    """Cleared pages kept between a module's tests, as the runner keeps them between episodes."""
    pool = PagePool()
    yield pool
    await pool.close()


@pytest.fixture
def oracle_steps():
    """``obs, outcome = await oracle_steps(env, task)`` resets ``env`` to ``task`` and plays the task's
    oracle one step at a time (the episode loop's judge aside). ``obs`` is the last observation;
    ``outcome`` is ``(success, validator errors + failed script steps + rejected step results,
    forbidden violations, steps)``."""

    async def run(env, t):
        obs = await env.reset(t)
        agent = OracleAgent(t)
        agent.start(t.public(), env.base)
        problems = []
        while True:
            step = await agent.act(obs)
            if "script step failed" in step.thought:
                problems.append(step.thought)
            out = await env.step(step.action)
            obs = out.observation
            if out.info["result"].get("rejected"):
                problems.append(out.info["result"])
            if out.terminated or out.truncated:
                break
        r = t.validate(env.judged_state)
        return obs, (r.success, r.errors + problems, check_effects(t.forbidden_effects, env.final_diff()), env.steps)

    return run


@pytest.fixture
def solve_with_oracle(browser, arena, page_pool):
    """``await solve_with_oracle(tasks)`` plays each task's oracle (two workers, on pages of the
    module's pool: cleared pages of its earlier tests; ``pointer_only=True``: the pointer-only oracle,
    in screenshot mode, within that mode's budget) and returns
    ``(records, failed)``: the episode record per task id, and for every task that did not
    succeed, or had a validator error, a rejected step or a forbidden effect, its
    ``(success, validator errors + rejected steps told in full, forbidden violations)``."""

    async def run(tasks, workers: int = 2, pointer_only: bool = False):
        queue, records = list(tasks), {}

        async def worker():
            env = ArenaEnv(browser, arena.app_url, ControlClient(arena.control_url), pool=page_pool)
            try:
                while queue:
                    t = queue.pop(0)
                    agent = PointerOracle(t, env) if pointer_only else OracleAgent(t)
                    rec, _ = await play(env, agent, t, keep_dom=False)
                    records[t.id] = rec
            finally:
                await env.close()

        await asyncio.gather(*(worker() for _ in range(workers)))
        failed = Failures()
        for tid, rec in records.items():
            rejected = [_rejection(rec.steps, i) for i, s in enumerate(rec.steps) if s.result.get("rejected")]
            if not rec.success or rec.validator_errors or rejected or rec.forbidden_violations:
                failed[tid] = (rec.success, rec.validator_errors + rejected, rec.forbidden_violations)
        return records, failed

    return run


class Failures(dict):
    """The failed tasks of :func:`solve_with_oracle`; ``str()`` tells each in full, one line per problem
    (pytest cuts an assertion message that is not a string to 240 characters)."""

    def __str__(self) -> str:
        lines = []
        for tid, (success, problems, violations) in self.items():
            lines.append(f"{tid}: success={success}")
            lines += [f"  - {p}" for p in problems] + [f"  - forbidden: {v}" for v in violations]
        return "\n".join(lines)


def _rejection(steps, i: int) -> str:
    """A rejected step told in full (pytest shortens dicts): its action, target, rejection and error,
    and the step before it (its action and where its time went), which left the page the step saw."""
    s = steps[i]
    target = s.result.get("target") or {}
    line = (f"step {s.step} {s.kind} {s.action.get('pointer', '')} on {target.get('tag')} {target.get('name')!r}: "
            f"{s.result['rejected']}: {s.result.get('error', '')}")
    if i:
        p = steps[i - 1]
        line += f" (after step {p.step} {p.kind} {p.action.get('pointer', '')}, timings {p.timings_ms})"
    return line


@pytest.fixture(scope="session")
def browser(arena_browser):
    """The arena's tests run on the arena's browser (Chromium's headless shell; tests/conftest.py)."""
    return arena_browser
