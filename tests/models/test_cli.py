"""``webgauge models list|ping`` through click, against a real loopback server."""

from __future__ import annotations

import json

from click.testing import CliRunner

from webgauge.cli.models import group
from webgauge.models.fake_server import FakeModelServer, Fault, request_images


def test_models_list():
    result = CliRunner().invoke(group, ["list"])
    assert result.exit_code == 0, result.output
    names = [line.split()[0] for line in result.output.splitlines()]
    assert {"openai", "anthropic", "gemini", "scripted", "random"} <= set(names)
    data = json.loads(CliRunner().invoke(group, ["list", "--json"]).output)
    assert {d["name"]: d["available"] for d in data}["openai"] is True


def test_models_ping_openai_with_image(page_png, tmp_path):
    png = tmp_path / "shot.png"
    png.write_bytes(page_png.data)
    with FakeModelServer(lambda body: "OK") as srv:
        result = CliRunner().invoke(group, ["ping", "openai:fake", "--base-url", srv.openai_base_url,
                                           "--image", str(png), "--json"])
        assert result.exit_code == 0, result.output
        out = json.loads(result.output)
        assert out["text"] == "OK" and out["usage"]["images"] == 1 and out["usage"]["image_bytes"] == page_png.size
        assert request_images(srv.requests[0].body) == [("image/png", page_png.data)]
        plain = CliRunner().invoke(group, ["ping", "openai:fake", "--base-url", srv.openai_base_url])
        assert plain.exit_code == 0 and plain.output.startswith("OK\n") and "tokens in=" in plain.output
        args = ["ping", "openai:fake", "--base-url", srv.openai_base_url, "--cache", str(tmp_path / "c.sqlite")]
        first, second = CliRunner().invoke(group, args), CliRunner().invoke(group, args)
        assert "(cached)" not in first.output and "(cached)" in second.output
        assert srv.request_count == 3


def test_models_ping_reports_errors_and_bad_options():
    with FakeModelServer() as srv:
        srv.add_faults(Fault.http(401))
        result = CliRunner().invoke(group, ["ping", "openai:fake", "--base-url", srv.openai_base_url])
        assert result.exit_code == 1 and "PermanentError" in result.output and "HTTP 401" in result.output
        result = CliRunner().invoke(group, ["ping", "openai:fake", "--base-url", srv.openai_base_url,
                                            "--option", "colour=1"])
        assert result.exit_code == 1 and "bad options for model provider 'openai'" in result.output


def test_models_ping_random_baseline():
    result = CliRunner().invoke(group, ["ping", "random", "--choices", "A,B,C"])
    assert result.exit_code == 0 and result.output.splitlines()[0] in {"A", "B", "C"}
    assert CliRunner().invoke(group, ["ping", "--help"]).exit_code == 0
