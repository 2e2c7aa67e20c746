"""Position labels re-measured independently: each page re-rendered in a fresh browser, each
element found by its XPath, the relation recomputed from the live boxes."""

import pytest

from webgauge.browser import Browser
from webgauge.pages import StaticServer, load_pages, serve_pages
from webgauge.pages.synthetic import generate_page
from webgauge.understand import read_questions
from webgauge.understand.build import BUILD_PROFILE, synthetic_seed
from webgauge.understand.relations import relation
from webgauge.understand.tasks.position import pair_keys

pytestmark = pytest.mark.browser

BOXES_JS = """(paths) => paths.map((p) => {
  const el = document.evaluate(p, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height];
})"""


async def _relabel(browser, url, qs) -> list[tuple[str, str, str | None]]:
    out = []
    async with browser.open(url, BUILD_PROFILE) as live:
        for q in qs:
            boxes = await live.evaluate(BOXES_JS, q.elements)
            assert None not in boxes, f"{q.id}: an element's XPath no longer resolves"
            for key in pair_keys(len(q.elements)):
                i, j = (int(x) - 1 for x in key.split("-"))
                out.append((q.target[key], relation(boxes[i], boxes[j]), f"{q.id}:{key}"))
    return out


async def test_position_labels_match_a_fresh_rendering(bench):
    root, manifest = bench
    qs = [q for q in read_questions(root, "position")]
    by_page: dict[str, list] = {}
    for q in qs:
        by_page.setdefault(q.page, []).append(q)
    assert any(p.startswith("real-") for p in by_page) and any(p.startswith("syn") for p in by_page)
    checked = []
    async with Browser.launch() as browser:  # a browser of its own, not the one that built the benchmark
        for i in range(manifest["synthetic_pages"]):
            page = generate_page(synthetic_seed(manifest["seed"], i), with_safety=(i % 2 == 0))
            if f"syn{i:03d}" in by_page:
                with StaticServer(files=page.files()) as srv:
                    checked += await _relabel(browser, srv.url("index.html"), by_page[f"syn{i:03d}"])
        refs = load_pages(manifest["real_pages"][:1])
        with serve_pages(refs) as urls:
            real = [p for p in by_page if p.startswith("real-")]
            checked += await _relabel(browser, urls[refs[0].id], by_page[real[0]])
    wrong = [(name, stored, fresh) for stored, fresh, name in checked if stored != fresh]
    assert len(checked) >= 12 and not wrong, wrong
