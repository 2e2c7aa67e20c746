"""The typed records design2code writes into its runs (``webgauge.records.Record``).

* :class:`GenerationRecord` - one generated site: model, strategy, instance, seed and the
  prompt set are fields; the generated pages are the run's blobs (``page:<name>``).
* :class:`PageScore` - the scores of one generated page against its reference.
* :class:`SiteScore` - one scored site: its :class:`PageScore` records plus the site summary.

Reports read them back with ``RunStore.typed(SiteScore)`` and never parse ids.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from webgauge.records import Record

__all__ = ["GenerationRecord", "PageScore", "SiteScore", "metric_value"]


@dataclass
class GenerationRecord(Record):
    SCHEMA: ClassVar[str] = "design2code.generation"
    VERSION: ClassVar[int] = 1
    model: str
    strategy: str
    instance: str
    seed: int
    instance_dir: str
    pages: list[dict]
    statuses: list[str]
    prompts: str = "webgauge"
    """``webgauge`` (ours, default), ``mrweb`` (the paper's Appendix C) or ``outside`` (made elsewhere)."""


@dataclass
class PageScore(Record):
    SCHEMA: ClassVar[str] = "design2code.page_score"
    VERSION: ClassVar[int] = 1
    model: str
    strategy: str
    instance: str
    seed: int
    page: str
    kind: str
    metrics: dict = field(default_factory=dict)
    """metric name -> number, ``"inf"``, ``None`` or ``{"missing": reason}`` (CLIP/LPIPS without weights)."""
    ref_size: list = field(default_factory=list)
    gen_size: list = field(default_factory=list)
    n_resources: int = 0
    n_generated_resources: int | None = None
    n_matched: int | None = None
    functional_detail: dict | None = None
    error: str | None = None
    reference: dict | None = None
    """Rendered references only: how the reference was measured and the scores against the
    recorded values (:func:`webgauge.design2code.score.score_site`)."""

    def value(self, metric: str) -> float | None:
        """The metric as a float (``inf`` for ``"inf"``), ``None`` when absent or missing."""
        return metric_value(self.metrics.get(metric))


@dataclass
class SiteScore(Record):
    SCHEMA: ClassVar[str] = "design2code.site_score"
    VERSION: ClassVar[int] = 1
    model: str
    strategy: str
    instance: str
    seed: int
    kind: str
    gen_item: str
    pages: list[PageScore]
    summary: dict
    generation_statuses: list[str] = field(default_factory=list)
    unexpected_requests: list = field(default_factory=list)
    prompts: str = "webgauge"
    url_match: str = "webgauge"


def metric_value(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        return float(v)
    return float(v) if isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v)) else None
