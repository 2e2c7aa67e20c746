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

__all__ = ["write_report", "summary_rows", "mrweb_rer_rows", "write_scores_csv", "REPORT_METRICS"]

REPORT_METRICS = [("mae", "MAE ↓"), ("psnr", "PSNR ↑"), ("ssim", "SSIM ↑"), ("nemd", "NEMD ↑"),
                  ("clip", "CLIP ↑"), ("lpips", "LPIPS ↓"), ("rer", "RER ↑"), ("navigation", "Nav ↑"),
                  ("images", "Img ↑"), ("backend", "Backend ↑"), ("position_offset", "Pos ↓"),
                  ("area_difference", "Area ↓"), ("color_difference", "ΔE00/100 ↓"), ("text_difference", "Text ↓")]
D2C_REPORT_METRICS = [("d2c_block", "Block-Match ↑"), ("d2c_text", "Text ↑"), ("d2c_position", "Position ↑"),
                      ("d2c_color", "Color ↑"), ("d2c_clip", "CLIP ↑"), ("d2c_final", "Overall ↑"),
                      ("d2c_final_noclip", "Overall w/o CLIP ↑")]
CSV_METRICS = ("mae", "psnr", "ssim", "nemd", "clip", "lpips", "rer", "navigation", "images", "backend",
               "position_offset", "area_difference", "color_difference", "color_difference_raw", "text_difference",
               *(k for k, _ in D2C_REPORT_METRICS))
PAPER = ("MRWeb reference: with resource lists RER rises from under 1% (self-contained) to 0.64–0.83; "
         "best MAE about 63; models shift positions by 21.5% and areas by 35.6% on average.")


def _pages(records: list) -> list:
    return [p for r in records for p in r.pages if not p.error]


def _finite(metric: str):
    """A metric getter for the scoring kit: infinite values (PSNR of identical pages) and
    missing ones (CLIP/LPIPS without weights) do not enter the mean."""
    def get(page):
        v = page.value(metric)
        return v if v is not None and math.isfinite(v) else None
    get.__name__ = metric
    return get


def summary_rows(records: list, metrics: list[tuple[str, str]] = REPORT_METRICS) -> list[dict]:
    """One row per (model, strategy): the mean of every metric over scored pages with a 95%
    cluster-bootstrap interval clustered by **instance** (``webgauge.report.summary``);
    CLIP/LPIPS are ``n/a`` when missing, PSNR ``inf`` when every page is identical. ``metrics``:
    the (key, label) pairs to summarise (MRWeb's by default)."""
    from webgauge.report.summary import summarize

    groups: dict[tuple[str, str], list] = defaultdict(list)
    for rec in records:
        groups[(rec.model, rec.strategy)].append(rec)
    pages = _pages(records)
    per_metric = {key: {(s.group["model"], s.group["strategy"]): s
                        for s in summarize(pages, _finite(key), by=("model", "strategy"), cluster="instance")}
                  for key, _ in metrics}
    rows = []
    for (model, strategy), recs in sorted(groups.items()):
        mine = _pages(recs)
        row: dict[str, Any] = {"model": model, "strategy": strategy, "instances": len(recs), "pages": len(mine),
                               "failed_pages": sum(1 for r in recs for p in r.pages if p.error)}
        for key, _ in metrics:
            s = per_metric[key].get((model, strategy))
            if s is not None and s.n:
                row[key] = (s.mean, s.lo, s.hi)
            elif any(p.value(key) == math.inf for p in mine):
                row[key] = "inf"
            else:
                row[key] = "n/a"
        rows.append(row)
    return rows


def mrweb_rer_rows(records: list) -> list[dict]:
    """RER as MRWeb aggregates it: a plain per-page mean over the pages that **every**
    compared (model, strategy) scored, with no interval."""
    by_group: dict[tuple[str, str], dict[tuple[str, str], float]] = defaultdict(dict)
    for p in _pages(records):
        v = p.value("rer")
        if v is not None:
            by_group[(p.model, p.strategy)][(p.instance, p.page)] = v
    if not by_group:
        return []
    shared = set.intersection(*(set(d) for d in by_group.values()))
    return [{"model": m, "strategy": s, "pages": len(shared),
             "rer": sum(d[k] for k in shared) / len(shared) if shared else "n/a"}
            for (m, s), d in sorted(by_group.items())]


