"""Seeded edits of a page, to check a visual metric against a reference implementation.

``edit_page(html, kind, seed)`` returns a candidate made from a reference page; the same page,
kind and seed give the same bytes. Kinds (:data:`EDIT_KINDS`):

* ``identical`` - the page itself;
* ``typos`` - 2 to 8 letters of visible text replaced;
* ``removed`` - 1 to 3 text elements (``p``, ``li``, ``h1``-``h6``, ``td``, ``a``) deleted;
* ``colours`` - the text of a few tags recoloured with one random colour (a style sheet rule);
* ``swapped`` - two sibling elements with text exchanged;
* ``narrow`` - the body squeezed to 600-1000 px and centred.

Elements are found with the standard library's HTML parser (offsets of start and end tags);
text inside ``script``, ``style`` and ``title`` is never edited.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from html.parser import HTMLParser

__all__ = ["EDIT_KINDS", "Element", "element_spans", "edit_page", "reference_pairs"]

EDIT_KINDS = ("identical", "typos", "removed", "colours", "swapped", "narrow")
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_RAW = {"script", "style", "title", "textarea"}
_TEXT_TAGS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "a")


@dataclass(frozen=True)
class Element:
    tag: str
    start: int      # offset of ``<tag``
    end: int        # offset just after ``</tag>``
    parent: int     # index of the parent element, -1 at the top
    text: str       # its visible text (whitespace collapsed)


class _Spans(HTMLParser):
    """Start offsets, end offsets and text of elements; an end tag closes the nearest open element
    of its name (and any left open inside it, which end where they started: no span)."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.source = source
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", source)]
        self.stack: list[tuple[str, int, int, int, list[str]]] = []   # tag, start, own index, parent, text
        self.found: list[Element | None] = []
        self.texts: list[tuple[int, int]] = []                         # (start, end) of editable text

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.line_starts[line - 1] + col

    def handle_starttag(self, tag, attrs):
        if tag in _VOID:
            return
        parent = self.stack[-1][2] if self.stack else -1
        self.stack.append((tag, self._offset(), len(self.found), parent, []))
        self.found.append(None)

    def handle_endtag(self, tag):
        if tag not in [t for t, *_ in self.stack]:
            return
        end = self.source.find(">", self._offset()) + 1
        while self.stack:
            t, start, idx, parent, text = self.stack.pop()
            self.found[idx] = Element(t, start, end if t == tag else start, parent,
                                      re.sub(r"\s+", " ", " ".join(text)).strip())
            if self.stack:
                self.stack[-1][4].extend(text)
            if t == tag:
                break

    def handle_data(self, data):
        if self.stack and self.stack[-1][0] in _RAW:
            return
        if self.stack:
            self.stack[-1][4].append(data)
        if data.strip():
            start = self._offset()
            self.texts.append((start, start + len(data)))


def element_spans(html: str) -> tuple[list[Element], list[tuple[int, int]]]:
    """The closed elements of ``html`` (in start order) and the spans of its editable text."""
    p = _Spans(html)
    p.feed(html)
    p.close()
    elements = [e for e in p.found if e is not None and e.end > e.start]
    return elements, p.texts


def _typos(html: str, rng: random.Random) -> str:
    _, texts = element_spans(html)
    spots = [i for s, e in texts for i in range(s, e) if html[i].isalpha() and html[i].isascii()
             and "&" not in html[max(s, i - 8):i]]
    if not spots:
        return html
    chars = list(html)
    for i in rng.sample(spots, min(len(spots), rng.randint(2, 8))):
        chars[i] = rng.choice([c for c in "abcdefghijklmnopqrstuvwxyz" if c != chars[i].lower()])
    return "".join(chars)


def _removed(html: str, rng: random.Random) -> str:
    elements, _ = element_spans(html)
    pool = [e for e in elements if e.tag in _TEXT_TAGS and len(e.text) >= 3]
    if not pool:
        return html
    chosen = sorted(rng.sample(pool, min(len(pool), rng.randint(1, 3))), key=lambda e: e.start, reverse=True)
    last_start = len(html) + 1
    for e in chosen:
        if e.end <= last_start:  # never cut inside an element already removed
            html = html[:e.start] + html[e.end:]
            last_start = e.start
    return html


def _inject_style(html: str, css: str) -> str:
    m = re.search(r"</head\s*>", html, re.IGNORECASE) or re.search(r"<body[^>]*>", html, re.IGNORECASE)
    at = m.start() if m and m.group(0).lower().startswith("</head") else (m.end() if m else 0)
    return html[:at] + f"<style>{css}</style>" + html[at:]


def _colours(html: str, rng: random.Random) -> str:
    tags = rng.sample(list(_TEXT_TAGS) + ["span", "div"], rng.randint(2, 5))
    colour = "#{:02x}{:02x}{:02x}".format(*(rng.randint(0, 255) for _ in range(3)))
    return _inject_style(html, f"{', '.join(tags)} {{ color: {colour} !important; }}")


def _swapped(html: str, rng: random.Random) -> str:
    elements, _ = element_spans(html)
    by_parent: dict[int, list[Element]] = {}
    for e in elements:
        if len(e.text) >= 3 and e.tag not in _RAW:
            by_parent.setdefault(e.parent, []).append(e)
    groups = [g for g in by_parent.values() if len(g) >= 2]
    if not groups:
        return html
    group = rng.choice(groups)
    a, b = sorted(rng.sample(group, 2), key=lambda e: e.start)
    if a.end > b.start:
        return html
    return html[:a.start] + html[b.start:b.end] + html[a.end:b.start] + html[a.start:a.end] + html[b.end:]


def _narrow(html: str, rng: random.Random) -> str:
    width = rng.randrange(600, 1001, 50)
    return _inject_style(html, f"body {{ max-width: {width}px !important; margin-left: auto !important; "
                               "margin-right: auto !important; }")


_EDITS = {"identical": lambda h, r: h, "typos": _typos, "removed": _removed, "colours": _colours,
          "swapped": _swapped, "narrow": _narrow}


def edit_page(html: str, kind: str, seed: int) -> str:
    """A candidate made from ``html`` by the edit ``kind`` (module docstring), seeded by ``seed``."""
    if kind not in _EDITS:
        raise ValueError(f"unknown edit {kind!r}; choose from {', '.join(EDIT_KINDS)}")
    return _EDITS[kind](html, random.Random(f"{kind}:{seed}"))


def reference_pairs(page_ids: list[str], n: int = 30, seed: int = 0) -> list[tuple[str, str, int]]:
    """``n`` (page id, edit kind, edit seed) triples: the kinds in turn, each on a page of its own
    while pages last (drawn with ``seed`` from the sorted ids)."""
    rng = random.Random(f"pairs:{seed}")
    ids = sorted(page_ids)
    order = rng.sample(ids, len(ids))
    return [(order[i % len(order)], EDIT_KINDS[i % len(EDIT_KINDS)], rng.randrange(1 << 16)) for i in range(n)]
