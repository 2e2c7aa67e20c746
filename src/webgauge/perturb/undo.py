"""Undoing a perturbation on the live page, only where the undo is provably exact.

A suite that asks several perturbed questions about one page needs the clean page back
between perturbations. Reloading gives it, but costs a navigation, a parse, a layout and an
image decode per perturbation. :class:`EditLog` does it in place instead, and only when the
result is exactly the clean page:

- **the page cannot observe the edits.** Undo is used only on pages with no ``<script>``, no
  frame, object or embed, and no inline handler other than user-input events (``onclick``,
  ``onsubmit``, ...; no input is ever sent during a build). Such a page has no script state
  that a perturbation or its undo could change: its state is its DOM, its form controls and
  its styles. A page with scripts is always reloaded.
- **the inverse operations are recorded, not guessed.** A ``MutationObserver`` (with old
  values) records every mutation from :meth:`EditLog.start` on; :meth:`EditLog.undo` reverts
  attribute and text edits in reverse order (the same attribute node gets its old value back,
  a removed attribute is re-added at its old place in the element's attribute list, the same
  text node gets its old data back). Any
  structural mutation (nodes added, removed or moved: the layout family) makes the undo
  inexact and the caller reloads.
- **the result is checked.** A fingerprint of the clean page (the serialized DOM, which
  includes attribute order, plus every form control's value, checkedness and selection, and
  the scroll offsets) is taken before the edit and compared after the undo; any difference
  (an attribute re-added at the end of the list, an input whose ``value`` property was set)
  makes the undo inexact and the caller reloads.

The log's observer lives in a symbol-keyed property of ``window``, set only on pages that
run no script, and is removed by :meth:`EditLog.undo`.
"""

from __future__ import annotations

__all__ = ["EditLog", "UNDO_SAFE_HANDLERS"]

#: Inline handlers that only fire on user input, which a build never sends: harmless for undo.
UNDO_SAFE_HANDLERS = ("click", "dblclick", "mousedown", "mouseup", "mouseover", "mouseout", "mouseenter",
                      "mouseleave", "mousemove", "pointerdown", "pointerup", "pointerover", "pointerout",
                      "pointerenter", "pointerleave", "pointermove", "keydown", "keyup", "keypress", "submit",
                      "reset", "change", "input", "focus", "blur", "focusin", "focusout", "contextmenu",
                      "wheel", "touchstart", "touchend", "touchmove", "drag", "dragstart", "dragend", "dragover",
                      "dragenter", "dragleave", "drop", "copy", "cut", "paste", "invalid")

_START_JS = r"""
(safe) => {
  const key = Symbol.for("webgauge.editlog");
  // only pages that run no script: nothing on them can observe the log or the edits
  if (document.querySelector("script, iframe, frame, object, embed")) return {ok: false, why: "scripted"};
  const allowed = new Set(safe);
  for (const el of document.getElementsByTagName("*"))
    for (const a of el.attributes)
      if (a.name.startsWith("on") && !allowed.has(a.name.slice(2))) return {ok: false, why: "handler " + a.name};
  // an endless animation keeps changing the page; finite ones end, and every perturbation
  // script waits for them (it settles the page first)
  if (document.getAnimations && document.getAnimations().some((a) => {
    const t = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
    return !t || t.iterations === Infinity; })) return {ok: false, why: "animated"};
  const fp = () => {
    let s = document.documentElement.outerHTML + "\u0000" + scrollX + "," + scrollY;
    for (const el of document.querySelectorAll("input, textarea, select"))
      s += "\u0000" + el.value + "|" + !!el.checked + "|" + (el.selectedIndex === undefined ? "" : el.selectedIndex);
    return s;
  };
  // every element's attribute order, to put a removed-then-restored attribute back in place
  const order = new Map();
  for (const el of document.getElementsByTagName("*"))
    if (el.attributes.length > 1) order.set(el, el.getAttributeNames());
  const log = [];
  const mo = new MutationObserver((recs) => { for (const r of recs) log.push(r); });
  mo.observe(document, {subtree: true, childList: true, attributes: true, attributeOldValue: true,
                        characterData: true, characterDataOldValue: true});
  Object.defineProperty(window, key, {value: {mo, log, fp, order, clean: fp()}, configurable: true});
  // nothing left that a settle would wait for: no animation or transition, every image loaded, fonts loaded
  const quiet = !(document.getAnimations && document.getAnimations().some((a) => a.playState === "running"))
    && Array.from(document.images).every((im) => im.complete)
    && (!document.fonts || document.fonts.status === "loaded");
  return {ok: true, why: "", quiet};
}
"""

_UNDO_JS = r"""
() => {
  const key = Symbol.for("webgauge.editlog");
  const st = window[key];
  if (!st) return {exact: false, why: "no edit log on the page (it navigated?)", edits: 0};
  delete window[key];
  for (const r of st.mo.takeRecords()) st.log.push(r);
  st.mo.disconnect();
  const log = st.log, readded = new Set();
  for (let i = log.length - 1; i >= 0; i--) {
    const r = log[i];
    if (r.type === "attributes") {
      if (r.attributeNamespace !== null) return {exact: false, why: "namespaced attribute", edits: log.length};
      if (r.oldValue === null) {
        // an inline style written through the CSSOM is serialized into its attribute lazily;
        // setting the attribute first makes the removal take (else Chromium leaves style="")
        r.target.setAttribute(r.attributeName, "");
        r.target.removeAttribute(r.attributeName);
      }
      else {
        if (!r.target.hasAttribute(r.attributeName)) readded.add(r.target);
        r.target.setAttribute(r.attributeName, r.oldValue);
      }
    } else if (r.type === "characterData") {
      r.target.data = r.oldValue;
    } else {
      return {exact: false, why: "nodes added, removed or moved", edits: log.length};
    }
  }
  // a re-added attribute went to the end of the list: re-append the ones that followed it
  for (const el of readded) {
    const want = st.order.get(el) || [];
    const have = el.getAttributeNames();
    let i = 0;
    while (i < want.length && want[i] === have[i]) i++;
    for (const name of want.slice(i)) {
      const v = el.getAttribute(name);
      el.removeAttribute(name);
      el.setAttribute(name, v);
    }
  }
  const now = st.fp();
  if (now !== st.clean)
    return {exact: false, why: "page differs from the clean page after the undo", edits: log.length};
  return {exact: true, why: "", edits: log.length};
}
"""


class EditLog:
    """Record the edits made to a live page and undo them exactly, or say that it cannot.

    >>> log = EditLog(page)
    >>> await log.start()          # False: the page runs scripts; reload it instead
    >>> ...                        # perturb, capture
    >>> await log.undo()           # True: the page is the clean page again; False: reload it

    ``why`` says why the last :meth:`start` or :meth:`undo` was not exact; ``quiet`` whether, at
    :meth:`start`, nothing was running that a settle waits for (animations, transitions, images,
    fonts).
    """

    def __init__(self, page) -> None:
        self.page = page
        self.active = False
        self.why = ""
        self.quiet = False

    async def start(self) -> bool:
        """Start recording; ``False`` (nothing recorded) when the page is not eligible."""
        res = await self.page.evaluate(_START_JS, list(UNDO_SAFE_HANDLERS))
        self.active, self.why = bool(res["ok"]), res["why"]
        self.quiet = self.active and bool(res.get("quiet"))
        return self.active

    async def undo(self) -> bool:
        """Revert every recorded edit; ``True`` only if the page is exactly the clean page again."""
        if not self.active:
            return False
        self.active = False
        res = await self.page.evaluate(_UNDO_JS)
        self.why = res["why"]
        return bool(res["exact"])
