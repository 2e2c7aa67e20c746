"""Generation through webgauge.run with a model behind the fake OpenAI endpoint (real HTTP on
127.0.0.1): the four strategies' prompts, self-refine's second turn, truncation, link wiring."""

import re
import shutil

import pytest

from webgauge.design2code.prompts import COT, SR
from webgauge.models.fake_server import FakeModelServer, Reply, request_images, request_text
from webgauge.run import RunStore

pytestmark = pytest.mark.browser


@pytest.fixture
def one_site(instances, tmp_path):
    root, by_kind = instances
    syn = by_kind["synthetic"]
    dest = tmp_path / "instances"
    shutil.copytree(syn.root, dest / syn.id)
    return dest, syn


def test_strategies_over_the_wire(one_site, tmp_path):
    from webgauge.design2code.runs import generate_run

    inst_dir, syn = one_site
    reference = {n: syn.reference_code(n) for n in syn.page_names}

    def respond(body):
        text = request_text(body)
        if text.startswith(SR[:40]):        # self-refine turn: answer the revised page
            return "Revised:\n```html\n<!DOCTYPE html><html><body><a href=\"/contact\">Contact</a>" \
                   "<p>REVISED</p></body></html>\n```"
        m = re.search(r"page `([^`]+)`", text)
        if m is None:                       # self-contained: no page name, answer is cut off
            return Reply("```html\n<!DOCTYPE html><html><body><div>", finish_reason="length")
        return "Here you go:\n```html\n" + reference[m.group(1)] + "\n```"

    with FakeModelServer(respond) as srv:
        summary = generate_run(inst_dir, tmp_path / "gen", model="openai:fake", strategies=("sc", "zs", "cot", "sr"),
                               model_opts={"base_url": srv.openai_base_url}, workers=1, progress=False)
        bodies = [r.body for r in srv.requests]
    assert summary.failed == 0 and summary.ok == 4
    store = RunStore(tmp_path / "gen")
    recs = {r.item_id.split("/")[0]: r for r in store.records()}
    assert recs["sc"].record["statuses"] == ["truncated", "truncated"]
    assert recs["zs"].record["statuses"] == ["ok", "ok"] == recs["cot"].record["statuses"]
    zs_index = store.blob(recs["zs"].blobs["page:index.html"]).decode()
    assert zs_index.strip() == reference["index.html"].strip()
    sr_index = store.blob(recs["sr"].blobs["page:index.html"]).decode()
    assert "REVISED" in sr_index and 'href="contact.html"' in sr_index       # wired from "/contact"
    assert recs["sr"].record["pages"][0]["links_rewired"] == 1

    texts = [request_text(b) for b in bodies]
    first_turns = [t for t in texts if not t.startswith(SR[:40])]
    sc = [t for t in first_turns if "page `" not in t]
    assert len(sc) == 2 and all('"type"' not in t for t in sc)              # no resource list
    with_resources = [t for t in first_turns if '"type":"link"' in t]
    assert len(with_resources) == 6                                         # zs, cot, sr x 2 pages
    assert sum(COT in t for t in first_turns) == 2
    refine = [b for b, t in zip(bodies, texts, strict=True) if t.startswith(SR[:40])]
    assert len(refine) == 2
    for b in refine:                                                        # design + own render
        assert len(request_images(b)) == 2 and b["messages"][-2]["role"] == "assistant"
