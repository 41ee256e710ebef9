"""The in-page guard: what a page tries beyond its own document is stopped and recorded.

Model-written pages are untrusted. The browser host blocks the network at three levels
(browser.py: no network namespace route, every host name resolving to nothing, routes
that abort every request); this module is the part that lives in the page, as an init
script that runs before any page script in every document and frame:

- a navigation of the top document to another document (a script setting `location`,
  a meta refresh, a reload, a form submission, a link click) is cancelled through the
  Navigation API `navigate` event and recorded; same-document navigations (hash
  changes, `history.pushState`) pass. The Navigation API is off on about:blank and
  other opaque origins, which is why the artifact is served as the document at
  BOOTSTRAP_URL (answered from memory by the host's route, never fetched) instead of
  being written into about:blank;
- `RTCPeerConnection` (UDP to any STUN/TURN server, which no request route sees) is
  refused and recorded;
- the resource hints that open connections without a request (dns-prefetch,
  preconnect) are read from the document when it is probed.

Every artifact gets an origin of its own, `http://a<n>.tether.invalid/` (`artifact_url`,
n never reused in a process), so a lane (lanes.py) can go straight from one artifact's
document to the next: what the previous one stored per origin (local and session
storage, IndexedDB, caches) is simply not visible. Reports name the page's own URLs
under BOOTSTRAP_URL (`canonical`), so they do not depend on n. The host answers an
artifact's URL once per page, so the one document whose guard started at such a URL
is the artifact. The probe wrapper (`guarded_probe`) refuses to measure any other
document, so a navigation that got past the guard fails the measurement instead of
measuring another document.

The previous artifact's document lives until the next one commits, so when a lane is
done with it the host calls `retire` (RETIRE_JS): its timers, idle callbacks and
animation frames are cancelled, its event listeners and DOM are erased (document.open,
which also ends its frames), its workers are terminated, and from then on it can
schedule nothing, open no window and start no request through the APIs the guard
wraps (fetch, XMLHttpRequest, sendBeacon, WebSocket, EventSource, Worker). The
pristine functions are taken before any page script runs. In the new document the
guard clears what one browsing context keeps across documents of one site: the
window name and the cookies it can see (the host also clears the context's cookies
between artifacts; a cookie with the parent domain and another path, set after that,
is the residue left).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

#: the synthetic domain every artifact's origin lies under (it never resolves)
DOMAIN = "tether.invalid"
#: the URL reports give an artifact's document (its own origin is canonicalized to it)
BOOTSTRAP_URL = f"http://{DOMAIN}/"
_ARTIFACT_ORIGIN = re.compile(r"^http://a[0-9]+\." + re.escape(DOMAIN) + r"(?=[/?#]|$)")


def artifact_url(n: int) -> str:
    """The document URL of the n-th artifact (fulfilled from memory by the host's route)."""
    return f"http://a{n}.{DOMAIN}/"


def artifact_origin(url: str) -> str | None:
    """The artifact origin `url` lies on (`http://a<n>.tether.invalid`), or None."""
    found = _ARTIFACT_ORIGIN.match(url)
    return found.group(0) if found else None

GUARD_JS = r"""
(() => {
  if (Object.getOwnPropertyDescriptor(window, '__tetherGuard')) return;
  let parent = null;
  try {
    if (window.top !== window) parent = window.top.__tetherGuard || null;
  } catch (e) { /* a cross-origin frame keeps its own record */ }
  const blocked = [], navigations = [];
  // the artifact's document: the host serves an artifact URL once per page
  const home = window.top === window && /^http:\/\/a[0-9]+\.__DOMAIN__\/$/.test(location.href);
  if (home) {
    // a browsing context keeps its name, and a site its cookies, across documents
    window.name = '';
    for (const pair of document.cookie.split(';')) {
      const name = pair.split('=')[0].trim();
      if (!name) continue;
      document.cookie = name + '=; max-age=0; path=/';
      document.cookie = name + '=; max-age=0; path=/; domain=__DOMAIN__';
    }
  }
  // retire(): the lane is done with this document (see RETIRE_JS)
  let retired = false;
  // taken before any page script runs: a page that replaces them (or Function.prototype.call)
  // later cannot keep retire() from running
  const apply = Reflect.apply, construct = Reflect.construct;
  const P = {open: Document.prototype.open, close: Document.prototype.close,
             setTimeout: window.setTimeout, clearTimeout: window.clearTimeout,
             rAF: window.requestAnimationFrame, cAF: window.cancelAnimationFrame,
             rIC: window.requestIdleCallback, cIC: window.cancelIdleCallback,
             terminate: window.Worker && Worker.prototype.terminate,
             closePort: window.MessagePort && MessagePort.prototype.close};
  const workers = [];
  const fence = (obj, name, refused) => {
    const real = obj && obj[name];
    if (typeof real !== 'function') return;
    obj[name] = new Proxy(real, {
      apply: (f, self, args) => retired ? refused() : apply(f, self, args),
      construct: (f, args, target) => {
        if (retired) return refused();
        const made = construct(f, args, target);
        if (name === 'Worker' || name === 'SharedWorker') workers[workers.length] = [name, made];
        return made;
      },
    });
  };
  const gone = () => { throw new DOMException('the measurement is over', 'InvalidStateError'); };
  for (const name of ['setTimeout', 'setInterval', 'requestAnimationFrame',
                      'requestIdleCallback', 'queueMicrotask']) fence(window, name, () => 0);
  fence(window, 'open', () => null);
  fence(window, 'fetch', () => Promise.reject(new TypeError('the measurement is over')));
  for (const name of ['WebSocket', 'EventSource', 'Worker', 'SharedWorker']) {
    fence(window, name, gone);
  }
  if (window.XMLHttpRequest) fence(XMLHttpRequest.prototype, 'send', gone);
  if (window.Navigator) fence(Navigator.prototype, 'sendBeacon', () => false);
  const retire = () => {
    if (retired) return;
    retired = true;
    // ids are handed out in order: one new id bounds every live one
    const last = apply(P.setTimeout, window, [() => {}, 0]);
    for (let id = 0; id <= last; id++) apply(P.clearTimeout, window, [id]);
    if (P.rAF) {
      const lastFrame = apply(P.rAF, window, [() => {}]);
      for (let id = 0; id <= lastFrame; id++) apply(P.cAF, window, [id]);
    }
    if (P.rIC) {
      const lastIdle = apply(P.rIC, window, [() => {}]);
      for (let id = 0; id <= lastIdle; id++) apply(P.cIC, window, [id]);
    }
    for (let i = 0; i < workers.length; i++) {
      const kind = workers[i][0], w = workers[i][1];  // no iterator: the page may own it
      try { if (kind === 'Worker') apply(P.terminate, w, []); else apply(P.closePort, w.port, []); }
      catch (e) { /* already gone */ }
    }
    // erases the document's and the window's listeners and handlers, the DOM, frames
    try { apply(P.open, document, []); apply(P.close, document, []); }
    catch (e) { /* mid-parse */ }
  };
  const note = (via, url) => {
    if (parent) { parent.note(via, url); return; }
    if (!blocked.some((b) => b.via === via && b.url === url)) blocked.push({via, url});
  };
  const refuse = (name) => {
    throw new DOMException(name + ' is blocked: artifacts must not use the network',
                           'NotAllowedError');
  };
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection']) {
    if (!(name in window)) continue;
    window[name] = function blockedPeerConnection(config) {
      const servers = (config && config.iceServers) || [];
      const urls = servers.flatMap((s) => [].concat((s && (s.urls || s.url)) || []));
      if (urls.length) urls.forEach((u) => note('webrtc', String(u)));
      else note('webrtc', 'RTCPeerConnection');
      refuse(name);
    };
  }
  // A form submitted while the page is still parsing: cancelling it in the navigate
  // event leaves Chromium waiting for a load event that never comes, so the form
  // methods record the navigation and do not submit (a submit handler still runs).
  const leave = (url) => { if (!navigations.includes(url)) navigations.push(url); };
  if (window.top === window && window.HTMLFormElement) {
    const proto = HTMLFormElement.prototype;
    proto.submit = function submit() { leave(this.action); };
    proto.requestSubmit = function requestSubmit(submitter) {
      const event = new SubmitEvent('submit', {bubbles: true, cancelable: true,
                                               submitter: submitter || null});
      if (this.dispatchEvent(event)) leave(this.action);
    };
  }
  if (window.top === window && window.navigation) {
    window.navigation.addEventListener('navigate', (e) => {
      if (e.destination.sameDocument) return;
      leave(e.destination.url);
      if (e.cancelable) e.preventDefault();
    });
  }
  const hints = () => {
    const out = [];
    for (const link of document.querySelectorAll('link[rel][href]')) {
      const rel = link.relList;
      const via = rel.contains('dns-prefetch') ? 'dns-prefetch'
        : rel.contains('preconnect') ? 'preconnect' : null;
      if (via) out.push({via, url: link.getAttribute('href')});
    }
    return out;
  };
  Object.defineProperty(window, '__tetherGuard', {configurable: false, writable: false,
    enumerable: false, value: Object.freeze({
      note,
      retire,
      report: () => home
        ? {blocked: blocked.concat(hints()), navigations: navigations.slice()}
        : {foreign: String(location.href)},
    })});
})();
""".replace("__DOMAIN__", DOMAIN.replace(".", "\\."), 1).replace("__DOMAIN__", DOMAIN)

#: the lane is done with the document (see the module docstring); a no-op elsewhere
RETIRE_JS = "() => { const g = window.__tetherGuard; if (g && g.retire) g.retire(); }"


def canonical(url: str, origin: str | None) -> str:
    """`url` with the artifact's own origin written as BOOTSTRAP_URL's (reports do not
    depend on which origin an artifact got)."""
    if origin and (url == origin or url.startswith((origin + "/", origin + "?", origin + "#"))):
        return BOOTSTRAP_URL.rstrip("/") + url[len(origin):]
    return url


@cache  # one string per profile, built once
def guarded_probe(probe_js: str) -> str:
    """The probe, run only in the claimed document, with the guard's record attached."""
    return ("(args) => {\n"
            "  const guard = window.__tetherGuard;\n"
            "  const report = guard ? guard.report() : {foreign: String(location.href)};\n"
            "  if (report.foreign !== undefined) return {foreign: report.foreign};\n"
            f"  const result = ({probe_js})(args.opts);\n"
            "  result.guard = report;\n"
            "  return result;\n"
            "}")


@dataclass(frozen=True)
class Blocked:
    """One way out a page tried: `via` says how (a request's resource type, websocket,
    webrtc, dns-prefetch, preconnect), `url` where to."""

    via: str
    url: str

    def describe(self) -> str:
        what = {"websocket": "a WebSocket connection", "webrtc": "a WebRTC connection",
                "dns-prefetch": "a dns-prefetch hint", "preconnect": "a preconnect hint",
                "ping": "a beacon (navigator.sendBeacon)",
                "eventsource": "an EventSource stream"}.get(self.via)
        return what or f"a network request ({self.via})"
