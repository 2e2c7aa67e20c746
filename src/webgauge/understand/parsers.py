"""Answer parsers: tolerant of chatter, markdown and casing; ``None`` when nothing parses.

An unparseable answer (``None``) is scored as wrong and counted separately in reports.
"""

from __future__ import annotations

import json
import re
import unicodedata

from ..perturb.text import HOMOGLYPHS
from .labeller import UI_GROUPS

__all__ = ["parse_answer", "parse_position", "parse_ui_group", "parse_free_text", "parse_button_list",
           "normalize_label", "clean_text"]

_UNGLYPH = {v: k for k, v in HOMOGLYPHS.items()}
_REL_SYNONYMS = [
    (r"contain(s|ed|ing|ment)?|inside|within", "contain"),
    (r"overlap(s|ping|ped)?|intersect(s|ing)?", "overlap"),
    (r"(top|upper|above)[\s_-]*(and[\s_-]*)?(to[\s_-]*the[\s_-]*)?left|"
     r"left[\s_-]*(and[\s_-]*)?(top|above|upper)|"
     r"north[\s-]*west", "top-left"),
    (r"(top|upper|above)[\s_-]*(and[\s_-]*)?(to[\s_-]*the[\s_-]*)?right|"
     r"right[\s_-]*(and[\s_-]*)?(top|above|upper)|"
     r"north[\s-]*east", "top-right"),
    (r"(bottom|lower|below)[\s_-]*(and[\s_-]*)?(to[\s_-]*the[\s_-]*)?left|"
     r"left[\s_-]*(and[\s_-]*)?(bottom|below|lower)|"
     r"south[\s-]*west", "bottom-left"),
    (r"(bottom|lower|below)[\s_-]*(and[\s_-]*)?(to[\s_-]*the[\s_-]*)?right|"
     r"right[\s_-]*(and[\s_-]*)?(bottom|below|lower)|"
     r"south[\s-]*east", "bottom-right"),
    (r"left(\s+of)?|west", "left"),
    (r"right(\s+of)?|east", "right"),
    (r"top|above|over|north", "top"),
    (r"bottom|below|under(neath)?|south", "bottom"),
]
_GROUP_SYNONYMS = [
    (r"top[\s_-]*bar|header|navigation[\s_-]*bar|nav[\s_-]*bar|top[\s_-]*navigation|banner|masthead", "top bar"),
    (r"left[\s_-]*(side[\s_-]*bar|sidebar|column|panel|rail)", "left sidebar"),
    (r"right[\s_-]*(side[\s_-]*bar|sidebar|column|panel|rail)", "right sidebar"),
    (r"bottom[\s_-]*bar|footer", "bottom bar"),
    (r"main[\s_-]*(content|area|section|body)?|content[\s_-]*area|body[\s_-]*content", "main content"),
    (r"\belse\b|other|advert\w*|\bad\b|banner[\s_-]*ad|none[\s_-]*of", "else"),
]


def clean_text(text: str | None) -> str:
    """Strip markdown, code fences, quotes and answer prefixes; collapse whitespace per line."""
    if text is None:
        return ""
    t = re.sub(r"```[a-zA-Z]*", "", str(text))
    t = re.sub(r"[*_`#>]+", "", t)
    t = re.sub(r"(?im)^\s*(final\s+)?answer\s*[:\-]\s*", "", t)
    lines = [re.sub(r"\s+", " ", ln).strip().strip("\"'“”‘’") for ln in t.splitlines()]
    return "\n".join(ln for ln in lines if ln)


def normalize_label(text: str | None) -> str:
    """Casefold, undo look-alike characters, drop symbols and extra spaces (for label matching)."""
    t = unicodedata.normalize("NFKC", "".join(_UNGLYPH.get(c, c) for c in (text or "")))
    t = re.sub(r"[^\w\s]", " ", t.casefold())
    return re.sub(r"\s+", " ", t).strip()


def _json_answer(text: str):
    m = re.search(r"\{.*\}", text, re.S)
    if not m:
        return None
    try:
        return json.loads(m.group(0))
    except json.JSONDecodeError:
        return None


def _relation_of(fragment: str) -> str | None:
    f = fragment.lower()
    best = None
    for pattern, rel in _REL_SYNONYMS:
        m = re.search(rf"(?<![a-z]){pattern}(?![a-z])", f)
        if m and (best is None or m.start() < best[0] or (m.start() == best[0] and len(m.group(0)) > best[2])):
            best = (m.start(), rel, len(m.group(0)))
    return best[1] if best else None


def parse_position(text: str | None, keys: list[str]) -> dict | None:
    """``{"1-2": "left", ...}`` from lines like ``1-2: left`` / ``(1, 2) -> Top left``.

    Pairs written in reverse order (``2-1``) are ignored rather than guessed. With a single
    pair a bare relation is accepted. ``None`` when no pair parses.
    """
    t = clean_text(text)
    if not t:
        return None
    js = _json_answer(t)
    out: dict[str, str] = {}
    if isinstance(js, dict):
        for k, v in js.items():
            nums = re.findall(r"\d+", str(k))
            key = "-".join(nums[:2])
            if key in keys and isinstance(v, str) and (rel := _relation_of(v)):
                out[key] = rel
    for line in t.splitlines():
        m = re.search(r"(\d+)\s*(?:-|–|,|&|and|to|vs\.?|/)\s*(\d+)\s*\)?\s*[:=\-–>)\]]*\s*(.*)", line, re.I)
        if m:
            key = f"{m.group(1)}-{m.group(2)}"
            rel = _relation_of(m.group(3))
            if key in keys and rel and key not in out:
                out[key] = rel
    if not out and len(keys) == 1:
        rel = _relation_of(t)
        if rel:
            out[keys[0]] = rel
    return out or None


def parse_ui_group(text: str | None) -> str | None:
    """One of the six UI groups: the synonym that appears first in the answer."""
    t = clean_text(text).lower()
    if not t:
        return None
    for g in UI_GROUPS:  # the exact vocabulary wins
        if re.fullmatch(rf"\W*{g}\W*", t):
            return g
    best = None
    for pattern, group in _GROUP_SYNONYMS:
        m = re.search(pattern, t)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), group)
    return best[1] if best else None


def parse_free_text(text: str | None) -> str | None:
    """The answer text without markdown, quotes or prefixes; ``None`` if empty."""
    t = clean_text(text)
    return t or None


def parse_button_list(text: str | None) -> list[str] | None:
    """Button labels, one per line or separated by commas/semicolons; ``[]`` for NONE."""
    t = clean_text(text)
    if not t:
        return None
    items = []
    for part in re.split(r"[\n;]|,\s(?=[A-Z])", t):
        part = re.sub(r"^\s*(\d+[.)]|[-•])\s*", "", part).strip().strip("\"'“”.")
        if part:
            items.append(part)
    if all(re.fullmatch(r"(?i)(none|no(ne)?\.?|there (are|is) (no|none).*|n/?a)", i) for i in items):
        return []
    return [i for i in items if not re.fullmatch(r"(?i)none\.?", i)]


def parse_answer(task: str, text: str | None, question=None):
    """Dispatch to the parser of ``task``."""
    if task == "position":
        keys = list(question.target.keys()) if question and isinstance(question.target, dict) else \
            [f"{i}-{j}" for i in range(1, 5) for j in range(i + 1, 5)]
        return parse_position(text, keys)
    if task == "ui_group":
        return parse_ui_group(text)
    if task == "safety":
        return parse_button_list(text)
    if task in ("form_fill", "hint_text", "color", "text", "layout"):
        return parse_free_text(text)
    raise ValueError(f"no parser for task {task!r}")
