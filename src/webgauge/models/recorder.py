"""Record a model's answers as a ``scripted`` JSONL file, to replay a run without the model.

``get_model(..., record="answers.jsonl")`` appends one line per answered call (cache hits
included): ``{"prompt_sha256", "answer", "finish_reason", "input_tokens", "output_tokens",
"meta": {"model", "item_id"}}``. ``get_model("scripted:answers.jsonl")`` then answers the same
conversations with the same text, looked up by prompt hash (the ``meta`` block is ignored by
the lookup, so two turns of one item never get each other's answers).

Each line is written with a single ``write`` on a file opened for appending, so several
processes may record into one file; one file per worker is still the tidiest.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path

from webgauge.models.config import GenerateConfig, Response
from webgauge.models.messages import Message, messages_digest

__all__ = ["ReplayRecorder"]


class ReplayRecorder:
    """Appends answered calls to a JSONL file readable by the ``scripted`` provider."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.lines = 0

    def record(self, messages: Sequence[Message], config: GenerateConfig, response: Response) -> None:
        """Append one line for this call."""
        entry = {"prompt_sha256": messages_digest(messages), "answer": response.text,
                 "finish_reason": response.finish_reason,
                 "input_tokens": response.usage.input_tokens, "output_tokens": response.usage.output_tokens,
                 "meta": {"model": response.model, "item_id": config.item_id}}
        data = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
            self.lines += 1

    def __repr__(self) -> str:
        return f"ReplayRecorder({str(self.path)!r}, lines={self.lines})"
