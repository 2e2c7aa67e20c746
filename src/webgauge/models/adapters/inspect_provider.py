"""Any webgauge model as an Inspect model provider: ``--model webgauge/<webgauge model spec>``.

``inspect eval webgauge/understand -T bench=DIR --model webgauge/scripted:answers.jsonl`` replays
the answers a ``scripted`` file holds; ``webgauge/hf-local:PATH`` runs a local model folder,
``webgauge/openai:NAME`` an OpenAI-compatible endpoint through webgauge's own retries and limits.
Inspect's text and image content becomes webgauge :class:`~webgauge.models.Message` parts in the
same order (images as their bytes, so the message digest is the one ``webgauge understand run``
computes); the question id, when the sample's user message carries it in its metadata
(``webgauge_item``, set by webgauge's Inspect tasks), becomes ``GenerateConfig.item_id``, and
the allowed answers it lists (``webgauge_choices``) ``GenerateConfig.choices``, which
``webgauge/random`` draws from.
Model arguments (``-M key=value``) go to ``webgauge.models.get_model``.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ContentImage,
    ContentText,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    modelapi,
)
from inspect_ai.model import ModelUsage as InspectUsage

__all__ = ["CHOICES_KEY", "ITEM_KEY", "WebgaugeModelAPI", "to_webgauge_messages"]

ITEM_KEY = "webgauge_item"
CHOICES_KEY = "webgauge_choices"


def _image_bytes(image: str) -> bytes:
    if image.startswith("data:"):
        return base64.b64decode(image.split(",", 1)[1])
    path = Path(image)
    if not path.is_file():
        raise ValueError(f"image {image[:80]!r} is neither a data URI nor a local file")
    return path.read_bytes()


def to_webgauge_messages(messages: list[ChatMessage]) -> tuple[list, str | None, list[str] | None]:
    """``(webgauge messages, item id, allowed answers)`` for Inspect chat messages."""
    from webgauge.models import Image, Message

    out, item, choices = [], None, None
    for m in messages:
        if m.role not in ("system", "user", "assistant"):
            raise ValueError(f"webgauge models take system, user and assistant messages, not {m.role!r}")
        if isinstance(m.content, str):
            parts: list[Any] = [m.content]
        else:
            parts = []
            for c in m.content:
                if isinstance(c, ContentText):
                    parts.append(c.text)
                elif isinstance(c, ContentImage):
                    parts.append(Image(_image_bytes(c.image)))
                else:
                    raise TypeError(f"webgauge models take text and images, not {type(c).__name__}")
        if m.role == "user" and m.metadata and m.metadata.get(ITEM_KEY):
            item = str(m.metadata[ITEM_KEY])
        if m.role == "user" and m.metadata and m.metadata.get(CHOICES_KEY):
            choices = [str(c) for c in m.metadata[CHOICES_KEY]]
        out.append(Message(m.role, tuple(parts)))
    return out, item, choices


@modelapi(name="webgauge")
class WebgaugeModelAPI(ModelAPI):
    """``webgauge/<spec>``: the webgauge model ``get_model(<spec>)`` (see module docstring)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        from webgauge.models import get_model

        opts = dict(model_args)
        if base_url:
            opts["base_url"] = base_url
        self.model = get_model(model_name, **opts)

    async def generate(self, input: list[ChatMessage], tools: list, tool_choice: Any,
                       config: GenerateConfig) -> ModelOutput:
        from webgauge.models import GenerateConfig as WgConfig

        if tools:
            raise ValueError("webgauge models do not take tools")
        messages, item, choices = to_webgauge_messages(input)
        cfg = WgConfig(temperature=config.temperature if config.temperature is not None else 0.0,
                       max_tokens=config.max_tokens, top_p=config.top_p, seed=config.seed,
                       stop=config.stop_seqs, item_id=item, choices=choices)
        resp = await self.model.generate(messages, cfg)
        out = ModelOutput.from_content(model=self.model_name, content=resp.text,
                                       stop_reason="max_tokens" if resp.truncated else "stop")
        u = resp.usage
        out.usage = InspectUsage(input_tokens=u.input_tokens or 0, output_tokens=u.output_tokens or 0,
                                 total_tokens=(u.input_tokens or 0) + (u.output_tokens or 0))
        return out
