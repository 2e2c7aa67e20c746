// Read-only: collects links, images, background images and backend routes from the
// rendered DOM. Boxes are in CSS px of the page (viewport box + scroll offset).
() => {
  const sx = window.scrollX, sy = window.scrollY;
  const out = [];
  const isVisible = (el) => {
    const r = el.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) return null;
    if (el.checkVisibility && !el.checkVisibility({opacityProperty: true, visibilityProperty: true,
                                                    contentVisibilityAuto: true})) return null;
    return r;
  };
  const effectiveBg = (el) => {
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor;
      if (c && c !== "transparent" && !/rgba\([^)]*,\s*0\)$/.test(c)) return c;
    }
    return null;
  };
  const text = (el) => (el.innerText || el.textContent || "").replace(/\s+/g, " ").trim().slice(0, 300);
  const push = (el, r, type, url, extra) => {
    const cs = getComputedStyle(el);
    out.push(Object.assign({
      type, url,
      box: [[r.left + sx, r.top + sy], [r.right + sx, r.bottom + sy]],
      text: "", color: cs.color, background_color: effectiveBg(el),
    }, extra || {}));
  };
  for (const a of document.querySelectorAll("a[href]")) {
    const r = isVisible(a); if (!r) continue;
    push(a, r, "link", a.href, {text: text(a), raw_url: a.getAttribute("href")});
  }
  for (const img of document.querySelectorAll("img[src], input[type=image][src]")) {
    const r = isVisible(img); if (!r) continue;
    push(img, r, "image", img.src, {text: (img.getAttribute("alt") || "").trim(), raw_url: img.getAttribute("src")});
  }
  for (const el of document.querySelectorAll("body, body *")) {
    const bg = getComputedStyle(el).backgroundImage;
    if (!bg || bg === "none") continue;
    const m = /url\(["']?([^"')]+)["']?\)/.exec(bg);
    if (!m) continue;
    const r = isVisible(el); if (!r) continue;
    push(el, r, "background_image", new URL(m[1], document.baseURI).href,
         {text: text(el).slice(0, 120), raw_url: m[1]});
  }
  for (const f of document.querySelectorAll("form[action]")) {
    const r = isVisible(f); if (!r) continue;
    const fields = [...f.elements].filter(e => e.name && e.type !== "submit").map(e => e.name);
    const method = (f.getAttribute("method") || "GET").toUpperCase();
    push(f, r, "backend_route", f.action, {method, fields, via: "form", text: text(f).slice(0, 120)});
  }
  for (const el of document.querySelectorAll("[data-fetch]")) {
    const r = isVisible(el); if (!r) continue;
    push(el, r, "backend_route", new URL(el.getAttribute("data-fetch"), document.baseURI).href,
         {method: (el.getAttribute("data-method") || "POST").toUpperCase(), via: "fetch", text: text(el)});
  }
  const de = document.documentElement;
  return {resources: out, url: location.href,
          viewport: [window.innerWidth, window.innerHeight],
          page_size: [Math.max(de.scrollWidth, document.body ? document.body.scrollWidth : 0),
                      Math.max(de.scrollHeight, document.body ? document.body.scrollHeight : 0)]};
}
