"""Building a benchmark in real Chromium: every task's labels on synthetic pages match the
generator's truth, perturbation checks hold, exports are complete, the same seed is byte-identical."""

import json
import re

import pytest
from PIL import Image

from webgauge.browser import Snapshot
from webgauge.pages.synthetic import generate_page
from webgauge.perturb import TEXT_KINDS
from webgauge.understand import read_questions, relation, ui_group
from webgauge.understand.build import build_benchmark, synthetic_seed
from webgauge.understand.labeller import label_of

pytestmark = pytest.mark.browser


def _truth(manifest, page_id):
    i = int(page_id[3:])
    return generate_page(synthetic_seed(manifest["seed"], i), with_safety=(i % 2 == 0)).truth


def _snap(root, snap_id):
    return Snapshot.from_dict(json.loads((root / "snapshots" / f"{snap_id}.json").read_text()))


def _syn(qs, task):
    out = [q for q in qs if q.task == task and q.source == "synthetic"]
    assert out, f"no synthetic {task} questions"
    return out


def test_every_task_is_built_and_checked(bench):
    root, manifest = bench
    assert set(manifest["questions"]) == {"position", "ui_group", "form_fill", "hint_text", "color", "text",
                                          "layout", "safety"}
    assert not manifest["failures"]
    for family in ("color", "low_contrast", "text", "layout", "hint_text"):
        assert manifest["checks_passed"].get(f"{family}:ok", 0) >= 1, family
    qs = read_questions(root)
    assert {q.source for q in qs} == {"synthetic", "real"}
    for q in qs:
        for img in q.images:
            assert (root / img).read_bytes()[:4] == b"\x89PNG"


def test_position_targets_follow_the_boxes(bench):
    root, manifest = bench
    for q in _syn(read_questions(root), "position"):
        snap = _snap(root, q.snapshot)
        boxes = [snap.by_path()[p].box for p in q.elements]
        assert len(q.images) == 5 and len(q.target) == 6
        for key, rel in q.target.items():
            i, j = (int(x) - 1 for x in key.split("-"))
            assert relation(boxes[i], boxes[j]) == rel
        assert q.difficulty in ("easy", "mid", "hard")


def test_ui_group_targets_are_generator_truth_and_the_heuristic_agrees(bench):
    # the labeller is precision first: where it decides a group, it is the generator's; it may decline
    root, manifest = bench
    decided = 0
    for q in _syn(read_questions(root), "ui_group"):
        truth = _truth(manifest, q.page)
        snap = _snap(root, q.snapshot)
        el = snap.by_path()[q.elements[0]]
        rec = next(r for r in truth["elements"] if r["id"] == el.attrs.get("id"))
        assert q.target == rec["group"] and q.target_source == "generator"
        got = ui_group(snap, el)
        assert got in (None, q.target), (q.id, got, q.target)
        decided += got is not None
    assert decided >= 3


def test_form_and_hint_targets(bench):
    root, manifest = bench
    qs = read_questions(root)
    for q in _syn(qs, "form_fill"):
        field = next(f for f in _truth(manifest, q.page)["fields"] if f["label"] == q.meta["label"])
        assert q.target == field["expected_value"]
        assert q.difficulty == ("easy" if field["placeholder"] else "hard")
    for q in _syn(qs, "hint_text"):
        el = _snap(root, q.snapshot).by_path()[q.elements[0]]
        field = next(f for f in _truth(manifest, q.page)["fields"] if f["id"] == el.attrs.get("id"))
        assert q.target == field["placeholder"] and "placeholder" not in el.attrs


def test_robustness_and_safety_targets(bench):
    root, manifest = bench
    qs = read_questions(root)
    for q in _syn(qs, "color"):
        assert q.target == _truth(manifest, q.page)["cta"]["label"]
        if q.variant == "color":
            assert q.meta["perturbation"]["changes"]
    text = _syn(qs, "text")
    for q in text:
        if q.variant != "clean":
            assert q.meta["perturbed_label"] != q.target
            assert label_of(_snap(root, q.snapshot).by_path()[q.elements[0]]) == q.meta["perturbed_label"]
    assert {q.variant for q in text} - {"clean"} <= {f"text-{k}" for k in TEXT_KINDS}
    # no kept pair is pixel-identical to its clean page (no-op pairs are rejected and counted)
    clean = {q.pair: q for q in qs if q.variant == "clean" and q.pair}
    kept = [q for q in qs if q.task in ("color", "text", "layout") and q.variant != "clean"]
    for q in kept:
        a, b = (Image.open(root / x.images[0]).convert("RGB").tobytes() for x in (clean[q.pair], q))
        assert a != b, q.id
    assert kept and set(manifest["perturbation_size"]) >= {q.variant for q in kept}
    assert sum(manifest["noop_rejected"].values()) == sum(v["noop_rejected"]
                                                          for v in manifest["perturbation_size"].values())
    for q in _syn(qs, "layout"):
        truth = _truth(manifest, q.page)
        assert q.target == truth["purpose"]
        if q.variant != "clean":
            clean = _snap(root, f"{q.page}__clean")
            cta_before = next(e for e in clean.elements if e.attrs.get("id") == truth["cta"]["id"])
            cta_after = _snap(root, q.snapshot).by_path()[q.elements[0]]
            assert cta_after.box == pytest.approx(cta_before.box, abs=1)
    safety = _syn(qs, "safety")
    for q in safety:
        assert q.target == [s["label"] for s in _truth(manifest, q.page)["safety"]]
    assert {bool(q.target) for q in safety} == {True, False}   # false alarms are measurable


