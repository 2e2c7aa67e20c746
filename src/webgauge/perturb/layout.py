"""Layout robustness: DOM edits that keep the page's function and the call-to-action in place.

Operations, mixed by level (``easy``, ``medium``, ``hard``):

- ``wrap``: wrap an element in ``<div style="display:contents">`` (no box of its own);
- ``hidden``: insert a hidden (``hidden`` attribute) copy of an element next to it;
- ``role``: replace a leaf element's tag by a ``<div>``/``<span>`` with the equivalent ARIA
  role, its computed style copied inline so it looks the same;
- ``delete`` / ``move``: remove a minor node, or swap it with its next sibling, choosing only
  nodes that lie entirely below every protected element and outside its section.

Protected elements (the call-to-action) are never edited; their XPaths after the edits are
returned in ``record.tracked`` so the check can verify their boxes did not move.
"""

from __future__ import annotations

from .base import Change, PerturbationRecord, run_js, target_path

__all__ = ["apply_layout", "LAYOUT_LEVELS", "LayoutPerturbation"]

LAYOUT_LEVELS: dict[str, dict[str, int]] = {
    "easy": {"wrap": 2, "hidden": 2},
    "medium": {"wrap": 3, "hidden": 3, "role": 2, "delete": 1},
    "hard": {"wrap": 5, "hidden": 4, "role": 4, "delete": 2, "move": 2},
}

_JS = r"""
let s = arg.seed >>> 0;
const rand = () => { s = (s + 0x6D2B79F5) >>> 0; let t = s;
  t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
const pick = (xs) => xs.length ? xs[Math.floor(rand() * xs.length)] : null;
const prot = arg.protect.map(H.resolve);
const isProt = (el) => prot.some((p) => p === el || el.contains(p) || p.contains(el));
const protBottom = Math.max(0, ...prot.map((p) => { const b = H.box(p); return b[1] + b[3]; }));
const near = prot.map((p) => (p.parentElement && p.parentElement.parentElement) || p);
const all = () => Array.from(document.body.querySelectorAll("*")).filter((el) =>
  !["SCRIPT", "STYLE", "TEMPLATE", "NOSCRIPT"].includes(el.tagName) && H.visible(el));
const ROLE = {BUTTON: "button", A: "link", H2: "heading", H3: "heading", H4: "heading", H5: "heading",
  H6: "heading", P: "paragraph", LI: "listitem", SMALL: "note"};
const minor = () => all().filter((el) => {
  if (isProt(el) || near.some((n) => n.contains(el))) return false;
  if (!["P", "LI", "SPAN", "A", "IMG", "SMALL", "H3", "H4", "H5", "H6"].includes(el.tagName)) return false;
  const b = H.box(el);
  return b[1] >= protBottom + 1 && b[2] * b[3] < 60000 && el.childElementCount <= 3;
});
const changes = [];
const ops = [];
for (const [op, n] of Object.entries(arg.ops)) for (let i = 0; i < n; i++) ops.push(op);
for (const op of ops) {
  let el = null;
  if (op === "wrap" || op === "hidden") {
    el = pick(all().filter((e) => !prot.includes(e) && e.tagName !== "BODY" &&
                                  (op === "wrap" || !isProt(e))));
    if (!el) continue;
    const path = H.pathOf(el);
    if (op === "wrap") {
      const w = document.createElement("div");
      w.style.display = "contents";
      el.parentNode.insertBefore(w, el); w.appendChild(el);
    } else {
      const c = el.cloneNode(true);
      c.removeAttribute("id"); c.querySelectorAll("[id]").forEach((x) => x.removeAttribute("id"));
      c.hidden = true; c.style.setProperty("display", "none", "important");
      el.parentNode.insertBefore(c, el.nextSibling);
    }
    changes.push({path: path, what: op});
  } else if (op === "role") {
    el = pick(all().filter((e) => ROLE[e.tagName] && !isProt(e) && e.childElementCount <= 2));
    if (!el) continue;
    const path = H.pathOf(el), cs = getComputedStyle(el);
    const inline = cs.display.startsWith("inline");
    const r = document.createElement(inline ? "span" : "div");
    // sorted: the order of custom properties in a computed style is not stable from run to run
    for (const p of Array.from(cs).sort()) r.style.setProperty(p, cs.getPropertyValue(p));
    for (const a of el.attributes) if (a.name !== "style") r.setAttribute(a.name, a.value);
    r.setAttribute("role", ROLE[el.tagName]);
    if (ROLE[el.tagName] === "heading") r.setAttribute("aria-level", el.tagName.slice(1));
    if (["button", "link"].includes(ROLE[el.tagName])) r.setAttribute("tabindex", "0");
    while (el.firstChild) r.appendChild(el.firstChild);
    el.replaceWith(r);
    changes.push({path: path, what: "role", before: el.tagName.toLowerCase(), after: ROLE[el.tagName]});
  } else {
    el = pick(minor());
    if (!el) continue;
    const path = H.pathOf(el);
    if (op === "delete") { el.remove(); changes.push({path: path, what: "delete"}); }
    else {
      const sib = el.nextElementSibling;
      if (!sib) continue;
      el.parentNode.insertBefore(sib, el);
      changes.push({path: path, what: "move"});
    }
  }
}
return {changes: changes, tracked: Object.fromEntries(arg.protect.map((p, i) => [p, H.pathOf(prot[i])]))};
"""


async def apply_layout(page, seed: int, level: str = "medium", *, protect=()) -> PerturbationRecord:
    """Apply seeded layout edits of ``level`` to a live page, never touching ``protect`` targets
    (Elements, XPaths or ``css=`` selectors, typically the call-to-action)."""
    if level not in LAYOUT_LEVELS:
        raise ValueError(f"unknown layout level {level!r}; choose one of {tuple(LAYOUT_LEVELS)}")
    paths = [await target_path(page, t) for t in protect]
    res = await run_js(page, _JS, {"seed": int(seed) & 0xFFFFFFFF, "ops": LAYOUT_LEVELS[level], "protect": paths})
    return PerturbationRecord(family="layout", seed=seed, params={"level": level, "protect": paths},
                              changes=[Change(**c) for c in res["changes"]], tracked=res["tracked"])


class LayoutPerturbation:
    """The layout family as a :class:`~webgauge.perturb.base.Perturbation` (``level``, ``protect``)."""

    name = "layout"

    async def apply(self, page, seed: int, **params) -> PerturbationRecord:
        return await apply_layout(page, seed, **params)