def write_scores_csv(records: list, path: str | Path) -> Path:
    """One row per scored page (``pair,model,strategy,instance,page,<metrics>``), the form
    ``webgauge design2code iqa --scores`` reads: a rating study rates the pairs by ``pair``."""
    import csv

    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["pair", "model", "strategy", "instance", "page", *CSV_METRICS])
        for rec in records:
            for p in rec.pages:
                if p.error:
                    continue
                vals = [p.value(m) for m in CSV_METRICS]
                w.writerow([f"{rec.item_id}/{p.page}", p.model, p.strategy, p.instance, p.page,
                            *["" if v is None else repr(v) if math.isfinite(v) else "inf" for v in vals]])
    return path


def _missing_reason(records: list, metric: str) -> str | None:
    for rec in records:
        for page in rec.pages:
            v = page.metrics.get(metric)
            if isinstance(v, dict) and "missing" in v:
                return v["missing"]
    return None


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
    from webgauge.report.summary import RESAMPLES, SEED
    prompt_sets = sorted({r.prompts for r in records})
    url_match = sorted({r.url_match for r in records})
    notes = [PAPER,
             f"Prompt set: {', '.join(prompt_sets) or 'n/a'} (webgauge = ours, the richer resource list; "
             "mrweb = the paper's Appendix C prompts; outside = pages generated elsewhere). "
             f"URL matching for RER: {', '.join(url_match) or 'n/a'} (webgauge = our normalisation; mrweb = MRWeb's "
             "href/src form with a link's fragment alone; exact = as written).",
             f"Every metric shows the mean over pages with a 95% cluster-bootstrap interval over instances "
             f"({RESAMPLES} resamples, seed {SEED}). ↑ higher is better, ↓ lower is better. "
             "NEMD is MRWeb's definition at full resolution with white padding (not the paper's random-noise canvas). "
             "Pos = max(|Δx|/W, |Δy|/H); Area = |A_ref−A_gen|/A_ref; ΔE00/100 = CIEDE2000 of text colours over "
             "optimally matched resources on MRWeb's scale (raw ΔE00 in scores.csv); Text over resources with text."]
    rendered = sum(1 for r in records for p in r.pages if p.reference)
    if rendered:
        notes.append(f"{rendered} imported reference pages were rendered beside their candidates in the same browser "
                     "and profile and measured there (MRWeb's recorded values are kept beside, under "
                     "reference.recorded); their remote images were answered offline by local stand-ins of the "
                     "reference box's size, for reference and candidate alike. Images on those pages = share of the "
                     "reference's images whose URL the generation uses (matched like RER), not whether the network "
                     "answered.")
    for metric in ("clip", "lpips"):
        reason = _missing_reason(records, metric)
        if reason:
            notes.append(f"{metric.upper()} is n/a: {reason}.")
    notes.append("ΔE00/100 is clamped at 1 (one minus MRWeb's colour similarity max(0, 1 − ΔE00/100)); "
                 "the raw, unclamped ΔE00 is color_difference_raw in scores.csv.")
    sections.append(Section("MRWeb's metrics (source: MRWeb, Wan et al., 2025)",
                            [table(srows, [Column(c, dict(REPORT_METRICS).get(c, c)) for c in cols])] + notes))
    if any(k in p.metrics for p in _pages(records) for k, _ in D2C_REPORT_METRICS):
        drows = [{k: _fmt(v) for k, v in r.items()} for r in summary_rows(records, D2C_REPORT_METRICS)]
        dcols = ["model", "strategy", "instances", "pages"] + [k for k, _ in D2C_REPORT_METRICS]
        dnotes = ["Design2Code's visual score (Si et al., 2024), as its published visual_score.py computes it: text "
                  "blocks found by its two-colour rendering in its 1280x720 window, blocks merged and matched on "
                  "text similarity (pairs under 0.5 dropped); Block-Match = matched block area over all block area, "
                  "Text = mean similarity, Position = 1 − max(|Δx|, |Δy|) of box centres (fractions of each "
                  "screenshot), Color = max(0, 1 − ΔE00/100) of the text pixels' mean colours, CLIP on the "
                  "screenshots with text inpainted; Overall = 0.2 × each of the five. Overall w/o CLIP (webgauge's) "
                  "= mean of the four block scores. Unlike the published code, a candidate is never truncated for "
                  "repeating itself (src/webgauge/design2code/README.md)."]
        reason = _missing_reason(records, "d2c_clip")
        if reason:
            dnotes.append(f"CLIP and Overall are n/a: {reason}.")
        sections.append(Section("Design2Code's visual score (source: Design2Code, Si et al., 2024)",
                                [table(drows, [Column(c, dict(D2C_REPORT_METRICS).get(c, c)) for c in dcols])]
                                + dnotes))
    mrows = mrweb_rer_rows(records)
    if mrows:
        sections.append(Section("RER as MRWeb aggregates it", [
            table([{k: _fmt(v) for k, v in r.items()} for r in mrows], ["model", "strategy", "pages", "rer"]),
            "Plain per-page mean over the pages every compared run scored (no interval), as in the paper."]))
    write_scores_csv(records, out / "scores.csv")

    status_rows = []
    for rec in records:
        c = Counter(rec.generation_statuses)
        status_rows.append({"item": rec.item_id, "model": rec.model, "strategy": rec.strategy,
                            **{s: c.get(s, 0) for s in ("ok", "truncated", "missing", "error")}})
    sections.append(Section("Generation status per site (pages)",
                            table(status_rows, ["item", "model", "strategy", "ok", "truncated", "missing", "error"])))

    page_rows = []
    for rec in records:
        for p in rec.pages:
            page_rows.append({"item": rec.item_id, "page": p.page, "error": p.error or "",
                              **{k: _fmt(p.value(k)) if p.value(k) is not None else "n/a"
                                 for k in ("mae", "nemd", "ssim", "rer", "navigation", "images", "backend",
                                           "position_offset", "area_difference")}})
    sections.append(Section("Pages", table(page_rows, ["item", "page", "mae", "nemd", "ssim", "rer", "navigation",
                                                       "images", "backend", "position_offset", "area_difference",
                                                       "error"])))

    crow = complexity_rows(records, instances)
    plots = complexity_plots(crow, out / "charts") if crow else []
    body: list[Any] = ["Each point is one generated page; colours are models, markers strategies, each with "
                       "its own trend line (not pooled). Token counts use the documented regex tokenizer "
                       "(webgauge.design2code.complexity)."]
    charts = Markup("").join(_img(f"charts/{p.name}", p.stem, 420) for p in plots)
    body.append(Markup('<div style="display:flex;flex-wrap:wrap;gap:12px">{}</div>').format(charts))
    body.append(table([{k: _fmt(v) for k, v in r.items()} for r in crow],
                      ["model", "strategy", "instance", "page", "pixels", "n_resources", "tokens", "mae", "rer"]))
    sections.append(Section("Complexity: MAE and RER vs image size and resource-list length", body))

    shots = []
    (out / "shots").mkdir(exist_ok=True)
    shown = sorted(records, key=lambda r: (r.strategy == "sc", r.kind != "synthetic", r.item_id))[:3]
    for rec in shown:
        inst = instances.get(rec.instance)
        if inst is None or not rec.screenshots:
            continue
        name = inst.page_names[0]
        sha = rec.screenshots.get(name)
        if not sha:
            continue
        ref_dst = out / "shots" / f"{inst.id}-ref.png"
        shutil.copyfile(inst.root / inst.pages[0].screenshot, ref_dst)
        gen_dst = out / "shots" / f"{rec.item_id.replace('/', '_')}-gen.png"
        gen_dst.write_bytes(store.blob(sha))
        pair = (_img(f"shots/{ref_dst.name}", "reference", 380, f"reference {inst.id}/{name}")
                + _img(f"shots/{gen_dst.name}", "generated", 380,
                       f"generated {rec.item_id} ({rec.model}, {rec.strategy})"))
        shots.append(Markup('<div style="display:flex;gap:16px;align-items:flex-start">{}</div>').format(pair))
    if shots:
        sections.append(Section("Reference and generated screenshots", shots))
    if failures:
        sections.append(Section("Failed items", table(failures, ["item_id", "error"])))
    return write_html(out / "index.html", title, sections,
                      subtitle=f"scoring run {score_dir} — {len(records)} scored sites, {len(failures)} failed")
