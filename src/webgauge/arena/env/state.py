"""Reading the stored state of an episode through the control API (what validators judge)."""

from __future__ import annotations

from ..core.diff import StateDiff, diff_states
from .env_state import EnvState


class StateReading(EnvState):
    """Reading the stored state of an episode through the control API (what validators judge)."""

    async def refresh_state(self) -> dict:
        """Re-read the stored state from the control API (after an environment error, the
        episode is judged on what the app stored, not on the last cached step)."""
        self._state, _ = await self._control("state", self.episode_id)
        return self._state

    async def writes(self) -> list[dict]:
        """The app's write log of this episode (the control API's ``/writes``)."""
        return await self._control("writes", self.episode_id)

    def final_diff(self) -> StateDiff:
        """The whole episode's state change (seed to now)."""
        return diff_states(self.seed_state, self._state)

    @property
    def state(self) -> dict:
        return self._state

    @property
    def judged_state(self) -> dict:
        """The stored state plus the agent's ``done`` answer (what validators judge)."""
        from ..core.answers import with_answer

        return with_answer(self._state, self.done_answer)
