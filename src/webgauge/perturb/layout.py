"""Layout robustness: DOM edits that keep the page's function and the call-to-action in place.

The paper's operators (WebRSSBench Algorithm 3 and §3.2), mixed by level:

- ``wrap`` (wrapper injection): wrap an element in a new ``<div>`` container
  (``display:contents``, no box of its own); at ``hard`` wrappers are nested two deep;
- ``role`` (role replacement): replace a leaf element's tag (``<button>``, ``<a>``, headings,
  ...) by a ``<div>``/``<span>`` with the equivalent ARIA role, keeping its label text and its
  computed style (copied inline);
- ``hidden`` (redundant nodes): append hidden copies of elements at the end of ``<body>``;
- ``add`` / ``delete`` / ``move`` (§3.2, "deleting, adding, or moving nodes"): duplicate a
  minor node next to itself, remove one, or swap it with its next sibling, choosing only nodes
  that lie entirely below every protected element and outside its section.

Levels (operator counts in :data:`LAYOUT_LEVELS`): ``easy`` = a few redundant nodes plus one
added node, taken from the lowest third of the page so little reflows (Algorithm 3's easy
level is invisible on its own, and a pair the model cannot see differ tests nothing, so ours
adds one visible node); ``medium`` = one wrapper, one role
replacement, more redundant nodes and one add, delete and move; ``hard`` = nested wrappers,
several replacements, many redundant nodes and two of each visible edit.

Protected elements (the call-to-action) are never edited; their XPaths after the edits are
returned in ``record.tracked`` so the check can verify their boxes did not move.
"""

from __future__ import annotations

from .base import Change, PerturbationRecord, run_js, target_path

__all__ = ["apply_layout", "LAYOUT_LEVELS", "WRAP_DEPTH", "LayoutPerturbation"]

LAYOUT_LEVELS: dict[str, dict[str, int]] = {
    "easy": {"hidden": 2, "add": 1},
    "medium": {"wrap": 1, "role": 1, "hidden": 4, "add": 1, "delete": 1, "move": 1},
    "hard": {"wrap": 3, "role": 3, "hidden": 8, "add": 2, "delete": 2, "move": 2},
}
WRAP_DEPTH = {"easy": 1, "medium": 1, "hard": 2}

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
const touched = new Set();  // an edit never undoes another (delete the node just added, swap it back)
const minor = () => all().filter((el) => {
  if (isProt(el) || near.some((n) => n.contains(el))) return false;
  if (Array.from(touched).some((t) => t.contains(el) || el.contains(t))) return false;
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
      for (let d = 0; d < arg.depth; d++) {
        const w = document.createElement("div");
        w.style.display = "contents";
        el.parentNode.insertBefore(w, el); w.appendChild(el);
      }
    } else {
      const c = el.cloneNode(true);
      c.removeAttribute("id"); c.querySelectorAll("[id]").forEach((x) => x.removeAttribute("id"));
      c.hidden = true; c.style.setProperty("display", "none", "important");
      document.body.appendChild(c);
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
    let cands = minor();
    if (arg.gentle && cands.length) {  // easy: only the lowest third of the page's minor nodes (little reflow)
      cands = cands.map((e) => [H.box(e)[1], e]).sort((a, b) => b[0] - a[0]).map((x) => x[1])
        .slice(0, Math.max(1, Math.ceil(cands.length / 3)));
    }
    el = pick(cands);
    if (!el) continue;
    const path = H.pathOf(el);
    if (op === "delete") { el.remove(); changes.push({path: path, what: "delete"}); }
    else if (op === "add") {
      const c = el.cloneNode(true);
      c.removeAttribute("id"); c.querySelectorAll("[id]").forEach((x) => x.removeAttribute("id"));
      el.parentNode.insertBefore(c, el.nextSibling);
      touched.add(el); touched.add(c);
      changes.push({path: path, what: "add"});
    } else {
      const sib = el.nextElementSibling;
      if (!sib || sib.isEqualNode(el)) continue;
      el.parentNode.insertBefore(sib, el);
      touched.add(el); touched.add(sib);
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
    res = await run_js(page, _JS, {"seed": int(seed) & 0xFFFFFFFF, "ops": LAYOUT_LEVELS[level], "protect": paths,
                                     "depth": WRAP_DEPTH[level], "gentle": level == "easy"})
    return PerturbationRecord(family="layout", seed=seed, params={"level": level, "protect": paths},
                              changes=[Change(**c) for c in res["changes"]], tracked=res["tracked"])


class LayoutPerturbation:
    """The layout family as a :class:`~webgauge.perturb.base.Perturbation` (``level``, ``protect``)."""

    name = "layout"

    async def apply(self, page, seed: int, **params) -> PerturbationRecord:
        return await apply_layout(page, seed, **params)
