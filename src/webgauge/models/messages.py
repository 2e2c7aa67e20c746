"""Messages sent to a model: text and images, with content hashes.

An :class:`Image` is a blob of encoded bytes plus its MIME type; its ``sha256`` is what
the response cache and the run store use to name it, so two identical screenshots are the
same image however they were produced. A :class:`Message` is a role plus an ordered tuple of
parts (``str`` or ``Image``). :func:`messages_digest` gives one stable hash of a whole
conversation (text and image hashes, never the bytes), used by the cache key, the
``random`` baseline's seed and the ``scripted`` provider's prompt lookup.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal

__all__ = [
    "Image",
    "Message",
    "Part",
    "Role",
    "user",
    "system",
    "assistant",
    "messages_digest",
    "messages_to_jsonable",
    "last_user_text",
    "image_stats",
    "normalize_messages",
]

Role = Literal["system", "user", "assistant"]
ROLES = ("system", "user", "assistant")

# Formats every provider we support accepts as inline image data.
IMAGE_MIME_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
_MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
}
_SUFFIX_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
                ".webp": "image/webp", ".gif": "image/gif"}


@dataclass(frozen=True)
class Image:
    """Encoded image bytes (PNG by default) with a content hash.

    ``data`` must be the encoded file bytes (not raw pixels); ``mime`` must name the
    encoding. Construction checks the magic bytes so a JPEG labelled PNG fails here, with a
    clear message, rather than as a confusing 400 from a provider.
    """

    data: bytes
    mime: str = "image/png"

    def __post_init__(self) -> None:
        if not isinstance(self.data, (bytes, bytearray, memoryview)):
            raise TypeError(f"Image.data must be bytes, got {type(self.data).__name__}")
        if isinstance(self.data, (bytearray, memoryview)):
            object.__setattr__(self, "data", bytes(self.data))
        if not self.data:
            raise ValueError("Image.data is empty: pass the encoded image file bytes")
        if self.mime not in IMAGE_MIME_TYPES:
            raise ValueError(f"unsupported image mime {self.mime!r}; use one of {IMAGE_MIME_TYPES}")
        magic = _MAGIC.get(self.mime)
        if magic and not any(self.data.startswith(m) for m in magic):
            raise ValueError(f"Image bytes do not look like {self.mime}: pass the right mime= "
                             f"(first bytes: {self.data[:8]!r})")
        if self.mime == "image/webp" and not (self.data[:4] == b"RIFF" and self.data[8:12] == b"WEBP"):
            raise ValueError("Image bytes do not look like image/webp: pass the right mime=")

    @cached_property
    def sha256(self) -> str:
        """Hex sha256 of the encoded bytes: the image's identity in caches and run stores."""
        return hashlib.sha256(self.data).hexdigest()

    @property
    def size(self) -> int:
        """Number of encoded bytes."""
        return len(self.data)

    def base64(self) -> str:
        """The bytes as standard base64 text (what the Anthropic and Gemini APIs take)."""
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        """``data:<mime>;base64,...``: how OpenAI-compatible servers take inline images."""
        return f"data:{self.mime};base64,{self.base64()}"

    @classmethod
    def from_file(cls, path: str | Path, mime: str | None = None) -> Image:
        """Read an image file; the MIME type comes from the suffix unless given."""
        p = Path(path)
        if mime is None:
            mime = _SUFFIX_MIME.get(p.suffix.lower())
            if mime is None:
                raise ValueError(f"cannot tell the image type of {p}: pass mime= (one of {IMAGE_MIME_TYPES})")
        return cls(p.read_bytes(), mime)

    def __repr__(self) -> str:  # never print megabytes of bytes in logs
        return f"Image(mime={self.mime!r}, bytes={len(self.data)}, sha256={self.sha256[:12]}...)"


Part = str | Image


@dataclass(frozen=True)
class Message:
    """One turn of a conversation: a role and ordered parts (text and images).

    ``content`` may be given as a single string, a single Image, or any iterable of those;
    it is stored as a tuple so messages are hashable and immutable.
    """

    role: Role
    content: tuple[Part, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"Message.role must be one of {ROLES}, got {self.role!r}")
        content = self.content
        if isinstance(content, (str, Image)):
            content = (content,)
        content = tuple(content)
        for part in content:
            if not isinstance(part, (str, Image)):
                raise TypeError(f"message parts must be str or Image, got {type(part).__name__}")
        if self.role != "user" and any(isinstance(p, Image) for p in content):
            raise ValueError(f"images are only allowed in user messages, not {self.role!r}")
        object.__setattr__(self, "content", content)

    @property
    def text(self) -> str:
        """All text parts joined with newlines."""
        return "\n".join(p for p in self.content if isinstance(p, str))

    @property
    def images(self) -> tuple[Image, ...]:
        """The image parts, in order."""
        return tuple(p for p in self.content if isinstance(p, Image))

    def to_jsonable(self) -> dict:
        """JSON form with images as ``{"image": sha256, "mime": ...}`` (no bytes)."""
        parts = [{"text": p} if isinstance(p, str) else {"image": p.sha256, "mime": p.mime}
                 for p in self.content]
        return {"role": self.role, "content": parts}


def user(*parts: Part) -> Message:
    """A user message from text and images, e.g. ``user("What is at the top?", img)``."""
    return Message("user", parts)


def system(text: str) -> Message:
    """A system message."""
    return Message("system", (text,))


def assistant(text: str) -> Message:
    """An assistant message (a previous model turn)."""
    return Message("assistant", (text,))


def normalize_messages(messages: str | Message | Sequence[Message]) -> tuple[Message, ...]:
    """Accept a prompt string, one Message, or a sequence of Messages; check and return a tuple."""
    if isinstance(messages, str):
        return (user(messages),)
    if isinstance(messages, Message):
        return (messages,)
    out = tuple(messages)
    if not out:
        raise ValueError("messages is empty: pass at least one user message")
    for m in out:
        if not isinstance(m, Message):
            raise TypeError(f"messages must be Message objects (see webgauge.models.user), got {type(m).__name__}")
    return out


def messages_to_jsonable(messages: Iterable[Message]) -> list[dict]:
    """The conversation as JSON-able dicts (images by hash)."""
    return [m.to_jsonable() for m in messages]


def messages_digest(messages: Iterable[Message]) -> str:
    """Stable sha256 of a conversation: roles, texts and image hashes + mimes."""
    blob = json.dumps(messages_to_jsonable(messages), sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def last_user_text(messages: Sequence[Message]) -> str:
    """Text of the last user message ('' if there is none)."""
    for m in reversed(messages):
        if m.role == "user":
            return m.text
    return ""


def image_stats(messages: Iterable[Message]) -> tuple[int, int]:
    """(number of images, total encoded bytes) across all messages."""
    count = total = 0
    for m in messages:
        for img in m.images:
            count += 1
            total += img.size
    return count, total
