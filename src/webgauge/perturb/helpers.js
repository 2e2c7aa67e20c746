// Shared helpers for perturbation scripts: XPath paths that match the browser layer's
// element table ("/html[1]/body[1]/div[2]"), resolving targets, and color parsing.
() => {
  const pathOf = (el) => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      let i = 1;
      for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === e.tagName) i++;
      const tag = e.tagName.toLowerCase();
      const isSvg = e.namespaceURI && e.namespaceURI !== "http://www.w3.org/1999/xhtml";
      parts.unshift((isSvg ? "*[name()='" + tag + "']" : tag) + "[" + i + "]");
    }
    return "/" + parts.join("/");
  };
  const resolve = (t) => {
    let el = null;
    if (t.startsWith("css=")) el = document.querySelector(t.slice(4));
    else el = document.evaluate(t, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
    if (!el) throw new Error("perturbation target not found: " + t);
    return el;
  };
  const rgb = (s) => { const m = (s || "").match(/[\d.]+/g) || [0, 0, 0]; return m.slice(0, 4).map(Number); };
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 &&
    (!el.checkVisibility || el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })); };
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.x + scrollX, r.y + scrollY, r.width, r.height]; };
  const effectiveBg = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length < 4 || c[3] > 0) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  return { pathOf, resolve, rgb, visible, box, effectiveBg };
}
