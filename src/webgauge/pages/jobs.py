"""The capture job: one work item per page, run by :func:`webgauge.run.run_items`."""

from __future__ import annotations

import json
from pathlib import Path

from webgauge.browser import PageError, RenderProfile

from .source import PageRef, serve_pages

__all__ = ["capture_item", "capture_work_items"]


def capture_work_items(refs: list[PageRef], profile: RenderProfile, full_page: bool = True,
                       timeout: float = 30.0) -> list:
    """One ``WorkItem`` per page (kind ``capture``)."""
    from webgauge.run import WorkItem

    return [WorkItem(id=ref.id, kind="capture", payload={"page": ref.to_dict(), "profile": profile.to_dict(),
                                                         "full_page": full_page, "timeout": timeout})
            for ref in refs]


async def capture_item(item, ctx):
    """Capture one page; the record holds the snapshot (no pixels), blobs the PNG and elements.

    A page that fails raises :class:`PageError`, which the run records against the item.
    """
    from webgauge.run import ItemResult

    p = item.payload["page"]
    ref = PageRef(id=p["id"], path=Path(p["path"]) if p["path"] else None,
                  root=Path(p["root"]) if p["root"] else None, url=p["url"])
    prof = dict(item.payload["profile"])
    prof["allowed_origins"] = tuple(prof.get("allowed_origins", ()))
    profile = RenderProfile(**prof)
    browser = await ctx.browser()
    with serve_pages([ref]) as urls:
        try:
            snap = await browser.capture_url(urls[ref.id], profile, full_page=item.payload["full_page"],
                                             timeout=item.payload["timeout"], keep=True)
        except PageError:
            raise
    d = snap.to_dict()
    elements = d.pop("elements")
    record = {
        "page": p,
        "snapshot": d,
        "n_elements": len(elements),
        "n_visible": sum(1 for e in elements if e["visible"]),
        "n_clickable": sum(1 for e in elements if e["clickable"]),
    }
    return ItemResult(record=record, blobs={"screenshot.png": snap.png,
                                            "elements.json": json.dumps(elements).encode()})
