//! The JavaScript a render runs in the page: the prelude that notes DOM changes and
//! closes the ways out interception would not see, the "has the page settled" expression
//! and the snapshot of the page.

use serde_json::Value;

/// Runs in every document before its own scripts: notes when the DOM last changed, and
/// removes the ways out that request interception would not see.
pub(super) const PRELUDE: &str = r"(() => {
  const t = { last: performance.now() };
  // Timers due soon (a list built after a short delay): the page has not settled while
  // one is pending, for its first TIMER_GRACE_MS (a page that polls forever settles then).
  const pending = new Set();
  const set = window.setTimeout, clear = window.clearTimeout;
  try {
    window.setTimeout = function (fn, ms, ...args) {
      if (typeof fn !== 'function' || Number(ms || 0) > SOON_MS) return set.call(this, fn, ms, ...args);
      let id;
      id = set.call(this, function (...a) { pending.delete(id); return fn.apply(this, a); }, ms, ...args);
      pending.add(id);
      return id;
    };
    window.clearTimeout = function (id) { pending.delete(id); return clear.call(this, id); };
    // Requests in flight, counted as the script makes them (the browser tells sitefeed
    // a moment later).
    const busy = { n: 0 };
    // Counted down a task later, after the callbacks that use the answer (and their DOM
    // changes) have run.
    const done = () => { set.call(window, () => { busy.n -= 1; }, 0); };
    if (window.Response) {
      for (const name of ['json', 'text', 'arrayBuffer', 'blob', 'formData']) {
        const read = Response.prototype[name];
        if (!read) continue;
        Response.prototype[name] = function (...args) {
          busy.n += 1;
          const p = read.apply(this, args);
          p.then(done, done);
          return p;
        };
      }
    }
    const fetch = window.fetch;
    if (fetch) {
      window.fetch = function (...args) {
        busy.n += 1;
        try {
          const p = fetch.apply(this, args);
          p.then(done, done);
          return p;
        } catch (e) { done(); throw e; }
      };
    }
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (...args) {
      busy.n += 1;
      this.addEventListener('loadend', done, { once: true });
      return send.apply(this, args);
    };
    Object.defineProperty(window, '__sitefeedQuiet', {
      value: () => ((pending.size || busy.n > 0) && performance.now() < TIMER_GRACE_MS)
        ? 0 : performance.now() - t.last,
    });
    new MutationObserver(() => { t.last = performance.now(); })
      .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  } catch (e) {}
  for (const name of ['WebSocket', 'WebTransport', 'RTCPeerConnection', 'webkitRTCPeerConnection']) {
    try { Object.defineProperty(window, name, { value: undefined }); } catch (e) {}
  }
  try { Object.defineProperty(Navigator.prototype, 'serviceWorker', { get: () => undefined }); } catch (e) {}
})();";

/// A timer due within this many milliseconds holds the page's settling...
pub(super) const SOON_MS: u32 = 3000;
/// ...during its first this many milliseconds.
pub(super) const TIMER_GRACE_MS: u32 = 10_000;

/// The proxy of every render's browser context: nothing listens there, so a request
/// that request interception does not see (a popup window, a WebSocket) connects nowhere;
/// `<-loopback>` makes loopback addresses go through it too. Intercepted requests are
/// answered before any proxy is involved.
pub(super) const DEAD_PROXY: &str = "http://127.0.0.1:1";

/// Milliseconds since the DOM last changed.
pub(super) const QUIET_MS: &str = "typeof __sitefeedQuiet === 'function' ? __sitefeedQuiet() : 1e9";

/// The expression that tells how long the page has been quiet (0: not settled), with the
/// region `wait_for` required to hold a link during the page's first
/// [`TIMER_GRACE_MS`] (an invalid selector waits for nothing).
pub(super) fn quiet_expression(wait_for: Option<&str>) -> String {
    let Some(sel) = wait_for else {
        return QUIET_MS.to_owned();
    };
    let sel = Value::String(sel.to_owned()).to_string();
    format!(
        "(() => {{ const q = ({QUIET_MS}); if (performance.now() >= {TIMER_GRACE_MS}) return q; \
         try {{ const links = 'a[href], area[href]'; \
         return Array.from(document.querySelectorAll({sel})).some(e => e.matches(links) || e.querySelector(links)) ? q : 0; \
         }} catch (e) {{ return q; }} }})()"
    )
}

/// The page as it stands.
pub(super) const SNAPSHOT: &str =
    "[location.href, document.documentElement ? document.documentElement.outerHTML : '']";
