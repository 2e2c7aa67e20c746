"""Translations of the understand suite to other evaluation harnesses.

- :mod:`.inspect_task`: the ``webgauge/understand`` task for Inspect (``inspect_ai``); needs
  ``inspect_ai`` installed (imported only when this module is).
- :mod:`.inspect_import`: an Inspect log back into a webgauge run directory, so
  ``webgauge understand report`` scores it exactly as a ``webgauge understand run``.
- :mod:`.lmms_eval`: ``webgauge understand export --format lmms-eval OUT``, a task folder
  lmms-eval's task manager loads (YAML, ``utils.py``, local data).
- :mod:`.samples`: what every harness sees of a question (prompt, images, reference) and the
  per-answer score, the one definition the adapters share.

Nothing here is imported by the suite itself; the adapters import the suite.
"""

from .samples import HarnessSample, per_answer_score, sample_of, samples_of

__all__ = ["HarnessSample", "per_answer_score", "sample_of", "samples_of"]
