"""``build_benchmark``: synthetic and real pages -> a reproducible benchmark folder.

For every page: serve it on loopback, open it in real Chromium, capture it once (full page;
pages taller than 5,500 px are dropped for every task and counted as ``page_too_tall``),
then let each task builder ask its questions, perturbing the live page where the task needs it
(and checking every perturbation). Pages that fail to load are recorded in the manifest and the
build goes on; so are pages that do not settle before a capture (reason ``unsettled``). The
same seed and sources give a byte-identical folder with the same manifest sha256; a new seed
gives a fresh private slice (new synthetic pages, new element choices). Each worker has its
own browser and reuses one live page from page to page (see ``docs/understand.md``,
"Building fast, exactly").
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
import shutil
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ..browser import Browser, RenderProfile
from ..pages import StaticServer, load_pages, serve_pages
from ..pages.synthetic import GENERATOR_VERSION, generate_page
from ..perturb import MIN_CHANGED_BOX, MIN_CHANGED_PAGE, PIXEL_TOLERANCE
from .checkpoint import Checkpoint, PageResult
from .export import write_card, write_manifest, write_questions, write_splits
from .human import apply_human_labels, read_human_labels
from .images import ImageStore
from .measurable import answer_pools, not_measurable
from .prompts import all_prompts
from .questions import TASKS, PageContext, SnapshotStore, hide_caret
from .relations import MAX_HEIGHT
from .tasks import BUILDERS

__all__ = ["build_benchmark", "build_benchmark_async", "BUILD_PROFILE", "FORMAT_VERSION", "synthetic_seed",
           "perturbation_sizes"]

FORMAT_VERSION = 1
BUILD_PROFILE = RenderProfile(width=1280, height=800, device_scale_factor=1.0)
#: Render flags of the build's browsers (added to the shared launch flags, for builds only): see
#: docs/understand.md, "Pixel-stable captures".
BUILD_FLAGS = ("--disable-partial-raster", "--disable-checker-imaging", "--num-raster-threads=1")


def synthetic_seed(seed: int, index: int) -> int:
    """The generator seed of the ``index``-th synthetic page of a benchmark seeded ``seed``."""
    return int.from_bytes(hashlib.sha256(f"understand:{seed}:{index}".encode()).digest()[:4], "big")


def perturbation_sizes(sizes: list) -> dict:
    """Per perturbation kind (and layout level): how many pairs passed the invariance checks,
    how many were kept and rejected as no-ops, and the changed-pixel share (mean, median, min,
    max; page-wide for layout and color, inside the target box for text)."""
    by: dict[str, list] = {}
    for kind, frac, ok in sizes:
        by.setdefault(kind, []).append((frac, ok))
    out = {}
    for kind, rows in sorted(by.items()):
        fr = sorted(f for f, _ in rows)
        n = len(fr)
        out[kind] = {"pairs": n, "kept": sum(ok for _, ok in rows), "noop_rejected": sum(not ok for _, ok in rows),
                     "noop_rate": round(sum(not ok for _, ok in rows) / n, 4),
                     "mean_changed": round(sum(fr) / n, 6),
                     "median_changed": round((fr[(n - 1) // 2] + fr[n // 2]) / 2, 6),
                     "min_changed": fr[0], "max_changed": fr[-1]}
    return out


def task_pages(outcomes: Counter, tasks) -> dict:
    """Per task: pages it kept questions from, pages it applied to but lost, pages it did not
    apply to, and the yield (kept over applied)."""
    out = {}
    for t in tasks:
        kept, lost, na = (outcomes.get(f"{t}:{o}", 0) for o in ("kept", "lost", "not_applicable"))
        out[t] = {"kept": kept, "lost": lost, "not_applicable": na,
                  "yield": round(kept / (kept + lost), 4) if kept + lost else None}
    return out


@dataclass
class _Source:
    page_id: str
    kind: str            # "synthetic" | "real"
    url: str = ""
    files: dict | None = None
    truth: dict | None = None


async def _open_page(browser, live, url: str, timeout: float):
    """``(live page, caret hidden)``: the worker's live page at ``url``, its previous page made
    fresh again (:meth:`~webgauge.browser.LivePage.reuse`: tabs, cookies, storage, history, recorded events
    cleared) when it can be, else a new one (a new browser context costs about 0.8 s a page).

    A reused context is the same as a fresh one for everything a build writes but the
    snapshots' ``blocked_requests``: page 11465 of the shared corpus requests an external
    background image (blocked offline) depending on when the browser parses and styles it, on
    some visits and not others. That list is a race in the browser, not page content, and the
    build's snapshot files leave it out (:class:`~webgauge.understand.questions.SnapshotStore`).
    Full-page screenshots go through CDP (:meth:`~webgauge.browser.LivePage.full_page_png`: the
    same pixels as Playwright's), and a focused text field's caret is hidden (:func:`hide_caret`)."""
    if live is not None and live.can_reuse(BUILD_PROFILE):
        try:
            await live.reuse(BUILD_PROFILE)
        except Exception:  # noqa: BLE001 - a page that cannot be made fresh is replaced
            with contextlib.suppress(Exception):
                await live.close()
            live = None
    elif live is not None:
        with contextlib.suppress(Exception):
            await live.close()
        live = None
    if live is None:
        # require_settled: a page that does not settle (or whose capture stays inconsistent) fails
        # with PageError("unsettled") and is recorded as a failure, never kept as a capture that
        # could differ next time
        live = await browser.new_page(BUILD_PROFILE, require_settled=True)
        live.timeout = timeout  # captures and reloads get the build's time limit too
        live.fast_full_page = True
    await live.goto(url, timeout=timeout)
    await live.freeze_animations()  # every capture and edit of the page sees one state (see PageContext)
    return live, await hide_caret(live)


#: drop reasons that lose a page the task applied to (every other reason: the page has nothing the
#: task asks about, e.g. no button)
LOSSES = ("check_failed", "no_kind_kept", "no_unambiguous_set")


def _outcome(got, drops, drops0, noop, noop0) -> str:
    """``kept`` (the task has questions on the page), ``lost`` (it applied, but every try was
    rejected by a check or as a no-op) or ``not_applicable``."""
    if got:
        return "kept"
    new = [k for k, v in drops.items() if v > drops0.get(k, 0)]
    if sum(noop.values()) > noop0 or any(k.split(":", 1)[-1] in LOSSES for k in new):
        return "lost"
    return "not_applicable"


async def _build_page(live, src: _Source, *, seed, tasks, crops, images, snapshots, timeout, caret_hidden=False,
                      all_layout_levels=False, reload_every_edit=False, timers=None) -> PageResult:
    res = PageResult()
    t0 = time.perf_counter()
    clean = await live.capture(full_page=True, with_aria=False)
    if timers is not None:
        timers["clean capture"] += time.perf_counter() - t0
    if clean.page_size[1] > MAX_HEIGHT:
        res.drops["page_too_tall"] += 1
        res.outcomes.update(f"{task}:not_applicable" for task in tasks)
        return res
    page_seed = int.from_bytes(hashlib.sha256(f"{seed}:{src.page_id}".encode()).digest()[:4], "big")
    ctx = PageContext(page_id=src.page_id, source=src.kind, live=live, clean=clean, truth=src.truth,
                      rng=random.Random(page_seed), seed=page_seed, images=images, snapshots=snapshots,
                      crops=crops, drops=res.drops, checks=res.checks, noop=res.noop, sizes=res.sizes,
                      rejected=res.rejected, fallbacks=res.fallbacks, extra_rejected=res.extra_rejected,
                      stats=res.stats, all_layout_levels=all_layout_levels, reload_every_edit=reload_every_edit,
                      caret_hidden=caret_hidden)
    out = []
    try:
        for task in tasks:
            t0 = time.perf_counter()
            drops0, noop0 = Counter(res.drops), sum(res.noop.values())
            got = await BUILDERS[task](ctx)
            out += got
            res.outcomes[f"{task}:{_outcome(got, res.drops, drops0, res.noop, noop0)}"] += 1
            if timers is not None:
                timers[f"task {task}"] += time.perf_counter() - t0
    finally:
        # the question images drawn in worker threads while the browser went on: wait for them
        # (also when a builder failed, so that no drawing outlives its page)
        t0 = time.perf_counter()
        paths = await ctx.drawn_images()
        if timers is not None:
            timers["wait for question images"] += time.perf_counter() - t0
    for q in out:
        q.images = [paths.get(i, i) for i in q.images]
    res.questions = out
    return res


async def build_benchmark_async(out: str | Path, *, seed: int = 0, synthetic: int = 8,
                                pages: Iterable[str | Path] = (), tasks: Iterable[str] = TASKS, crops: int = 4,
                                labels: str | Path | None = None, fmt: str = "jsonl", force: bool = False,
                                all_layout_levels: bool = False, timeout: float = 30.0,
                                concurrency: int = 2, progress: bool = True, reload_every_edit: bool = False,
                                stats: Counter | None = None, timers: Counter | None = None,
                                resume: bool = False) -> dict:
    """Build a benchmark into ``out`` and return its manifest (see module docstring).

    ``synthetic`` generated pages (half with irreversible actions) plus the real ``pages``
    (files or folders); ``crops`` is 4 (default) or 2 (the two-crop position diagnostic);
    ``labels`` is a JSONL of human labels that override automatic ones.
    ``all_layout_levels`` perturbs every page at all three layout levels (default: one seeded
    level per page, which keeps builds fast on small machines). ``concurrency`` pages are built
    at once, each worker in its own browser with one live page reused from page to page; the
    result does not depend on it (pages are merged in source order).
    Between two edits of a page the clean page comes back by undoing the edits in place where
    that is provably exact (:class:`webgauge.perturb.EditLog`) and by a reload elsewhere;
    ``reload_every_edit`` reloads after every edit instead (the old path, same output, kept for
    ``bench/understand_bench.py``). ``stats`` (a Counter), when given, counts the undos, the
    reloads and why an edit was not undone; ``timers`` (a Counter), when given, adds up the
    seconds spent per phase (clean capture, each task, waiting for question images; summed over
    pages, so they overlap when ``concurrency`` > 1). Neither is part of the benchmark.
    ``resume`` continues a build of ``out`` that was killed: the pages it finished are read back
    (:mod:`webgauge.understand.checkpoint`), the others built, and the folder is the one an
    uninterrupted build writes.
    """
    tasks = list(tasks)
    bad = [t for t in tasks if t not in BUILDERS]
    if bad:
        raise ValueError(f"unknown task(s) {bad}; choose from {list(TASKS)}")
    if crops not in (2, 4):
        raise ValueError(f"crops must be 4 (default) or 2 (the two-crop diagnostic), got {crops}")
    if fmt not in ("jsonl", "parquet"):
        raise ValueError(f"format must be 'jsonl' or 'parquet', got {fmt!r}")
    human_rows = read_human_labels(labels) if labels else []
    root = Path(out)
    refs = load_pages(list(pages)) if pages else []
    params = {"format_version": FORMAT_VERSION, "generator_version": GENERATOR_VERSION, "seed": seed,
              "synthetic": synthetic, "pages": [r.to_dict()["path"] or r.url for r in refs], "tasks": tasks,
              "crops": crops, "labels": str(labels or ""), "format": fmt, "all_layout_levels": all_layout_levels}
    checkpoint = Checkpoint(root, params)
    if resume and not force:
        done = checkpoint.load()
    else:
        if root.exists() and any(root.iterdir()):
            if not force:
                hint = " or --resume to finish the interrupted build there" if Checkpoint.exists(root) else ""
                raise FileExistsError(f"{root} is not empty; pass --force to overwrite it{hint} "
                                      "or choose another --out")
            shutil.rmtree(root)
        root.mkdir(parents=True, exist_ok=True)
        checkpoint.start()
        done = {}
    # synthetic pages are generated by the worker that builds them (memory stays flat however many)
    sources = [_Source(f"syn{i:03d}", "synthetic") for i in range(synthetic)]
    images, snapshots = ImageStore(root), SnapshotStore(root)
    common = dict(seed=seed, tasks=tasks, crops=crops, images=images, snapshots=snapshots, timeout=timeout,
                  all_layout_levels=all_layout_levels, reload_every_edit=reload_every_edit, timers=timers)
    with serve_pages(refs) as urls:
        for ref in refs:
            sources.append(_Source("real-" + ref.id.replace("/", "_").replace("~", "_"), "real", url=urls[ref.id]))
        results: list[PageResult | None] = [done.get(i) for i in range(len(sources))]
        todo = iter([(i, src) for i, src in enumerate(sources) if results[i] is None])  # shared by the workers
        bar = tqdm(total=len(sources), initial=len(done), desc="understand build", unit="page", disable=not progress)

        async def worker() -> None:
            # one browser per worker: two browsers render and encode their screenshots in
            # parallel, where the tabs of one browser queue
            live = None
            async with Browser.launch(extra_args=BUILD_FLAGS) as browser:
                for i, src in todo:
                    try:
                        if src.kind == "synthetic":
                            page = generate_page(synthetic_seed(seed, i), with_safety=(i % 2 == 0))
                            src = _Source(src.page_id, src.kind, files=page.files(), truth=page.truth)
                            with StaticServer(files=src.files) as srv:
                                live, caret = await _open_page(browser, live, srv.url("index.html"),
                                                               timeout)
                                res = await _build_page(live, src, caret_hidden=caret, **common)
                        else:
                            live, caret = await _open_page(browser, live, src.url, timeout)
                            res = await _build_page(live, src, caret_hidden=caret, **common)
                    except Exception as exc:  # noqa: BLE001 - a failed page is recorded, the build goes on
                        res = PageResult(failure={"page": src.page_id,
                                                  "reason": getattr(exc, "kind", type(exc).__name__),
                                                  "error": f"{type(exc).__name__}: {exc}"[:500]})
                        if live is not None:  # the next page gets a new one, whatever state this is in
                            with contextlib.suppress(Exception):
                                await live.close()
                            live = None
                    built.append(i)
                    checkpoint.save(i, res)
                    results[i] = res
                    bar.update(1)
                if live is not None:
                    await live.close()

        pending, built = sum(r is None for r in results), list[int]()
        await asyncio.gather(*(worker() for _ in range(max(0, min(concurrency, pending)))))
        bar.close()
    drops: Counter[str] = Counter()
    checks: Counter[str] = Counter()
    noop: Counter[str] = Counter()
    fallbacks: Counter[str] = Counter()
    extra: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    failures: list[Any] = []
    questions: list[Any] = []
    sizes: list[Any] = []
    rejected_rows: list[Any] = []
    for res in results:  # in source order, whatever order the pages finished in
        if res is None:  # every page is built, failed or resumed by now
            raise RuntimeError("a page was neither built nor recorded as failed")
        if res.failure is not None:
            failures.append(res.failure)
            continue
        questions += res.questions
        for total, part in ((drops, res.drops), (checks, res.checks), (noop, res.noop), (fallbacks, res.fallbacks),
                            (extra, res.extra_rejected), (outcomes, res.outcomes)):
            total.update(part)
        sizes += res.sizes
        rejected_rows += res.rejected
        if stats is not None:
            stats.update(res.stats)
    if stats is not None:
        stats["pages resumed"] += len(done)
        stats["pages built"] += len(built)
    human = apply_human_labels(questions, human_rows) if human_rows else {"applied": 0, "unmatched": 0}
    precision = human.pop("precision", {})
    # the random baseline draws free-text answers from the task's answer pool, kept apart from the
    # questions so that no row carries other rows' answers (generic answers where no target is known)
    pools, pool_sources = answer_pools(questions)
    (root / "answer_pools.json").write_text(json.dumps(pools, indent=1, sort_keys=True) + "\n")
    written = write_questions(root, questions, fmt)
    (root / "rejected.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rejected_rows))
    splits = write_splits(root, questions, seed)
    write_card(root, written, fmt, seed)
    counts = Counter(q.task for q in questions)
    info = {
        "format_version": FORMAT_VERSION, "seed": seed, "synthetic_pages": synthetic,
        "real_pages": [r.to_dict()["path"] or r.url for r in refs], "tasks": tasks, "crops": crops,
        "all_layout_levels": all_layout_levels,
        "format": fmt, "generator_version": GENERATOR_VERSION, "profile": BUILD_PROFILE.to_dict(),
        "prompts": {k: hashlib.sha256(v.encode()).hexdigest() for k, v in all_prompts().items()},
        "questions": dict(sorted(counts.items())), "dropped": dict(sorted(drops.items())),
        "checks_passed": dict(sorted(checks.items())), "noop_rejected": dict(sorted(noop.items())),
        "task_pages": task_pages(outcomes, tasks),
        "text_fallbacks": dict(sorted(fallbacks.items())), "extra_rejected": dict(sorted(extra.items())),
        "perturbation_size": perturbation_sizes(sizes),
        "noop_threshold": {"pixel_tolerance": PIXEL_TOLERANCE, "min_changed_page": MIN_CHANGED_PAGE,
                           "min_changed_box": MIN_CHANGED_BOX},
        "failures": failures, "human_labels": human,
        "label_precision": precision, "answer_pool_sources": pool_sources,
        "not_measurable": not_measurable(questions, pools),
        "splits": splits,
    }
    checkpoint.remove()
    if done:
        _prune_images(root, questions, rejected_rows)
    return write_manifest(root, info)


def _prune_images(root: Path, questions, rejected_rows) -> None:
    """After a resumed build: remove images no question or rejected sample refers to (drawn by a
    page that was killed before it finished and then built again), so the folder is the one an
    uninterrupted build writes."""
    used = {p for q in questions for p in q.images} | {r[k] for r in rejected_rows for k in ("clean", "perturbed")}
    for f in (root / "images").iterdir():
        if f"images/{f.name}" not in used:
            f.unlink()


def build_benchmark(out: str | Path, **kwargs) -> dict:
    """Synchronous :func:`build_benchmark_async`."""
    return asyncio.run(build_benchmark_async(out, **kwargs))
