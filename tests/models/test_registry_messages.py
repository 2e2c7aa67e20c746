"""Provider registry (names, entry points, lazy optional deps) and the message types."""

from __future__ import annotations

import sys
import textwrap

import pytest

from webgauge.models import (
    GenerateConfig,
    Image,
    Message,
    MissingDependency,
    Model,
    ModelConfigError,
    Response,
    Usage,
    assistant,
    get_model,
    list_providers,
    messages_digest,
    register_provider,
    system,
    user,
)
from webgauge.models.registry import _registered


class EchoProvider:
    """A minimal third-party provider: answers with the model name and the prompt."""

    provider = "echo-test"
    endpoint = ""
    honors_seed = True
    cacheable = False
    default_concurrency = 4

    def __init__(self, model, prefix=">"):
        self.model, self.prefix = model, prefix

    def cache_identity(self):
        return {}

    async def complete(self, messages, config, timeout):
        return Response(f"{self.prefix}{self.model}:{messages[-1].text}", Usage(1, 1))

    async def aclose(self):
        pass


@pytest.fixture
def clean_registry():
    before = dict(_registered)
    yield
    _registered.clear()
    _registered.update(before)


def test_builtin_providers_are_listed_without_importing_sdks():
    import subprocess
    import sys

    code = ("import sys; from webgauge.models import list_providers; names = list_providers(); "
            "sdks = sorted(m for m in ('openai', 'anthropic', 'google.genai', 'google.generativeai', 'transformers', "
            "'torch') if m in sys.modules); print(','.join(names)); print(','.join(sdks))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert {"openai", "anthropic", "gemini", "scripted", "random"} <= set(out[0].split(","))
    assert out[1] == "", f"listing providers imported SDKs: {out[1]}"


async def test_register_provider_and_get_model(clean_registry):
    register_provider("echo-test", lambda model, **kw: EchoProvider(model, **kw))
    assert "echo-test" in list_providers()
    async with get_model("echo-test:m:with:colons", prefix="#") as model:
        assert isinstance(model, Model)
        r = await model.generate("hello")
    assert r.text == "#m:with:colons:hello" and model.name == "echo-test:m:with:colons"
    with pytest.raises(ModelConfigError, match="already registered"):
        register_provider("echo-test", EchoProvider)
    register_provider("echo-test", EchoProvider, replace=True)
    with pytest.raises(ModelConfigError, match="without ':'"):
        register_provider("bad:name", EchoProvider)


def test_unknown_provider_lists_the_known_ones():
    with pytest.raises(ModelConfigError, match=r"unknown model provider 'nope'.*openai.*random"):
        get_model("nope:x")
    with pytest.raises(ModelConfigError, match="model spec must be a string"):
        get_model("  ")


async def test_entry_point_provider(tmp_path, monkeypatch):
    dist = tmp_path / "wgplug-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: wgplug\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[webgauge.models]\nplugecho = wgplug_mod:create\n")
    (tmp_path / "wgplug_mod.py").write_text(textwrap.dedent("""
        from webgauge.models import Response, Usage
        class P:
            provider = "plugecho"; endpoint = ""; honors_seed = True; cacheable = False
            default_concurrency = 2
            def __init__(self, model): self.model = model
            def cache_identity(self): return {}
            async def complete(self, messages, config, timeout):
                return Response("plugged " + self.model, Usage(0, 0))
            async def aclose(self): pass
        def create(model, **options): return P(model, **options)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "plugecho" in list_providers()
    async with get_model("plugecho:x") as model:
        assert (await model.generate("hi")).text == "plugged x"
    sys.modules.pop("wgplug_mod", None)


@pytest.mark.parametrize("spec,package,extra", [("anthropic:claude-x", "anthropic", "anthropic"),
                                                ("gemini:gemini-x", "google-genai", "gemini")])
def test_missing_optional_dependency_names_the_extra(monkeypatch, spec, package, extra):
    # Simulate the SDK not being installed: importing it raises ImportError.
    for mod in ("anthropic", "google", "google.genai"):
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(MissingDependency) as info:
        get_model(spec, api_key="k")
    assert f"pip install 'webgauge[{extra}]'" in str(info.value) and package in str(info.value)
    assert isinstance(info.value, ImportError)


def test_image_hash_mime_checks_and_data_url(make_png, tmp_path):
    img = make_png()
    assert len(img.sha256) == 64 and img.data_url().startswith("data:image/png;base64,iVBOR")
    with pytest.raises(ValueError, match="do not look like image/jpeg"):
        Image(img.data, "image/jpeg")
    with pytest.raises(ValueError, match="unsupported image mime"):
        Image(img.data, "image/bmp")
    with pytest.raises(ValueError, match="empty"):
        Image(b"")
    path = tmp_path / "x.png"
    path.write_bytes(img.data)
    assert Image.from_file(path) == img
    with pytest.raises(ValueError, match="pass mime="):
        Image.from_file(tmp_path / "x.bin")
    assert "bytes=" in repr(img) and str(img.data[:20]) not in repr(img)


def test_messages_validation_and_digest(make_png):
    img = make_png()
    m = user("a", img, "b")
    assert m.text == "a\nb" and m.images == (img,) and m.content == ("a", img, "b")
    assert Message("user", "plain").content == ("plain",)
    with pytest.raises(ValueError, match="only allowed in user messages"):
        Message("assistant", (img,))
    with pytest.raises(ValueError, match="role must be one of"):
        Message("tool", "x")
    d1 = messages_digest([system("s"), user("a", img), assistant("b")])
    assert d1 == messages_digest([system("s"), user("a", Image(bytes(img.data))), assistant("b")])
    assert d1 != messages_digest([system("s"), user("a", make_png(color=(0, 0, 1))), assistant("b")])
    assert d1 != messages_digest([system("s"), user("a", img), assistant("b ")])


def test_generate_config_validation():
    assert GenerateConfig(stop="x").stop == ("x",)
    for bad in [dict(temperature=-1), dict(max_tokens=0), dict(top_p=1.5), dict(timeout=0)]:
        with pytest.raises(ValueError):
            GenerateConfig(**bad)
    with pytest.raises(TypeError, match="list of strings"):
        GenerateConfig(choices="AB")


def test_usage_round_trip_and_meter_resum():
    from webgauge.models import UsageMeter
    stored = [Usage(10, 2, images=1, image_bytes=50, retries=1, latency_s=0.5).to_dict(),
              Usage(10, 2, cached=True).to_dict(), Usage(None, None).to_dict()]
    meter = UsageMeter()
    for d in stored:
        meter.record(Usage.from_dict(d), "m")
    t = meter.totals
    assert (t.calls, t.cache_hits, t.input_tokens, t.cached_input_tokens, t.calls_without_token_counts,
            t.retries, t.images, t.image_bytes) == (3, 1, 10, 10, 1, 1, 1, 50)
    with pytest.raises(ValueError, match="unknown Usage fields"):
        Usage.from_dict({"tokens": 3})