def test_exports_load_as_datasets_and_chat_splits(bench, tmp_path, monkeypatch, require_module):
    root, manifest = bench
    card = (root / "README.md").read_text().split("---")[1]
    names = re.findall(r"config_name: (\S+)", card)
    paths = re.findall(r"(?:data_files|path): (\S+)", card)
    assert {"position", "position_sft", "safety"} <= set(names)
    assert all((root / p).is_file() and (root / p).stat().st_size for p in paths)
    # the real loader, offline, reads every config the card declares
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    datasets = require_module("datasets", "understand")
    for name in ("position", "safety", "position_sft"):
        ds = datasets.load_dataset(str(root), name, cache_dir=str(tmp_path / "hf"))
        assert sum(len(split) for split in ds.values()) > 0
        if name.endswith("_sft"):
            assert "messages" in ds["train"].features
    row = json.loads((root / "splits" / "position" / "train.jsonl").read_text().splitlines()[0])
    user, assistant = row["messages"]
    assert user["role"] == "user" and sum(p["type"] == "image" for p in user["content"]) == len(row["images"])
    assert assistant["content"][0]["text"].startswith("1-2: ")
    assert sum(sum(v.values()) for v in manifest["splits"].values()) > 0
    pages = {s: set() for s in ("train", "validation", "test")}
    for task in manifest["splits"]:
        for s in pages:
            for line in (root / "splits" / task / f"{s}.jsonl").read_text().splitlines():
                pages[s].add(json.loads(line)["id"].split("-", 1)[1].rsplit("-", 1)[0])
    assert not (pages["train"] & pages["test"]) and not (pages["train"] & pages["validation"])


def test_same_seed_is_byte_identical_and_parquet_reads_back(tmp_path):
    kw = dict(seed=11, synthetic=1, tasks=["position", "safety"], fmt="parquet", progress=False)
    a = build_benchmark(tmp_path / "a", **kw)
    b = build_benchmark(tmp_path / "b", **kw)
    assert a["sha256"] == b["sha256"] and a["files"] == b["files"]
    c = build_benchmark(tmp_path / "c", **{**kw, "seed": 12, "crops": 2, "tasks": ["position"]})
    assert c["sha256"] != a["sha256"]
    qs = read_questions(tmp_path / "c")
    pos = [q for q in qs if q.task == "position"]
    assert pos and all(len(q.images) == 3 and list(q.target) == ["1-2"] for q in pos)
    with pytest.raises(FileExistsError, match="--force"):
        build_benchmark(tmp_path / "a", **kw)
    with pytest.raises(ValueError, match="choose from"):
        build_benchmark(tmp_path / "d", tasks=["sentiment"])


FRAGILE = """<!doctype html><html><head><title>Fragile</title><style>
body{margin:0;font-family:sans-serif} .c > p{padding:20px;margin:0} .c{padding:10px}
button{padding:14px 28px;font-size:18px;background:#1565c0;color:#fff;border:0}
</style></head><body><div class="c"><p>One</p><p>Two</p><p>Three</p><p>Four</p><p>Five</p><p>Six</p>
<button type="button">Start now</button><p>Below</p></div></body></html>"""


def test_pairs_failing_a_check_are_dropped_and_counted(tmp_path):
    # wrapping a paragraph breaks the `.c > p` rule, so the call-to-action moves up: the medium
    # and hard pairs (which inject wrappers) fail the box check and are dropped, never silently
    # kept; easy keeps the box, but every node lies in the call-to-action's section, so only its
    # hidden nodes apply and the pair is rejected as a no-op
    page = tmp_path / "pages" / "fragile.html"
    page.parent.mkdir()
    page.write_text(FRAGILE)
    m = build_benchmark(tmp_path / "b", seed=0, synthetic=0, pages=[page], tasks=["layout"],
                        all_layout_levels=True, progress=False)
    assert m["dropped"] == {"layout:check_failed": 2}
    assert m["noop_rejected"] == {"layout-easy": 1} and m["perturbation_size"]["layout-easy"]["max_changed"] == 0
    assert m["questions"] == {} and not m["failures"]


def test_a_page_built_after_another_in_the_same_browser_is_the_same_as_built_alone(tmp_path, real_pages_dir):
    # one worker builds its pages one after another in its own browser, on one live page it
    # reuses (LivePage.reuse): the second page, built after the first was opened, perturbed and
    # undone there, gets exactly the questions, images and snapshots it gets when built alone
    first, second = real_pages_dir / "11791.html", real_pages_dir / "1223.html"
    kw = dict(seed=3, synthetic=0, tasks=["ui_group", "color", "text", "layout"], concurrency=1, progress=False)
    build_benchmark(tmp_path / "both", pages=[first, second], **kw)
    build_benchmark(tmp_path / "alone", pages=[second], **kw)
    both = [q.to_dict() for q in read_questions(tmp_path / "both") if q.page == "real-1223"]
    alone = [q.to_dict() for q in read_questions(tmp_path / "alone")]
    assert alone and both == alone
    assert any(q["variant"] != "clean" for q in alone), "no perturbed question on the page: pick another page"
    for q in alone:
        for rel in q["images"]:
            assert (tmp_path / "both" / rel).read_bytes() == (tmp_path / "alone" / rel).read_bytes()
        name = f"snapshots/{q['snapshot']}.json"
        assert (tmp_path / "both" / name).read_text() == (tmp_path / "alone" / name).read_text(), name
