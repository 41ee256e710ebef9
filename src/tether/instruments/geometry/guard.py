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

The host answers BOOTSTRAP_URL once per page, so the one document whose guard started
at that URL is the artifact. The probe wrapper (`guarded_probe`) refuses to measure
any other document, so a navigation that got past the guard fails the measurement
instead of measuring another document.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

#: the empty document the artifact is written into (fulfilled by the host's route).
BOOTSTRAP_URL = "http://tether.invalid/"

GUARD_JS = r"""
(() => {
  if (Object.getOwnPropertyDescriptor(window, '__tetherGuard')) return;
  let parent = null;
  try {
    if (window.top !== window) parent = window.top.__tetherGuard || null;
  } catch (e) { /* a cross-origin frame keeps its own record */ }
  const blocked = [], navigations = [];
  // the artifact's document: the host serves the bootstrap URL once per page
  const home = location.href === '__BOOTSTRAP__';
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
      report: () => home
        ? {blocked: blocked.concat(hints()), navigations: navigations.slice()}
        : {foreign: String(location.href)},
    })});
})();
""".replace("__BOOTSTRAP__", BOOTSTRAP_URL)


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
