"""The design2code score report: visual, functional and fine-grained results, generation
statuses, the complexity analysis and side-by-side screenshots, as one static HTML page."""

from __future__ import annotations

import math
import shutil
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from webgauge.design2code.complexity import complexity_plots, complexity_rows
from webgauge.design2code.dataset import load_instances
from webgauge.design2code.runs import collect_scores

__all__ = ["write_report", "summary_rows", "REPORT_METRICS"]

REPORT_METRICS = [("mae", "MAE ↓"), ("psnr", "PSNR ↑"), ("ssim", "SSIM ↑"), ("nemd", "NEMD ↑"),
                  ("clip", "CLIP ↑"), ("lpips", "LPIPS ↓"), ("rer", "RER ↑"), ("navigation", "Nav ↑"),
                  ("images", "Img ↑"), ("backend", "Backend ↑"), ("position_offset", "Pos ↓"),
                  ("area_difference", "Area ↓"), ("color_difference", "ΔE00 ↓"), ("text_difference", "Text ↓")]
PAPER = ("MRWeb reference: with resource lists RER rises from under 1% (self-contained) to 0.64–0.83; "
         "best MAE about 63; models shift positions by 21.5% and areas by 35.6% on average.")


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        return float(v)
    return float(v) if isinstance(v, (int, float)) else None


def _missing_reason(records: list[dict], metric: str) -> str | None:
    for rec in records:
        for page in rec["pages"]:
            v = page.get(metric)
            if isinstance(v, dict) and "missing" in v:
                return v["missing"]
    return None


def summary_rows(records: list[dict]) -> list[dict]:
    """One row per (model, strategy): page means; CLIP/LPIPS are ``n/a`` when missing."""
    from webgauge.report import bootstrap_ci

    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for rec in records:
        groups[(rec["model"], rec["strategy"])].append(rec)
    rows = []
    for (model, strategy), recs in sorted(groups.items()):
        pages = [p for r in recs for p in r["pages"] if "error" not in p]
        row: dict[str, Any] = {"model": model, "strategy": strategy, "instances": len(recs), "pages": len(pages),
                               "failed_pages": sum(1 for r in recs for p in r["pages"] if "error" in p)}
        for key, _ in REPORT_METRICS:
            vals = [_num(p.get(key)) for p in pages]
            vals = [v for v in vals if v is not None]
            finite = [v for v in vals if math.isfinite(v)]
            if not vals:
                row[key] = "n/a"
            elif key in ("mae", "rer") and len(finite) >= 2:
                ci = bootstrap_ci(finite, seed=0)
                row[key] = (ci.mean, ci.lo, ci.hi) if hasattr(ci, "lo") else ci
            elif finite:
                row[key] = sum(finite) / len(finite)
            else:
                row[key] = "inf"
        rows.append(row)
    return rows


def _img(src: str, alt: str, width: int, caption: str | None = None):
    """An eager ``<img>`` (the shared helper lazy-loads, which a full-page PNG render never triggers)."""
    from webgauge.report import Markup

    tag = Markup('<img src="{}" alt="{}" width="{}">').format(src, alt, width)
    if caption is None:
        return Markup("<figure>{}</figure>").format(tag)
    return Markup("<figure>{}<figcaption>{}</figcaption></figure>").format(tag, caption)


