"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for fault-injection tests.

Each request to /v1/chat/completions takes the next behaviour from a script (the
last one repeats). A behaviour is a dict:

  {}                                   success, text built from the request
  {"status": 429, "headers": {...}, "json": {...}}   an error response
  {"sleep": 2.0}                       success, but only after sleeping
  {"raw": b"...", "content_type": ...} a 200 with this exact body
  {"drop": True}                       close the socket without any response
  {"text": "...", "usage": {...}, "reasoning_content": "..."}  success with these
                                       ("usage": None: the reply carries no usage)
  {"tool_calls": [{"id": ..., "name": ..., "arguments": "..."}]}  success with native
                                       tool calls (content null unless "text" is given)
  {"trickle": 0.2}                     a 200 whose body comes one byte every 0.2 s
  {"endless": True}                    a 200 whose chunked body never ends
                                       (both stop after TRICKLE_CAP_S, or when the client
                                       goes, so a test without a deadline still ends)

A behaviour may also wait for a `threading.Event` before answering (`"gate": event`)
or set one once it has answered (`"opens": event`), to order replies without sleeping.
`server.by_seed` maps a request's seed to its behaviour, taking precedence over the
script: concurrent samples arrive in any order, but sample i always sends seed + i.

Every request body is kept in `server.requests` (its Authorization header in
`server.authorizations`) so tests can count calls and inspect seeds and keys.
`server.barrier`, when set, holds each request until that many are held at once;
`server.max_in_flight` is the most requests ever held together (received and not yet
answered: counted until the answer starts, so a client's next request never overlaps the
count of the one it follows).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

#: how long a trickling or endless reply goes on at most (then the server hangs up)
TRICKLE_CAP_S = 20.0

DEFAULT_USAGE = {
    "prompt_tokens": 11,
    "completion_tokens": 7,
    "total_tokens": 18,
}


class _Server(ThreadingHTTPServer):
    # Concurrent samples connect together; the default backlog of 5 would make the
    # kernel drop the extra connection attempts until the client retries them.
    request_queue_size = 64


class FaultServer:
    def __init__(self) -> None:
        self.script: list[dict[str, Any]] = [{}]
        self.requests: list[dict[str, Any]] = []
        #: each request's Authorization header (None when absent), in arrival order
        self.authorizations: list[str | None] = []
        self.by_seed: dict[int, dict[str, Any]] = {}
        self.barrier: threading.Barrier | None = None
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # one request per connection: simple and robust

            def log_message(self, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                with outer._lock:
                    number = len(outer.requests)
                    outer.requests.append(body)
                    outer.authorizations.append(self.headers.get("Authorization"))
                    step = outer.by_seed.get(body.get("seed"),
                                             outer.script[min(number, len(outer.script) - 1)])
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                if outer.barrier is not None:
                    try:
                        outer.barrier.wait()
                    except threading.BrokenBarrierError:
                        pass  # too few arrived together: max_in_flight tells the test
                with outer._lock:
                    outer.in_flight -= 1
                outer._respond(self, step, body, number)
                if "opens" in step:
                    step["opens"].set()

            def _send(self, status: int, payload: Any, headers: dict | None = None) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, str(v))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (timeout test): nothing to do

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    # -- behaviours ---------------------------------------------------------

    def _respond(self, h: Any, step: dict[str, Any], body: dict, number: int) -> None:
        if step.get("drop"):
            try:
                h.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            h.close_connection = True
            return
        if "gate" in step:
            step["gate"].wait(30)  # a safety net against a hung test, not a timing
        if "sleep" in step:
            if self._stop.wait(step["sleep"]):
                return
        if "trickle" in step or "endless" in step:
            self._stream_forever(h, step)
            return
        if "raw" in step:
            data = step["raw"]
            try:
                h.send_response(step.get("status", 200))
                h.send_header("Content-Type", step.get("content_type", "application/json"))
                h.send_header("Content-Length", str(len(data)))
                h.end_headers()
                h.wfile.write(data)
            except OSError:
                pass
            return
        if "status" in step:
            h._send(step["status"], step.get("json", {"error": {"message": "scripted"}}),
                    step.get("headers"))
            return
        message: dict[str, Any] = {
            "role": "assistant",
            "content": step.get(
                "text", f"reply {number} seed={body.get('seed')} model={body.get('model')}"
            ),
        }
        if "tool_calls" in step:
            message["content"] = step.get("text")
            message["tool_calls"] = [
                {"id": c["id"], "type": "function",
                 "function": {"name": c["name"], "arguments": c["arguments"]}}
                for c in step["tool_calls"]]
        if "reasoning_content" in step:
            message["reasoning_content"] = step["reasoning_content"]
        reply = {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "message": message,
                         "finish_reason": step.get("finish_reason", "stop")}],
            "usage": step.get("usage", DEFAULT_USAGE),
        }
        if reply["usage"] is None:
            del reply["usage"]
        h._send(200, reply)

    def _stream_forever(self, h: Any, step: dict[str, Any]) -> None:
        """A reply that trickles or never ends, bounded by TRICKLE_CAP_S and by the
        client: a write to a client that left fails and ends it."""
        chunked = bool(step.get("endless"))
        head = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                + ("Transfer-Encoding: chunked\r\n" if chunked else "Content-Length: 100000\r\n")
                + "Connection: close\r\n\r\n")
        pause = 0.0 if chunked else float(step["trickle"])
        stop_at = threading.Event()
        timer = threading.Timer(TRICKLE_CAP_S, stop_at.set)
        timer.start()
        try:
            h.wfile.write(head.encode())
            h.wfile.flush()
            while not stop_at.is_set() and not self._stop.is_set():
                h.wfile.write(b"1\r\n \r\n" if chunked else b" ")
                h.wfile.flush()
                if pause:
                    self._stop.wait(pause)
                else:
                    time.sleep(0.001)  # an endless body, not a busy loop
        except OSError:
            pass  # the client hung up: what a deadline does
        finally:
            timer.cancel()
            h.close_connection = True

    def close(self) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def fault_server():
    server = FaultServer()
    yield server
    server.close()
