"""``scripted``: deterministic answers from a JSONL file, for tests and replays.

``get_model("scripted:answers.jsonl")`` (or ``get_model("scripted", answers=[...])`` with the
same entries inline). Each line is a JSON object with an ``"answer"`` and at most these keys:

- ``"item_id"``: used when ``config.item_id`` equals it;
- ``"match"``: used when ``config.item_id`` equals it, else when it is a substring of the
  text of the last user message (``"match": ""`` therefore matches everything: an explicit
  default);
- ``"prompt_sha256"``: used when it equals :func:`webgauge.models.messages_digest` of the
  messages (what :func:`replay_entry` writes when recording a run);
- ``"finish_reason"``, ``"input_tokens"``, ``"output_tokens"``: optional, reported as given;
- ``"meta"``: anything, ignored by the lookup (``get_model(..., record=PATH)`` writes
  the model name and item id there).

**Lookup order** for each call, first hit wins, entries in file order within each step:
1. by item: ``config.item_id`` equals an entry's ``item_id`` or ``match``;
2. by prompt hash: ``prompt_sha256`` equals the digest of the messages;
3. by substring: an entry's ``match`` occurs in the last user text;
4. the queue: entries with none of ``item_id``/``match``/``prompt_sha256`` are handed out once
   each, in file order (per model object);
5. otherwise :class:`NoScriptedAnswer`, naming the item id, the start of the prompt and the file.

Entries of steps 1-3 can answer any number of calls. The provider is in-process and never
cached (there is nothing to save).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from webgauge.models.config import FINISH_REASONS, GenerateConfig, Response
from webgauge.models.errors import ModelConfigError, NoScriptedAnswer
from webgauge.models.messages import Message, last_user_text, messages_digest
from webgauge.models.usage import Usage

__all__ = ["ScriptedProvider", "create", "load_script", "replay_entry"]

_KEYS = {"answer", "item_id", "match", "prompt_sha256", "finish_reason", "input_tokens", "output_tokens", "meta"}


def _check_entry(entry: Any, where: str) -> dict:
    if not isinstance(entry, dict):
        raise ModelConfigError(f"{where}: each scripted entry must be a JSON object, got {type(entry).__name__}")
    unknown = set(entry) - _KEYS
    if unknown:
        raise ModelConfigError(f"{where}: unknown keys {sorted(unknown)}; allowed: {sorted(_KEYS)}")
    if not isinstance(entry.get("answer"), str):
        raise ModelConfigError(f"{where}: 'answer' must be a string")
    for k in ("item_id", "match", "prompt_sha256"):
        if k in entry and not isinstance(entry[k], str):
            raise ModelConfigError(f"{where}: {k!r} must be a string")
    if entry.get("finish_reason", "stop") not in FINISH_REASONS:
        raise ModelConfigError(f"{where}: finish_reason must be one of {FINISH_REASONS}")
    return entry


def load_script(path: str | Path) -> list[dict]:
    """Read and check a scripted-answers JSONL file (blank lines skipped)."""
    p = Path(path)
    if not p.is_file():
        raise ModelConfigError(f"scripted answers file not found: {p} (pass scripted:PATH to a JSONL file)")
    entries = []
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError as e:
            raise ModelConfigError(f"{p}:{n}: not valid JSON ({e})") from None
        entries.append(_check_entry(entry, f"{p}:{n}"))
    return entries


def replay_entry(messages: Sequence[Message], answer: str, item_id: str | None = None) -> dict:
    """A JSONL entry that answers exactly these messages (by prompt hash), e.g. to replay a run."""
    entry = {"prompt_sha256": messages_digest(messages), "answer": answer}
    if item_id is not None:
        entry["item_id"] = item_id
    return entry


class ScriptedProvider:
    """Answers from a script (see the module docstring for the lookup order)."""

    provider = "scripted"
    endpoint = ""
    honors_seed = True
    cacheable = False
    default_concurrency = 64

    def __init__(self, path: str = "", *, answers: Iterable[dict] | None = None) -> None:
        if answers is not None and path:
            raise ModelConfigError("give the scripted provider a file (scripted:PATH) or answers=[...], not both")
        if answers is not None:
            self.entries = [_check_entry(e, f"answers[{i}]") for i, e in enumerate(answers)]
            self.source = "answers=[...]"
        elif path:
            self.entries = load_script(path)
            self.source = str(path)
        else:
            raise ModelConfigError("the scripted provider needs answers: 'scripted:PATH.jsonl' or answers=[...]")
        self.model = path or "inline"
        self._queue = [e for e in self.entries if not ({"item_id", "match", "prompt_sha256"} & set(e))]
        self._lock = threading.Lock()

    def cache_identity(self) -> dict[str, Any]:
        """Not cached; kept for the Provider protocol."""
        return {"source": self.source}

    def lookup(self, messages: Sequence[Message], config: GenerateConfig) -> dict:
        """The entry that answers this call (consumes a queue entry when it comes to that)."""
        item = config.item_id
        if item is not None:
            for e in self.entries:
                if e.get("item_id") == item or e.get("match") == item:
                    return e
        digest = messages_digest(messages)
        for e in self.entries:
            if e.get("prompt_sha256") == digest:
                return e
        text = last_user_text(messages)
        for e in self.entries:
            if "match" in e and e["match"] in text:
                return e
        with self._lock:
            if self._queue:
                return self._queue.pop(0)
        raise NoScriptedAnswer(
            f"scripted answers in {self.source} have no answer for item_id={item!r}, prompt "
            f"{text[:80]!r} (sha256 {digest[:12]}...): add a line with \"item_id\", \"match\" or "
            f"\"prompt_sha256\" for it, or more queue lines")

    async def complete(self, messages: tuple[Message, ...], config: GenerateConfig, timeout: float) -> Response:
        """Return the scripted answer."""
        e = self.lookup(messages, config)
        usage = Usage(input_tokens=e.get("input_tokens", 0), output_tokens=e.get("output_tokens", 0))
        return Response(text=e["answer"], usage=usage, finish_reason=e.get("finish_reason", "stop"),
                        raw={"entry": e})

    async def aclose(self) -> None:
        """Nothing to release."""


def create(model: str, **options: Any) -> ScriptedProvider:
    """Factory registered as ``scripted``: ``model`` is the JSONL path."""
    return ScriptedProvider(model, **options)
