"""Observe the page once it has settled, as webgauge's own environment does.

BrowserGym observes a page once its DOM content has loaded. webgauge's apps draw parts of a
page after that from their own API (the calendar's grid, a list after a filter): on a loaded
machine BrowserGym's observation could come before the drawing, so the elements drawn later
had no ``bid`` in it and an agent could not act on them. A script added to every document of
the episode counts the page's fetch/XHR requests in flight and notes its last DOM mutation;
:func:`settle` waits until no request is in flight and the DOM has been quiet for ``quiet_ms``,
for at most ``cap_ms`` (a page that never settles is observed as it is then). The task calls it
at the end of ``setup`` and at the start of each ``validate``, which BrowserGym runs after the
action and before the observation.
"""

from __future__ import annotations

__all__ = ["INIT_JS", "settle"]

INIT_JS = """(() => {
  if (window.__webgaugeSettle) return;
  const s = window.__webgaugeSettle = {pending: 0, last: performance.now()};
  const touch = () => { s.last = performance.now(); };
  const origFetch = window.fetch;
  if (origFetch) {
    window.fetch = function (...args) {
      s.pending++;
      const p = origFetch.apply(this, args);
      const done = () => { s.pending--; touch(); };
      p.then(done, done);
      return p;
    };
  }
  const origSend = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    s.pending++;
    this.addEventListener("loadend", () => { s.pending--; touch(); }, {once: true});
    return origSend.apply(this, args);
  };
  new MutationObserver(touch).observe(document, {subtree: true, childList: true, attributes: true,
                                                 characterData: true});
})();"""

_SETTLED_JS = """(quiet) => {
  const s = window.__webgaugeSettle;
  return !s || (s.pending <= 0 && performance.now() - s.last >= quiet);
}"""


def settle(page, quiet_ms: int = 250, cap_ms: int = 10_000) -> bool:
    """Wait for ``page`` to settle; True when it did within ``cap_ms``. A navigation during the
    wait restarts it on the new document (within the same cap)."""
    import time

    deadline = time.monotonic() + cap_ms / 1000
    while True:
        left = int((deadline - time.monotonic()) * 1000)
        if left <= 0:
            return False
        try:
            page.wait_for_function(_SETTLED_JS, arg=quiet_ms, timeout=left, polling=50)
            return True
        except Exception as exc:  # a timeout, or the document went away under the wait
            if "Timeout" in type(exc).__name__ or "Timeout" in str(exc)[:200]:
                return False
            try:
                page.wait_for_load_state("domcontentloaded", timeout=max(1, left))
            except Exception:
                return False
