"""Text robustness: perturb one button label so that it still means the same thing.

Kinds (all seeded): ``homoglyph`` (Latin letters swapped for Cyrillic/Greek look-alikes),
``spaces`` (a space inserted inside a word), ``symbols`` (a symbol inserted inside a word),
``shuffle`` (interior letters of one word shuffled, first and last kept), ``reverse`` (word
order reversed; a single word gets its interior letters reversed) and ``punctuation``
(punctuation appended). Only the label's longest text node (or an input button's value) is
edited, so the invariance check can demand that no other text on the page changes.
"""

from __future__ import annotations

import random

from .base import Change, PerturbationRecord, run_js, target_path

__all__ = ["apply_text", "perturb_label", "TEXT_KINDS", "TextPerturbation"]

TEXT_KINDS = ("homoglyph", "spaces", "symbols", "shuffle", "reverse", "punctuation")
HOMOGLYPHS = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і",
              "A": "А", "B": "В", "E": "Е", "H": "Н", "K": "К", "M": "М", "O": "О", "P": "Р",
              "C": "С", "T": "Т", "X": "Х", "s": "ѕ", "j": "ј", "N": "Ν", "Z": "Ζ"}
SYMBOLS = ("*", "_", "·", "-", "~", "|")
PUNCT = ("!", "!!", "...", "?!", " !", ".")


def _inside(rng: random.Random, word: str) -> int:
    return rng.randint(1, len(word) - 1)


def perturb_label(text: str, kind: str, rng: random.Random) -> str:
    """Return a function-preserving variant of ``text`` of the given ``kind`` (always different).

    Raises ``ValueError`` for an unknown kind or a label that this kind cannot change
    (e.g. ``shuffle`` on a label with no word of four letters or more).
    """
    if kind not in TEXT_KINDS:
        raise ValueError(f"unknown text perturbation {kind!r}; choose one of {TEXT_KINDS}")
    words = text.split(" ")
    longish = [i for i, w in enumerate(words) if len(w) >= 2]
    if not text.strip() or (kind != "punctuation" and not longish):
        raise ValueError(f"label {text!r} is too short for a {kind!r} perturbation")
    if kind == "homoglyph":
        spots = [i for i, ch in enumerate(text) if ch in HOMOGLYPHS]
        if not spots:
            raise ValueError(f"label {text!r} has no letter with a look-alike")
        chars = list(text)
        for i in rng.sample(spots, k=min(len(spots), rng.randint(1, 2))):
            chars[i] = HOMOGLYPHS[chars[i]]
        return "".join(chars)
    if kind in ("spaces", "symbols"):
        i = rng.choice(longish)
        w = words[i]
        j = _inside(rng, w)
        words[i] = w[:j] + (" " if kind == "spaces" else rng.choice(SYMBOLS)) + w[j:]
        return " ".join(words)
    if kind == "shuffle":
        cands = [i for i, w in enumerate(words) if len(w) >= 4 and len(set(w[1:-1])) > 1]
        if not cands:
            raise ValueError(f"label {text!r} has no word of four or more letters to shuffle")
        i = rng.choice(cands)
        w = words[i]
        mid = list(w[1:-1])
        while "".join(mid) == w[1:-1]:
            rng.shuffle(mid)
        words[i] = w[0] + "".join(mid) + w[-1]
        return " ".join(words)
    if kind == "reverse":
        if len([w for w in words if w]) >= 2:
            return " ".join(reversed(words))
        w = words[longish[0]]
        if len(w) < 4 or w[1:-1] == w[1:-1][::-1]:
            raise ValueError(f"label {text!r} cannot be reversed into something different")
        return w[0] + w[1:-1][::-1] + w[-1]
    return text.rstrip() + rng.choice(PUNCT)


_READ_JS = """
const el = H.resolve(arg);
if (el.tagName === "INPUT") return {kind: "value", text: el.value};
const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
let best = null, idx = -1, k = 0;
for (let n = walker.nextNode(); n; n = walker.nextNode(), k++)
  if (n.textContent.trim() && (!best || n.textContent.trim().length > best.textContent.trim().length)) { best = n; idx = k; }
if (!best) return null;
return {kind: "text", text: best.textContent, index: idx};
"""

_WRITE_JS = """
const el = H.resolve(arg.path);
if (arg.kind === "value") { el.value = arg.text; el.setAttribute("value", arg.text); return true; }
const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
let k = 0;
for (let n = walker.nextNode(); n; n = walker.nextNode(), k++)
  if (k === arg.index) { n.textContent = arg.text; return true; }
return false;
"""


async def apply_text(page, element_id, kind: str, seed: int) -> PerturbationRecord:
    """Perturb the label of one element of a live page (``element_id``: an ``Element``, an
    XPath, ``css=...`` or an element id from a capture of this page)."""
    path = await target_path(page, element_id)
    node = await run_js(page, _READ_JS, path)
    if node is None:
        raise ValueError(f"element {path} has no text to perturb; choose a labelled button")
    raw = node["text"]
    lead = raw[: len(raw) - len(raw.lstrip())]
    trail = raw[len(raw.rstrip()):]
    new = perturb_label(raw.strip(), kind, random.Random(f"text:{seed}:{kind}"))
    ok = await run_js(page, _WRITE_JS, {"path": path, "kind": node["kind"], "index": node.get("index"),
                                        "text": lead + new + trail})
    if not ok:
        raise RuntimeError(f"could not write the perturbed label into {path}")
    return PerturbationRecord(family="text", seed=seed, params={"kind": kind},
                              changes=[Change(path=path, what="text", before=raw.strip(), after=new)])


class TextPerturbation:
    """The text family as a :class:`~webgauge.perturb.base.Perturbation` (``target``, ``kind``)."""

    name = "text"

    async def apply(self, page, seed: int, **params) -> PerturbationRecord:
        return await apply_text(page, params["target"], params.get("kind", "homoglyph"), seed)
