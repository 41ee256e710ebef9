"""The only network an image build has: an allowlisting proxy to the package mirrors.

A build's RUN steps run in their own network namespace (no interfaces but loopback, no
DNS). Inside it, FORWARDER (a few lines of the image's own python3) listens on
127.0.0.1:PROXY_PORT and hands every connection to a unix socket bound in from the host;
behind that socket `MirrorProxy`, in tether's own process, reads the HTTP request and
connects only when the host is one of the mirrors (`CONNECT host:443` for https, an
absolute `http://host/...` request for plain http, which is how apt fetches). Anything
else gets `403` and is recorded: a build that asked for a host outside the allowlist
fails with that host named, whatever its RUN step's exit status was.

A step that ignores the proxy variables reaches nothing at all (no route, no resolver):
its download fails, and so does the step unless it hides the failure.
"""

from __future__ import annotations

import inspect
import socket
import socketserver
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

PROXY_PORT = 3128
PROXY_URL = f"http://127.0.0.1:{PROXY_PORT}"
# Debian's archive (what mmdebstrap writes into an image's sources) and PyPI.
BUILD_MIRRORS = ("deb.debian.org", "security.debian.org", "pypi.org",
                 "files.pythonhosted.org")  # fmt: skip
MAX_HEAD_BYTES = 64 * 1024
IDLE_TIMEOUT_S = 300.0

def _pipe(src: socket.socket, dst: socket.socket) -> None:
    # copies one direction of a connection, on the host and (as source text) in FORWARDER
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


# Runs inside the build sandbox as `python3 -I forward.py ARGV...`: listen first, then run
# ARGV, exit with its status. Standard library only (python 3.11 to 3.13).
FORWARDER = f"""\
import os, socket, subprocess, sys, threading
SOCK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "proxy.sock")
{inspect.getsource(_pipe)}def serve(conn):
    up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        up.connect(SOCK)
    except OSError:
        conn.close()
        return
    back = threading.Thread(target=_pipe, args=(up, conn), daemon=True)
    back.start()
    _pipe(conn, up)
    back.join()
    conn.close()
    up.close()
def accept(srv):
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", {PROXY_PORT}))
srv.listen(64)
threading.Thread(target=accept, args=(srv,), daemon=True).start()
rc = subprocess.call(sys.argv[1:])
sys.stdout.flush()
os._exit(rc if rc >= 0 else 128 - rc)
"""


@dataclass(frozen=True)
class Refused:
    """One request the proxy turned down: which host and port, and how it was asked."""

    host: str
    port: int
    method: str

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


@dataclass(frozen=True)
class ProxyRequest:
    """One request the proxy was asked, allowed or not (every one is logged)."""

    host: str
    port: int
    method: str
    allowed: bool

    def to_json(self) -> dict[str, object]:
        return {"host": self.host, "port": self.port, "method": self.method,
                "allowed": self.allowed}


def parse_target(head: bytes) -> tuple[str, str, int, bytes]:
    """(method, host, port, head to send upstream) of a proxy request; ValueError if bad.

    CONNECT keeps nothing to send (the tunnel starts after our 200); a plain-http request
    is rewritten to origin form with `Connection: close` (one request per connection,
    so every request passes through this check).
    """
    lines = head.split(b"\r\n")
    parts = lines[0].decode("latin-1").split(" ")
    if len(parts) != 3:
        raise ValueError("not an HTTP request line")
    method, target, version = parts
    if method == "CONNECT":
        host, sep, port = target.rpartition(":")
        if not sep or not port.isdigit():
            raise ValueError(f"CONNECT target {target!r} has no port")
        return method, host.strip("[]").lower().rstrip("."), int(port), b""
    url = urlsplit(target)
    if url.scheme != "http" or not url.hostname:
        raise ValueError(f"not an absolute http:// URL: {target[:80]!r}")
    path = (url.path or "/") + (f"?{url.query}" if url.query else "")
    keep = [ln for ln in lines[1:] if ln and not ln.lower().startswith(
        (b"proxy-", b"connection:", b"keep-alive:"))]
    out = [f"{method} {path} {version}".encode("latin-1"), *keep, b"Connection: close", b"", b""]
    return method, url.hostname.lower().rstrip("."), url.port or 80, b"\r\n".join(out)


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        client: socket.socket = self.request
        client.settimeout(IDLE_TIMEOUT_S)
        buf = b""
        while b"\r\n\r\n" not in buf and len(buf) < MAX_HEAD_BYTES:
            chunk = client.recv(65536)
            if not chunk:
                return
            buf += chunk
        head, sep, rest = buf.partition(b"\r\n\r\n")
        try:
            method, host, port, upstream_head = parse_target(head + sep)
        except ValueError as exc:
            client.sendall(_reply(400, f"tether build proxy: {exc}"))
            return
        allowed = self.server.allows(host, port, method)
        self.server.requests.append(ProxyRequest(host, port, method, allowed))
        if not allowed:
            self.server.refused.append(Refused(host, port, method))
            client.sendall(_reply(403, f"tether build proxy: {host}:{port} is not a package "
                                  f"mirror of this build (allowed: "
                                  f"{', '.join(self.server.mirrors)})"))
            return
        try:
            upstream = socket.create_connection((host, port), timeout=60)
        except OSError as exc:
            client.sendall(_reply(502, f"tether build proxy: {host}:{port}: {exc}"))
            return
        upstream.settimeout(IDLE_TIMEOUT_S)
        with upstream:
            if method == "CONNECT":
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:
                upstream.sendall(upstream_head)
            if rest:
                upstream.sendall(rest)
            back = threading.Thread(target=_pipe, args=(upstream, client), daemon=True)
            back.start()
            _pipe(client, upstream)
            back.join()


def _reply(code: int, text: str) -> bytes:
    body = (text + "\n").encode()
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[code]
    return (f"HTTP/1.1 {code} {reason}\r\nContent-Type: text/plain\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    mirrors: tuple[str, ...] = ()
    refused: list[Refused]
    requests: list[ProxyRequest]

    def allows(self, host: str, port: int, method: str) -> bool:
        wanted = 443 if method == "CONNECT" else 80
        return host in self.mirrors and port == wanted


class MirrorProxy:
    """The host side, listening on `socket_path` for as long as the `with` block runs."""

    def __init__(self, socket_path: Path, mirrors: tuple[str, ...] = BUILD_MIRRORS) -> None:
        self.socket_path = Path(socket_path)
        self.mirrors = tuple(m.lower() for m in mirrors)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def refused(self) -> list[Refused]:
        return [] if self._server is None else list(self._server.refused)

    @property
    def requests(self) -> list[ProxyRequest]:
        """Every request so far, allowed or refused, in order."""
        return [] if self._server is None else list(self._server.requests)

    def take_refused(self) -> list[Refused]:
        """What was refused since the last call (one RUN step's share)."""
        if self._server is None:
            return []
        got, self._server.refused[:] = list(self._server.refused), []
        return got

    def __enter__(self) -> MirrorProxy:
        self.socket_path.unlink(missing_ok=True)
        server = _Server(str(self.socket_path), _Handler)
        server.mirrors, server.refused, server.requests = self.mirrors, [], []
        self.socket_path.chmod(0o666)  # the build user connects from inside its sandbox
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        self.socket_path.unlink(missing_ok=True)


__all__ = ["BUILD_MIRRORS", "FORWARDER", "PROXY_PORT", "PROXY_URL", "MirrorProxy",
           "ProxyRequest", "Refused", "parse_target"]
