"""The hf-local provider on a tiny random vision-language model built in a temp folder (no hub)."""

from __future__ import annotations

import asyncio
import os
import shutil

import pytest

from webgauge.models import GenerateConfig, ModelConfigError, get_model, provider_info, user

os.environ["HF_HUB_OFFLINE"] = "1"
# a tiny model on a shared 2-core machine: more than one thread per process only contends (the
# run's worker processes inherit this)
os.environ["OMP_NUM_THREADS"] = "1"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    import torch

    from webgauge.models.tiny_vlm import build_tiny_vlm

    torch.set_num_threads(1)  # a tiny model on a shared 2-core machine: threads only contend
    return build_tiny_vlm(tmp_path_factory.mktemp("tiny") / "vlm", seed=0)


def test_listed_as_available_extra():
    info = {p["name"]: p for p in provider_info()}
    assert info["hf-local"]["available"] and info["hf-local"]["source"] == "builtin"


async def test_generates_from_images_reports_usage_and_caches(tiny, tmp_path, make_png):
    cache = tmp_path / "cache.sqlite"
    model = get_model(f"hf-local:{tiny}", cache=cache)
    cfg = GenerateConfig(max_tokens=6)
    red, blue = make_png((220, 20, 20), (90, 60)), make_png((20, 20, 220), (90, 60))
    r1 = await model.generate([user(red, "Which UI group is this element in?")], cfg)
    assert isinstance(r1.text, str) and not r1.cached
    # 16 image tokens (a 56 px image in 14 px patches) plus the question's tokens
    assert r1.usage.input_tokens > 16 and 1 <= r1.usage.output_tokens <= 6 and r1.usage.images == 1
    assert r1.finish_reason in ("stop", "length")
    again = await model.generate([user(red, "Which UI group is this element in?")], cfg)
    assert again.cached and again.text == r1.text and again.usage.input_tokens == r1.usage.input_tokens
    other = await model.generate([user(blue, "Which UI group is this element in?")], cfg)
    assert not other.cached
    # a second model object on the same weights answers the same (greedy decoding is deterministic)
    fresh = get_model(f"hf-local:{tiny}")
    assert (await fresh.generate([user(red, "Which UI group is this element in?")], cfg)).text == r1.text
    totals = model.meter.totals
    assert totals.calls == 3 and totals.cache_hits == 1 and totals.images == 3


async def test_batches_concurrent_calls_with_the_same_answers(tiny, make_png):
    one = get_model(f"hf-local:{tiny}")
    batched = get_model(f"hf-local:{tiny}?batch_size=4")
    cfg = GenerateConfig(max_tokens=5)
    prompts = [[user(make_png((40 * i, 100, 30), (60 + 20 * i, 50)), f"Question {i}: where is it?")] for i in range(4)]
    alone = [(await one.generate(p, cfg)).text for p in prompts]
    together = await asyncio.gather(*(batched.generate(p, cfg) for p in prompts))
    assert [r.text for r in together] == alone
    assert max(r.raw["batch"] for r in together) > 1


def test_bad_folders_are_clear_errors(tiny, tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(ModelConfigError, match="nope.*does not exist"):
        get_model(f"hf-local:{missing}")
    with pytest.raises(ModelConfigError, match="unknown option"):
        get_model(f"hf-local:{tiny}?adaptor=x")
    with pytest.raises(ModelConfigError, match="adapter folder .*nope"):
        get_model(f"hf-local:{tiny}?adapter={missing}")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelConfigError, match="no config.json"):
        asyncio.run(get_model(f"hf-local:{empty}").generate("hi"))
    with pytest.raises(ModelConfigError, match="dtype"):
        get_model(f"hf-local:{tiny}?dtype=int3")


def test_text_only_model_is_refused(tiny, tmp_path):
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    text = tmp_path / "text-only"
    tok = AutoTokenizer.from_pretrained(tiny, local_files_only=True)
    tok.save_pretrained(text)
    Qwen2ForCausalLM(Qwen2Config(vocab_size=len(tok), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                 num_attention_heads=2, num_key_value_heads=1)).save_pretrained(text)
    with pytest.raises(ModelConfigError, match="not a vision-language model"):
        asyncio.run(get_model(f"hf-local:{text}").generate("hi"))


def test_cache_key_follows_the_weights(tiny, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(tiny, copy)
    a = get_model(f"hf-local:{copy}").provider.cache_identity()["weights"]
    (copy / "generation_config.json").write_text((copy / "generation_config.json").read_text().replace("}", ' }'))
    b = get_model(f"hf-local:{copy}").provider.cache_identity()["weights"]
    assert a != b
