"""Text robustness: perturb one button label so that it still means the same thing.

The paper's strategies (WebRSSBench, Algorithm 2), one drawn per page, all seeded:

- ``substitute``: visible look-alike characters, a→@, e→3, l→1, o→0 (every occurrence);
- ``shuffle``: the whole label's characters shuffled (labels longer than 3 characters);
- ``reverse``: the whole label reversed, character by character;
- ``spaces``: a space between every two characters;
- ``punctuation``: "!" or "·" inserted (at the end, or between two words).

As in Algorithm 2, when a strategy leaves the label unchanged (``substitute`` on "Buy",
``shuffle`` on "Go", ``reverse`` on a palindrome) the fallback marker :data:`MARKER` is
appended. The paper names no marker; ours is " ¤" (a visible symbol no label uses).
The paper's "replace with a keyword (e.g. Submit) when a trigger word is found" changes what
the label says, so we leave it out.

Ours, reported apart (:data:`EXTRA_TEXT_KINDS`): ``homoglyph`` swaps Latin letters for
Cyrillic/Greek look-alikes. It often renders with the very same glyph, so the suite's no-op
rejection (:func:`webgauge.perturb.changed_fraction`) drops many of its pairs.

Only the label's longest text node (or an input button's value) is edited, so the invariance
check can demand that no other text on the page changes.
"""

from __future__ import annotations

import random

from .base import Change, PerturbationRecord, run_js, target_path

__all__ = ["apply_text", "perturb_label", "TEXT_KINDS", "PAPER_TEXT_KINDS", "EXTRA_TEXT_KINDS", "MARKER",
           "SUBSTITUTIONS", "TextPerturbation"]

PAPER_TEXT_KINDS = ("substitute", "shuffle", "reverse", "spaces", "punctuation")
EXTRA_TEXT_KINDS = ("homoglyph",)
TEXT_KINDS = PAPER_TEXT_KINDS + EXTRA_TEXT_KINDS
SUBSTITUTIONS = {"a": "@", "e": "3", "l": "1", "o": "0", "A": "@", "E": "3", "O": "0"}
INSERTED = ("!", "·")
MARKER = " ¤"
HOMOGLYPHS = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і",
              "A": "А", "B": "В", "E": "Е", "H": "Н", "K": "К", "M": "М", "O": "О", "P": "Р",
              "C": "С", "T": "Т", "X": "Х", "s": "ѕ", "j": "ј", "N": "Ν", "Z": "Ζ"}


def _strategy(text: str, kind: str, rng: random.Random) -> str:
    if kind == "substitute":
        return "".join(SUBSTITUTIONS.get(ch, ch) for ch in text)
    if kind == "shuffle":
        if len(text) <= 3:
            return text
        chars = list(text)
        for _ in range(8):  # a few draws; a label of one repeated letter stays as it is
            rng.shuffle(chars)
            if "".join(chars) != text:
                break
        return "".join(chars)
    if kind == "reverse":
        return text[::-1]
    if kind == "spaces":  # a word gap stays one space: HTML would collapse more anyway
        return " ".join(ch for ch in text if ch != " ")
    if kind == "punctuation":
        mark = rng.choice(INSERTED)
        gaps = [i for i, ch in enumerate(text) if ch == " "]
        if gaps and rng.random() < 0.5:
            i = rng.choice(gaps)
            return text[:i] + " " + mark + text[i:]
        return text + mark
    # homoglyph (ours)
    spots = [i for i, ch in enumerate(text) if ch in HOMOGLYPHS]
    chars = list(text)
    for i in rng.sample(spots, k=min(len(spots), rng.randint(1, 2))):
        chars[i] = HOMOGLYPHS[chars[i]]
    return "".join(chars)


def perturb_label(text: str, kind: str, rng: random.Random) -> str:
    """Return a function-preserving variant of ``text`` of the given ``kind`` (always different:
    a strategy that changes nothing gets the fallback :data:`MARKER` appended, as in the paper).

    Raises ``ValueError`` for an unknown kind or an empty label.
    """
    if kind not in TEXT_KINDS:
        raise ValueError(f"unknown text perturbation {kind!r}; choose one of {TEXT_KINDS}")
    if not text.strip():
        raise ValueError(f"label {text!r} has no text to perturb; choose a labelled button")
    out = _strategy(text, kind, rng)
    return out if out != text else text + MARKER


_READ_JS = """
const el = H.resolve(arg);
if (el.tagName === "INPUT") return {kind: "value", text: el.value};
const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
let best = null, idx = -1, k = 0;
for (let n = walker.nextNode(); n; n = walker.nextNode(), k++)
  if (n.textContent.trim() && (!best || n.textContent.trim().length > best.textContent.trim().length)) { best = n; idx \
= k; }
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
                                        "text": lead + new + trail}, settled=True)  # right after the read
    if not ok:
        raise RuntimeError(f"could not write the perturbed label into {path}")
    return PerturbationRecord(family="text", seed=seed, params={"kind": kind},
                              changes=[Change(path=path, what="text", before=raw.strip(), after=new)])


class TextPerturbation:
    """The text family as a :class:`~webgauge.perturb.base.Perturbation` (``target``, ``kind``)."""

    name = "text"

    async def apply(self, page, seed: int, **params) -> PerturbationRecord:
        return await apply_text(page, params["target"], params.get("kind", "homoglyph"), seed)
