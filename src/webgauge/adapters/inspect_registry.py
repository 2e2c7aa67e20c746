"""What Inspect loads through the ``inspect_ai`` entry point named ``webgauge``.

Importing this module registers the tasks ``webgauge/understand`` and ``webgauge/design2code``
and the model provider ``webgauge/<webgauge model spec>`` with Inspect.
"""

from __future__ import annotations

from webgauge.design2code.adapters.inspect_task import design2code
from webgauge.models.adapters.inspect_provider import WebgaugeModelAPI
from webgauge.understand.adapters.inspect_task import understand

__all__ = ["WebgaugeModelAPI", "design2code", "understand"]
