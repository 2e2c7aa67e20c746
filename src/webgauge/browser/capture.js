// Collects the element table of a rendered page. Read-only: it defines no globals,
// sets no attributes and inserts nothing, so the page cannot see that it ran (opts.freshLayout
// only switches the root's display and back within the script).
(opts) => {
  const maxElements = opts.maxElements || 20000;
  if (opts.freshLayout) {
    // The layout built afresh first: the root's display switched and back within this task,
    // through a style sheet adopted for that moment (no attribute changes), makes Blink build the
    // document's layout objects anew. Blink keeps some layout state from the page's history (an
    // inline box once given a box of its own keeps it), and the fresh ones give every capture of
    // the same DOM the same boxes. The display never becomes none: no animation restarts, no
    // scroll or focus is lost.
    const root = document.documentElement;
    const other = getComputedStyle(root).display === "flow-root" ? "block" : "flow-root";
    const swap = new CSSStyleSheet();
    swap.replaceSync(`:root { display: ${other} !important; }`);
    const sheets = [...document.adoptedStyleSheets];  // a copy: the property is a live array
    document.adoptedStyleSheets = [...sheets, swap];
    root.getBoundingClientRect();
    document.adoptedStyleSheets = sheets;
    root.getBoundingClientRect();
  }
  const skip = new Set(["SCRIPT", "STYLE", "HEAD", "META", "LINK", "NOSCRIPT", "TEMPLATE", "TITLE", "BASE"]);
  const ATTRS = ["id", "class", "href", "src", "type", "name", "placeholder", "value", "aria-label",
    "title", "alt", "action", "method", "for", "role", "disabled", "target", "data-testid",
    "aria-hidden", "aria-disabled", "aria-selected", "aria-checked", "aria-expanded", "tabindex",
    "contenteditable", "draggable", "checked", "selected", "required", "readonly"];
  // The view: the layout viewport, but on a phone (opts.mobile) a page wider than the screen grows
  // the layout viewport to its own width (innerWidth) while the screen, and the screenshot, show the
  // visual viewport at scale 1; the view is that one then, at its page offset.
  const vv = window.visualViewport;
  const visual = !!(opts.mobile && vv && window.innerWidth > vv.width + 1);
  const lx = window.scrollX, ly = window.scrollY;  // boxes: page CSS px (client rect + layout scroll)
  const ox = visual ? vv.offsetLeft : 0, oy = visual ? vv.offsetTop : 0;  // the view within the layout viewport
  const sx = lx + ox, sy = ly + oy;  // the view's page offset (the snapshot's scroll)
  const vw = visual ? vv.width : window.innerWidth, vh = visual ? vv.height : window.innerHeight;
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
  const cut = (s, n) => (s.length > n ? s.slice(0, n) : s);
  // DOM paths (XPath) computed in one pass: elements arrive in document order, so each
  // parent's path is known and sibling indices are counted, not searched (O(n)).
  const paths = new Map();
  const counters = new Map();
  const pathOf = (el) => {
    const known = paths.get(el);
    if (known !== undefined) return known;
    const parent = el.parentElement;
    const tag = el.tagName.toLowerCase();
    let p;
    if (!parent) p = "/" + tag + "[1]";
    else {
      let c = counters.get(parent);
      if (!c) {
        // first child seen of this parent: index every child at once
        c = new Map();
        for (let s = parent.firstElementChild; s; s = s.nextElementSibling) {
          const n = (c.get(s.tagName) || 0) + 1;
          c.set(s.tagName, n);
          c.set(s, n);
        }
        counters.set(parent, c);
      }
      const isSvg = el.namespaceURI && el.namespaceURI !== "http://www.w3.org/1999/xhtml";
      p = pathOf(parent) + "/" + (isSvg ? "*[name()='" + tag + "']" : tag) + "[" + c.get(el) + "]";
    }
    paths.set(el, p);
    return p;
  };
  const implicitRole = (el) => {
    const t = el.tagName;
    const type = (el.getAttribute("type") || "text").toLowerCase();
    switch (t) {
      case "A": return el.hasAttribute("href") ? "link" : "generic";
      case "BUTTON": return "button";
      case "INPUT":
        if (["button", "submit", "reset", "image"].includes(type)) return "button";
        if (type === "checkbox") return "checkbox";
        if (type === "radio") return "radio";
        if (type === "range") return "slider";
        if (type === "number") return "spinbutton";
        if (type === "search") return "searchbox";
        if (type === "hidden") return "";
        return "textbox";
      case "SELECT": return (el.multiple || el.size > 1) ? "listbox" : "combobox";
      case "TEXTAREA": return "textbox";
      case "OPTION": return "option";
      case "IMG": return el.getAttribute("alt") === "" ? "presentation" : "img";
      case "NAV": return "navigation";
      case "MAIN": return "main";
      case "ASIDE": return "complementary";
      case "HEADER": return el.closest("article,aside,main,nav,section") ? "generic" : "banner";
      case "FOOTER": return el.closest("article,aside,main,nav,section") ? "generic" : "contentinfo";
      case "FORM": return "form";
      case "SECTION": return (el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby")) ? "region" : "generic";
      case "ARTICLE": return "article";
      case "H1": case "H2": case "H3": case "H4": case "H5": case "H6": return "heading";
      case "UL": case "OL": return "list";
      case "LI": return "listitem";
      case "TABLE": return "table";
      case "TR": return "row";
      case "TD": return "cell";
      case "TH": return "columnheader";
      case "DIALOG": return "dialog";
      case "P": return "paragraph";
      case "HR": return "separator";
      case "FIELDSET": return "group";
      case "PROGRESS": return "progressbar";
      case "SUMMARY": return "button";
      case "LABEL": return "";
      default: return "generic";
    }
  };
  const byId = (id) => document.getElementById(id);
  const labelText = (el) => {
    if (el.labels && el.labels.length) return norm(Array.from(el.labels).map((l) => l.innerText).join(" "));
    return "";
  };
  // `inner`: the element's innerText when the caller has it already (null: not read yet)
  const nameOf = (el, role, inner) => {
    const lb = el.getAttribute("aria-labelledby");
    if (lb) {
      const s = norm(lb.split(/\s+/).map((i) => (byId(i) ? byId(i).innerText || byId(i).textContent : "")).join(" "));
      if (s) return s;
    }
    const al = norm(el.getAttribute("aria-label"));
    if (al) return al;
    const t = el.tagName;
    if (t === "INPUT" || t === "SELECT" || t === "TEXTAREA") {
      const type = (el.getAttribute("type") || "").toLowerCase();
      if (["button", "submit", "reset"].includes(type)) return norm(el.value) || (type === "submit" ? "Submit" : type === "reset" ? "Reset" : "");
      if (type === "image") return norm(el.getAttribute("alt")) || "Submit";
      const l = labelText(el);
      if (l) return l;
      const ph = norm(el.getAttribute("placeholder"));
      if (ph) return ph;
      return norm(el.getAttribute("title"));
    }
    if (t === "IMG") return norm(el.getAttribute("alt")) || norm(el.getAttribute("title"));
    if (["link", "button", "heading", "option", "listitem", "cell", "columnheader", "tab", "menuitem", "checkbox", "radio"].includes(role)) {
      const s = norm((inner !== null ? inner : el.innerText) || el.textContent);
      if (s) return cut(s, 200);
      const img = el.querySelector("img[alt]");
      if (img) return norm(img.getAttribute("alt"));
    }
    return norm(el.getAttribute("title"));
  };
  const bgCache = new Map();
  const effectiveBg = (el) => {
    const chain = [];
    let cur = el, found = "rgb(255, 255, 255)";
    while (cur) {
      if (bgCache.has(cur)) { found = bgCache.get(cur); break; }
      chain.push(cur);
      const c = getComputedStyle(cur).backgroundColor;
      if (c && c !== "transparent" && !/rgba\(.*,\s*0\)$/.test(c)) { found = c; bgCache.set(cur, c); chain.pop(); break; }
      cur = cur.parentElement;
    }
    for (const e of chain) bgCache.set(e, found);
    return found;
  };
  const INTERACTIVE = new Set(["A", "BUTTON", "INPUT", "SELECT", "TEXTAREA", "SUMMARY", "OPTION", "LABEL"]);
  const CLICK_ROLES = new Set(["button", "link", "checkbox", "radio", "tab", "menuitem", "option", "switch", "combobox", "textbox", "searchbox", "slider", "spinbutton"]);
  const out = [];
  let truncated = false;
  const all = document.body ? document.documentElement.getElementsByTagName("*") : [];
  const depthOf = (p) => p.split("/").length - 2;
  for (let k = 0; k < all.length; k++) {
    const el = all[k];
    if (skip.has(el.tagName)) continue;
    if (el.closest("head")) continue;
    if (out.length >= maxElements) { truncated = true; break; }
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    const explicitRole = el.getAttribute("role");
    const role = explicitRole ? explicitRole.split(/\s+/)[0] : implicitRole(el);
    let visible = r.width > 0 && r.height > 0;
    if (visible && el.checkVisibility) visible = el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
    if (visible && (el.tagName === "INPUT" && (el.getAttribute("type") || "").toLowerCase() === "hidden")) visible = false;
    const disabled = el.disabled === true || el.getAttribute("aria-disabled") === "true";
    const parentCursor = el.parentElement ? getComputedStyle(el.parentElement).cursor : "auto";
    const clickable = visible && !disabled && cs.pointerEvents !== "none" && (
      (INTERACTIVE.has(el.tagName) && !(el.tagName === "A" && !el.hasAttribute("href"))) ||
      CLICK_ROLES.has(role) || el.onclick != null || el.hasAttribute("onclick") ||
      (cs.cursor === "pointer" && parentCursor !== "pointer") || el.isContentEditable && el === el.closest("[contenteditable]"));
    let text = "", inner = null;  // innerText is read once: it lays out the subtree's text
    if (el.childElementCount <= 30) { inner = el.innerText; text = inner !== undefined ? inner : el.textContent; }
    else for (const n of el.childNodes) if (n.nodeType === 3) text += n.textContent + " ";
    const attrs = {};
    for (const a of ATTRS) { const v = el.getAttribute(a); if (v !== null) attrs[a] = cut(v, 500); }
    if ((el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT") && el.value !== undefined) attrs["value"] = cut(String(el.value), 500);
    if (el.tagName === "A" && el.href) attrs["href_abs"] = el.href;
    if ((el.tagName === "IMG" || el.tagName === "IFRAME" || el.tagName === "VIDEO") && el.src) attrs["src_abs"] = el.currentSrc || el.src;
    if (el.tagName === "FORM") {
      // read the attributes, not el.action / el.method: a control named "action" or "method" shadows them
      // (Oscar's dashboard lists have <select name="action">, and el.action is then that element)
      const act = el.getAttribute("action");
      attrs["action_abs"] = act ? new URL(act, document.baseURI).href : document.URL;
      const m = (el.getAttribute("method") || "get").toLowerCase();
      attrs["method"] = ["get", "post", "dialog"].includes(m) ? m : "get";
    }
    if (cs.backgroundImage && cs.backgroundImage !== "none") attrs["background_image"] = cut(cs.backgroundImage, 500);
    if (el.tagName === "IMG") { attrs["complete"] = String(el.complete); attrs["natural_width"] = String(el.naturalWidth); }
    const p = pathOf(el);
    out.push({
      path: p,
      parent_path: el.parentElement ? pathOf(el.parentElement) : null,
      depth: depthOf(p),
      tag: el.tagName.toLowerCase(),
      role: role,
      name: nameOf(el, role, inner),
      text: cut(norm(text), 300),
      box: [r.x + lx, r.y + ly, r.width, r.height],
      visible: visible,
      clickable: !!clickable,
      color: cs.color,
      background_color: effectiveBg(el),
      font_size: parseFloat(cs.fontSize) || 0,
      position: cs.position,
      z_index: cs.zIndex,
      attrs: attrs,
      in_viewport: visible && r.right > ox && r.bottom > oy && r.left - ox < vw && r.top - oy < vh,
    });
  }
  const de = document.documentElement, body = document.body;
  const pageSize = () => {
    const w = [de.scrollWidth, de.offsetWidth, de.clientWidth], h = [de.scrollHeight, de.offsetHeight, de.clientHeight];
    if (body) { w.push(body.scrollWidth, body.offsetWidth, body.clientWidth); h.push(body.scrollHeight, body.offsetHeight, body.clientHeight); }
    return [Math.max(...w), Math.max(...h)];
  };
  // One JSON string: far cheaper to ship than a large object graph.
  return JSON.stringify({
    elements: out,
    truncated: truncated,
    total: all.length,
    title: document.title,
    scroll: [sx, sy],
    viewport: [vw, vh],
    // the page size as Playwright measures a full-page screenshot (and settle.js the layout)
    page_size: pageSize(),
    ready_state: document.readyState,
  });
}
