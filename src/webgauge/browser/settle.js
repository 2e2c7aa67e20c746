// Waits until the page is visually settled: web fonts loaded, every image complete and
// decoded (or failed), and the layout (document size and every element's box) unchanged over
// `stableFrames` consecutive animation frames. Read-only: no globals, attributes or nodes.
// Resolves {stable, frames, images_pending, fonts, size, sig} within `budgetMs` (real timers);
// with `probe` it returns the current {size, sig, scroll} at once. With `quietMs` the DOM must
// also have had no mutation for that long (observed from the call on; required for at most
// `quietCapMs`, then the layout alone decides; with `tracker`, from the change watch's last one). `view` reports what a viewport screenshot needs.
// With `now` it waits for no frame: whether the page is still at this moment (fonts and images
// done, nothing animating, nothing that repaints unseen) and how long its quiet period has left;
// with `tracker` a canvas is no reason to wait (the change watch compares its pixels after the capture).
async (opts) => {
  const budgetMs = opts.budgetMs, stableFrames = opts.stableFrames || 3, maxFrames = opts.maxFrames || 600;
  const quietMs = opts.quietMs || 0, quietCapMs = opts.quietCapMs || 400, t0 = performance.now();
  // With `tracker` (run in the change watch's isolated world) the quiet period counts from the
  // watch's last mutation, observed since its world was made (when the document committed).
  const tracker = opts.tracker && quietMs ? window.__wgWatch : null;
  let lastMutation = t0;
  const mo = quietMs && !tracker ? new MutationObserver(() => { lastMutation = performance.now(); }) : null;
  if (mo) mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const since = () => tracker ? Math.max(tracker.born, tracker.last) : lastMutation;
  const quiet = () => !quietMs || performance.now() - since() >= quietMs || performance.now() - t0 >= quietCapMs;
  let expired = false;
  const timer = setTimeout(() => { expired = true; }, budgetMs);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  // a frame, or 100 ms when frames are not produced (a hidden tab)
  const frame = () => Promise.race([new Promise((r) => requestAnimationFrame(() => r())), sleep(100)]);
  const out = { stable: false, frames: 0, images_pending: 0, animations: 0, fonts: "loaded", size: [0, 0], sig: 0 };
  // The page size exactly as Playwright measures a full-page screenshot.
  const size = () => {
    const de = document.documentElement, b = document.body;
    if (!de) return [0, 0];
    const w = [de.scrollWidth, de.offsetWidth, de.clientWidth], h = [de.scrollHeight, de.offsetHeight, de.clientHeight];
    if (b) { w.push(b.scrollWidth, b.offsetWidth, b.clientWidth); h.push(b.scrollHeight, b.offsetHeight, b.clientHeight); }
    return [Math.max(...w), Math.max(...h)];
  };
  // Elements moved by an endless animation are left out of the signature: they never stop.
  const endless = () => {
    const s = new Set();
    if (!document.getAnimations) return s;
    for (const a of document.getAnimations()) {
      const t = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
      if (t && t.iterations === Infinity && a.playState === "running" && a.effect.target) s.add(a.effect.target);
    }
    return s;
  };
  const signature = () => {
    const skip = endless();
    const all = document.getElementsByTagName("*");
    const [w, h] = size();
    let sig = Math.imul(w, 31) ^ h ^ Math.imul(all.length, 131);
    const mix = (v) => { sig = Math.imul(sig ^ v, 16777619) >>> 0; };
    for (let k = 0; k < all.length; k++) {
      const el = all[k];
      if (skip.size) {
        let moving = false;
        for (let e = el; e; e = e.parentElement) if (skip.has(e)) { moving = true; break; }
        if (moving) continue;
      }
      const r = el.getBoundingClientRect();
      mix(Math.round((r.x + scrollX) * 4)); mix(Math.round((r.y + scrollY) * 4));
      mix(Math.round(r.width * 4)); mix(Math.round(r.height * 4));
    }
    return sig;
  };
  // Finite animations and transitions still running (fades change visibility, not boxes).
  const running = () => !document.getAnimations ? 0 : document.getAnimations().filter((a) => {
    const t = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
    return a.playState === "running" && t && t.iterations !== Infinity;
  }).length;
  const decoded = new WeakSet();
  const imagesReady = async () => {
    const imgs = Array.from(document.images);
    const waiting = imgs.filter((im) => !im.complete);
    if (waiting.length) return waiting.length;
    const todo = imgs.filter((im) => !decoded.has(im) && im.naturalWidth > 0);
    await Promise.race([Promise.all(todo.map((im) => im.decode().catch(() => null))), sleep(Math.max(50, budgetMs / 4))]);
    for (const im of todo) decoded.add(im);
    return 0;
  };
  if (opts.now) {  // no frame waited: is the page still right now, and how long until its quiet period ends?
    clearTimeout(timer);
    if (mo) mo.disconnect();
    requestAnimationFrame(() => null);  // a frame on its way for the screenshot that may follow at once
    // the layout first: it starts what it needs (fonts, image decodes, transitions), which the checks then see
    const sig = signature(), sz = size();
    const pending = await imagesReady();  // complete ones are decoded too (a promise each, no frame)
    const fontsDone = !document.fonts || document.fonts.status === "loaded";
    // what repaints unseen by the DOM; a canvas only outside the change watch's world (its check
    // compares the canvases' pixels after the capture)
    const silent = !!document.querySelector("video, audio, iframe, embed, object" + (opts.tracker ? "" : ", canvas"));
    const anims = document.getAnimations ? document.getAnimations().filter((a) => a.playState === "running").length : 0;
    const vv = window.visualViewport;
    // (a layout that moves from here on is caught by the capture's own probe, against `sig`)
    return { stable: fontsDone && !pending && !anims && !silent, frames: 0, images_pending: pending,
             fonts: fontsDone ? "loaded" : "loading", animations: anims, media: silent,
             quiet_left_ms: quietMs ? Math.max(0, quietMs - (performance.now() - since())) : 0,
             size: sz, sig: sig,
             view: { running: anims, vv: vv ? [vv.pageLeft, vv.pageTop, vv.scale] : [scrollX, scrollY, 1] } };
  }
  if (opts.probe) {  // no waiting: the current size and layout signature
    clearTimeout(timer);
    if (mo) mo.disconnect();
    return { size: size(), sig: signature(), scroll: [scrollX, scrollY] };
  }
  try {
    if (document.fonts && document.fonts.status !== "loaded") {
      await Promise.race([document.fonts.ready, sleep(budgetMs)]);
      if (document.fonts.status !== "loaded") out.fonts = "loading";
    }
    // The layout as it stands at the call counts as the first of the frames compared: a page
    // already still is settled after `stableFrames` frames, not one more.
    let last = signature(), same = 0;
    while (!expired && out.frames < maxFrames) {
      await frame();
      out.frames++;
      out.images_pending = await imagesReady();
      if (out.images_pending) { same = 0; last = null; await sleep(20); continue; }
      out.animations = running();
      const sig = signature();
      same = sig === last && !out.animations ? same + 1 : 0;
      last = sig;
      if (same >= stableFrames && !quiet()) { same = stableFrames - 1; continue; }  // mutations still coming
      if (same >= stableFrames && (!document.fonts || document.fonts.status === "loaded")) {
        out.stable = true;
        break;
      }
    }
    if (document.fonts && document.fonts.status !== "loaded") out.fonts = "loading";
    out.size = size();
    out.sig = last === null ? signature() : last;
    const vv = window.visualViewport;
    out.view = { running: document.getAnimations ? document.getAnimations().filter((a) => a.playState === "running").length : 0,
                 vv: vv ? [vv.pageLeft, vv.pageTop, vv.scale] : [scrollX, scrollY, 1] };
  } finally {
    clearTimeout(timer);
    if (mo) mo.disconnect();
  }
  return out;
}
