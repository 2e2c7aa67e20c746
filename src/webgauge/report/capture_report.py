"""A contact sheet of a capture run: every page as a thumbnail, with its numbers and errors."""

from __future__ import annotations

import os
from pathlib import Path

from .html import details, fmt_num, image, link, table, write_html

__all__ = ["write_capture_report"]


def write_capture_report(run_dir: str | os.PathLike, out: str | os.PathLike | None = None) -> Path:
    """Write ``capture.html`` for a capture run directory and return its path."""
    from webgauge.run import RunStore

    run_dir = Path(run_dir)
    out = Path(out) if out else run_dir / "capture.html"
    store = RunStore(run_dir)
    rows, failures = [], []
    for r in sorted(store.records(kind="capture"), key=lambda r: r.item_id):
        if not r.ok or r.record is None:
            failures.append({"page": r.item_id, "error": (r.error or {}).get("message", "")[:300]})
            continue
        snap = r.record["snapshot"]
        png = os.path.relpath(store.blob_path(r.blobs["screenshot.png"]), out.parent)
        blocked = snap["blocked_requests"]
        rows.append({
            "page": r.item_id,
            "screenshot": link(png, image(png, alt=r.item_id, width=220)),
            "size": f"{int(snap['page_size'][0])}×{int(snap['page_size'][1])}",
            "elements": r.record["n_elements"],
            "visible": r.record["n_visible"],
            "clickable": r.record["n_clickable"],
            "blocked requests": len(blocked),
            "seconds": fmt_num(r.duration or 0.0, 2),
            "notes": details(f"{len(snap['warnings'])} warnings, {len(snap['dialogs'])} dialogs",
                             "; ".join(snap["warnings"] + [d["message"] for d in snap["dialogs"]]
                                       + [b["url"] for b in blocked[:20]]) or "none"),
        })
    spec = store.spec.get("environment", {})
    sections = [
        ("Pages", table(rows, ["page", "screenshot", "size", "elements", "visible", "clickable",
                               "blocked requests", "seconds", "notes"])),
        ("Failures", table(failures, ["page", "error"]) if failures else "none"),
    ]
    subtitle = (f"{len(rows)} captured, {len(failures)} failed · "
                f"{spec.get('chromium', '')} · webgauge {spec.get('webgauge', '')}")
    return write_html(out, "webgauge capture", sections, subtitle=subtitle)
