"""``webgauge models ...``: list model providers and ping a model with one tiny request."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import click

__all__ = ["group"]


@click.group(name="models", help="Model providers: list them, ping one model.")
def group() -> None:
    pass


@group.command(name="list", help="List registered model providers and whether their optional packages are installed.")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def list_cmd(as_json: bool) -> None:
    from webgauge.models import provider_info

    info = provider_info()
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    for p in info:
        status = "available" if p["available"] else f"missing package: {p['hint']}"
        click.echo(f"{p['name']:<12} {p['source']:<12} {status}")


def _parse_options(pairs: tuple[str, ...]) -> dict:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="--option")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


@group.command(help="Send one tiny request to MODEL (e.g. openai:gpt-4o-mini, random) and print text and usage.")
@click.argument("model")
@click.option("--base-url", default=None, help="Endpoint base URL (openai: .../v1; default from the environment).")
@click.option("--api-key", default=None, help="API key (default from the provider's environment variable).")
@click.option("--prompt", default="Reply with the single word OK.", show_default=True, help="The user message.")
@click.option("--image", "images", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Attach an image file (PNG/JPEG/WebP/GIF); repeatable.")
@click.option("--max-tokens", type=int, default=16, show_default=True, help="Cap on output tokens.")
@click.option("--temperature", type=float, default=0.0, show_default=True, help="Sampling temperature.")
@click.option("--timeout", type=float, default=30.0, show_default=True, help="Seconds per attempt.")
@click.option("--max-retries", type=int, default=2, show_default=True, help="Retries on 429/5xx/timeouts.")
@click.option("--choices", default=None, help="Comma-separated allowed answers (for the random baseline).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help="Extra provider option (value parsed as JSON when it can be); repeatable.")
@click.option("--cache", "cache_path", default=None, type=click.Path(dir_okay=False, path_type=Path),
              help="SQLite response cache to read and fill (deterministic calls only).")
@click.option("--json", "as_json", is_flag=True, help="Print the response as JSON.")
def ping(model: str, base_url: str | None, api_key: str | None, prompt: str, images: tuple[Path, ...],
         max_tokens: int, temperature: float, timeout: float, max_retries: int, choices: str | None,
         options: tuple[str, ...], cache_path: Path | None, as_json: bool) -> None:
    from webgauge.models import GenerateConfig, Image, ModelError, get_model, user

    provider_options = _parse_options(options)
    if base_url is not None:
        provider_options["base_url"] = base_url
    if api_key is not None:
        provider_options["api_key"] = api_key
    try:
        parts = [prompt, *[Image.from_file(p) for p in images]]
        config = GenerateConfig(max_tokens=max_tokens, temperature=temperature, timeout=timeout,
                                choices=[c.strip() for c in choices.split(",")] if choices else None)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None

    async def run():
        async with get_model(model, max_retries=max_retries, cache=cache_path, **provider_options) as m:
            return await m.generate([user(*parts)], config)

    try:
        response = asyncio.run(run())
    except ModelError as e:
        raise click.ClickException(f"{type(e).__name__}: {e}") from None
    if as_json:
        click.echo(json.dumps(response.to_dict(), indent=2))
        return
    u = response.usage
    click.echo(response.text)
    click.echo(f"[{response.model}]{' (cached)' if response.cached else ''} finish={response.finish_reason}"
               f"{' (TRUNCATED)' if response.truncated else ''} "
               f"tokens in={u.input_tokens} out={u.output_tokens} images={u.images} ({u.image_bytes} B) "
               f"retries={u.retries} latency={u.latency_s:.3f}s", err=True)
