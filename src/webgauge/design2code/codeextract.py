"""Take the HTML out of a model's answer, robustly, and say what happened.

Order of preference: the longest fenced block labelled html (or unlabelled) that looks like
HTML; else the text from ``<!DOCTYPE html`` or ``<html`` to ``</html>``; else bare HTML (the
answer starts with a tag). An answer that opens a document but never closes it is
``truncated`` (the code is still returned, a browser renders it); an answer without HTML is
``missing``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ExtractedCode", "extract_code"]

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
_DOC_START = re.compile(r"<!doctype\s+html|<html[\s>]", re.I)
_DOC_END = re.compile(r"</html\s*>", re.I)
_TAG = re.compile(r"<(?:[a-z][a-z0-9-]*|!--)", re.I)


@dataclass(frozen=True)
class ExtractedCode:
    """The code and how it was found: ``status`` is ``ok``, ``truncated`` or ``missing``;
    ``source`` is ``fence``, ``document``, ``bare`` or ``none``."""

    code: str
    status: str
    source: str


def _looks_like_html(text: str) -> bool:
    return bool(_TAG.search(text)) and ("</" in text or "/>" in text or _DOC_START.search(text) is not None)


def extract_code(answer: str | None) -> ExtractedCode:
    """Extract HTML from ``answer`` (see module docstring)."""
    if not answer or not answer.strip():
        return ExtractedCode("", "missing", "none")
    blocks = []
    for m in _FENCE.finditer(answer):
        lang, body = m.group(1).lower(), m.group(2)
        closed = answer[m.end() - 3:m.end()] == "```"
        if lang in ("", "html", "htm", "xhtml") and _looks_like_html(body):
            blocks.append((len(body), body.strip(), closed))
    if blocks:
        _, body, closed = max(blocks, key=lambda b: b[0])
        truncated = (not closed) or (_DOC_START.search(body) is not None and not _DOC_END.search(body))
        return ExtractedCode(body, "truncated" if truncated else "ok", "fence")
    start = _DOC_START.search(answer)
    if start:
        end = _DOC_END.search(answer, start.start())
        if end:
            return ExtractedCode(answer[start.start():end.end()], "ok", "document")
        return ExtractedCode(answer[start.start():].strip(), "truncated", "document")
    stripped = answer.strip()
    if stripped.startswith("<") and _looks_like_html(stripped):
        return ExtractedCode(stripped, "ok", "bare")
    return ExtractedCode("", "missing", "none")
