// Read-only probes and form filling used by the functional checks.
// arg.op: "images" | "fill_form" | "submit_form"
(arg) => {
  if (arg.op === "images") {
    const imgs = [...document.querySelectorAll("img")].map(i => ({
      url: i.currentSrc || i.src, loaded: i.complete && i.naturalWidth > 0}));
    return imgs;
  }
  const norm = (u) => { try { return new URL(u, document.baseURI).pathname; } catch (e) { return u; } };
  const method = (f) => (f.getAttribute("method") || "GET").toUpperCase();
  const shown = (f) => { const r = f.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  // the forms sent to the route (its method too, when given), a visible one first
  const forms = [...document.querySelectorAll("form")].filter(f => norm(f.getAttribute("action") || location.href) === arg.path
                                                               && (!arg.method || method(f) === arg.method));
  const form = forms.find(shown) || forms[0];
  if (!form) return null;
  if (arg.op === "fill_form") {
    for (const el of form.elements) {
      const t = (el.type || "").toLowerCase();
      if (["submit", "button", "reset", "hidden", "file", "image"].includes(t) || el.disabled) continue;
      if (t === "checkbox" || t === "radio") { el.checked = true; continue; }
      if (el.tagName === "SELECT") { if (el.options.length) el.selectedIndex = el.options.length - 1; continue; }
      el.value = t === "email" ? "test@example.com" : t === "number" ? "3" : t === "tel" ? "5550100"
               : t === "url" ? "https://example.com" : t === "date" ? "2026-01-01" : "webgauge";
    }
    const btn = form.querySelector("button:not([type=button]):not([type=reset]), input[type=submit], input[type=image]");
    if (!btn) return {button: null};
    const r = btn.getBoundingClientRect();
    return {button: [r.left + window.scrollX + r.width / 2, r.top + window.scrollY + r.height / 2]};
  }
  if (arg.op === "submit_form") { form.requestSubmit(); return true; }
  return null;
}
