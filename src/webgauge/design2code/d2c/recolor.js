// Design2Code's two-colour rendering, applied to the live DOM (webgauge.design2code.d2c.capture).
// arg: {tags: [text tags], pool: ["#RRGGBB", ...] in hand-out order, first: bool}
// Every element's background colour becomes transparent (!important); each element of a text tag,
// in document order, takes the next colour of the pool (!important) and opacity 1. The first call
// also returns, for every non-empty text node under <body> in document order, its text and the
// inline style declarations of its ancestors (nearest first) up to the nearest recoloured one,
// whose colour ends the chain. Inline styles are read as written, before any change.
(arg) => {
  if (arg.first) {
    window.__d2cStyles = new Map();
    for (const el of document.querySelectorAll("*")) {
      if (el.hasAttribute("style")) window.__d2cStyles.set(el, el.getAttribute("style"));
    }
    window.__d2cTagged = [...document.querySelectorAll(arg.tags.join(","))];
  }
  const tagged = window.__d2cTagged;
  if (tagged.length > arg.pool.length) {
    return {error: `${tagged.length} text elements, more than the ${arg.pool.length} colours of the pool`};
  }
  for (const el of document.querySelectorAll("*")) {
    el.style.setProperty("background-color", "rgba(255, 255, 255, 0.0)", "important");
  }
  const colourOf = new Map();
  tagged.forEach((el, k) => {
    el.style.setProperty("color", arg.pool[k], "important");
    el.style.setProperty("opacity", "1.0", "important");
    colourOf.set(el, arg.pool[k]);
  });
  if (!arg.first || !document.body) return {items: []};
  const items = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.data.trim()) continue;
    const chain = [];
    for (let el = node.parentElement; el; el = el.parentElement) {
      if (colourOf.has(el)) { chain.push("color: " + colourOf.get(el)); break; }
      const st = window.__d2cStyles.get(el);
      if (st && st.includes("color")) chain.push(st);
      if (el === document.body) break;
    }
    items.push({text: node.data, chain});
  }
  return {items};
}