def _fmt(v: Any, digits: int = 3) -> Any:
    """Numbers as fixed 3-decimal text (the table helper would round to one decimal)."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, float):
        return "inf" if v == math.inf else f"{v:.{digits}f}"
    if isinstance(v, tuple) and len(v) == 3:
        m, lo, hi = v
        return f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"
    return v


def write_report(score_dir: str | Path, out: str | Path, instances_dir: str | Path | None = None,
                 title: str = "design2code report") -> Path:
    """Write ``out/index.html`` (plus charts and screenshots) from a scoring run."""
    from webgauge.report import Markup, Section, table, write_html
    from webgauge.run import RunStore

    score_dir, out = Path(score_dir), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    records, failures = collect_scores(score_dir)
    store = RunStore(score_dir)
    inst_root = instances_dir
    if inst_root is None:  # the generation run records where its instances live
        gen_run = store.spec.get("spec", {}).get("options", {}).get("gen_run")
        if gen_run:
            inst_root = RunStore(gen_run).spec.get("spec", {}).get("options", {}).get("instances")
    instances = {i.id: i for i in load_instances(inst_root)} if inst_root else {}

    sections = []
    srows = [{k: _fmt(v) for k, v in r.items()} for r in summary_rows(records)]
    cols = ["model", "strategy", "instances", "pages", "failed_pages"] + [k for k, _ in REPORT_METRICS]
    from webgauge.report import Column
    notes = [PAPER, "MAE and RER show the mean with a 95% bootstrap interval over pages (seed 0). "
             "↑ higher is better, ↓ lower is better. Pos = max(|Δx|/W, |Δy|/H); Area = |A_ref−A_gen|/A_ref; "
             "ΔE00 = CIEDE2000 of text colours over optimally matched resources."]
    for metric in ("clip", "lpips"):
        reason = _missing_reason(records, metric)
        if reason:
            notes.append(f"{metric.upper()} is n/a: {reason}.")
    sections.append(Section("Summary", [table(srows, [Column(c, dict(REPORT_METRICS).get(c, c)) for c in cols])]
                            + notes))

    status_rows = []
    for rec in records:
        c = Counter(rec.get("generation_statuses", []))
        status_rows.append({"item": rec["item_id"], "model": rec["model"], "strategy": rec["strategy"],
                            **{s: c.get(s, 0) for s in ("ok", "truncated", "missing", "error")}})
    sections.append(Section("Generation status per site (pages)",
                            table(status_rows, ["item", "model", "strategy", "ok", "truncated", "missing", "error"])))

    page_rows = []
    for rec in records:
        for p in rec["pages"]:
            page_rows.append({"item": rec["item_id"], "page": p["page"], "error": p.get("error", ""),
                              **{k: _fmt(_num(p.get(k))) if _num(p.get(k)) is not None else "n/a"
                                 for k in ("mae", "nemd", "ssim", "rer", "navigation", "images", "backend",
                                           "position_offset", "area_difference")}})
    sections.append(Section("Pages", table(page_rows, ["item", "page", "mae", "nemd", "ssim", "rer", "navigation",
                                                       "images", "backend", "position_offset", "area_difference",
                                                       "error"])))

    crow = complexity_rows(records, instances)
    plots = complexity_plots(crow, out / "charts") if crow else []
    body: list[Any] = ["Each point is one generated page. Token counts use the documented regex tokenizer "
                       "(webgauge.design2code.complexity)."]
    charts = Markup("").join(_img(f"charts/{p.name}", p.stem, 420) for p in plots)
    body.append(Markup('<div style="display:flex;flex-wrap:wrap;gap:12px">{}</div>').format(charts))
    body.append(table([{k: _fmt(v) for k, v in r.items()} for r in crow],
                      ["model", "strategy", "instance", "page", "pixels", "n_resources", "tokens", "mae", "rer"]))
    sections.append(Section("Complexity: MAE and RER vs image size and resource-list length", body))

    shots = []
    (out / "shots").mkdir(exist_ok=True)
    shown = sorted(records, key=lambda r: (r["strategy"] == "sc", r["kind"] != "synthetic", r["item_id"]))[:3]
    for rec in shown:
        inst = instances.get(rec["instance"])
        if inst is None or not rec["screenshots"]:
            continue
        name = inst.page_names[0]
        sha = rec["screenshots"].get(name)
        if not sha:
            continue
        ref_dst = out / "shots" / f"{inst.id}-ref.png"
        shutil.copyfile(inst.root / inst.pages[0].screenshot, ref_dst)
        gen_dst = out / "shots" / f"{rec['item_id'].replace('/', '_')}-gen.png"
        gen_dst.write_bytes(store.blob(sha))
        pair = (_img(f"shots/{ref_dst.name}", "reference", 380, f"reference {inst.id}/{name}")
                + _img(f"shots/{gen_dst.name}", "generated", 380,
                       f"generated {rec['item_id']} ({rec['model']}, {rec['strategy']})"))
        shots.append(Markup('<div style="display:flex;gap:16px;align-items:flex-start">{}</div>').format(pair))
    if shots:
        sections.append(Section("Reference and generated screenshots", shots))
    if failures:
        sections.append(Section("Failed items", table(failures, ["item_id", "error"])))
    return write_html(out / "index.html", title, sections,
                      subtitle=f"scoring run {score_dir} — {len(records)} scored sites, {len(failures)} failed")
