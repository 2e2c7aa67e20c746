// Freezes every animation of the document at a fixed point, as Playwright's screenshots do: a
// finite one (CSS animation or transition, Web Animation) is finished, an endless one is cancelled
// (its element shows its own style, as if it never ran). Animations that start while the freeze
// holds (a transition a timer triggers, an animation a handler starts) are frozen as they start.
// Cancelling, not pausing: Chromium resolves a pause against the time its compositor ran a
// transform to, a frame more or less from capture to capture. When anything was frozen, resolves
// after two frames (the compositor drops the layers it ran). Resolves to an object whose `stop()`
// lifts the freeze: listeners removed, the endless animations played again (from their start).
// Held as a handle by the caller (or kept for the document's life): nothing is added to the page's
// globals or DOM.
async (opts) => {
  const cancelled = [];
  let touched = 0;
  const freeze = () => {
    if (!document.getAnimations) return;
    for (const a of document.getAnimations()) {
      if (!a.effect || a.playbackRate === 0) continue;
      try {
        if (Number.isFinite(a.effect.getComputedTiming().endTime)) {
          if (a.playState === "running") { a.finish(); touched++; }
        } else if (a.playState === "running" || a.playState === "paused") {
          a.cancel();
          cancelled.push(a);
          touched++;
        }
      } catch (e) { /* an animation that cannot be finished or cancelled is left as it is */ }
    }
  };
  const events = ["animationstart", "transitionrun", "transitionstart"];
  freeze();
  for (const ev of events) window.addEventListener(ev, freeze, true);
  if (touched && !(opts && opts.noWait)) {
    const frame = () => new Promise((r) => { requestAnimationFrame(() => r()); setTimeout(r, 100); });
    await frame();
    await frame();
  }
  return {
    count: cancelled.length,
    stop() {
      for (const ev of events) window.removeEventListener(ev, freeze, true);
      for (const a of cancelled) {
        try { a.play(); } catch (e) { /* removed from the page meanwhile */ }
      }
      return cancelled.length;
    },
  };
}
