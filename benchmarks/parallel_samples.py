"""Wall time of one `generate(..., n=N)` against one `generate(..., n=1)` on a remote backend.

The endpoint is a local OpenAI-compatible stand-in on 127.0.0.1 that answers every
request after a fixed latency (200 ms by default), so the time measured is the number
of round trips a call waits for, not a model's speed. Sent one after another, n=8 costs
8 round trips; sent concurrently (bounded by the endpoint's `concurrency`), about one.

Printed: the median wall time of each side over --reps calls and their ratio.
Goal: ratio <= 1.5 for N = 8.

    .venv/bin/python benchmarks/parallel_samples.py [--n 8] [--latency 0.2] [--reps 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tether.models.base import GenerateParams
from tether.models.openai_backend import OpenAICompatibleModel

MSG = [{"role": "user", "content": "hi"}]


def serve(latency_s: float) -> ThreadingHTTPServer:
    """A chat-completions endpoint that sleeps `latency_s` before each answer."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            time.sleep(latency_s)
            data = json.dumps({
                "id": "chatcmpl-0", "object": "chat.completion", "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": f"seed={body.get('seed')}"}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    class Server(ThreadingHTTPServer):
        request_queue_size = 64  # n connections arrive at once: none may wait for a retry

    httpd = Server(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    return httpd


def median_wall(model: OpenAICompatibleModel, n: int, reps: int) -> float:
    times = []
    for rep in range(reps):
        start = time.perf_counter()
        params = GenerateParams(seed=rep * 100, temperature=0.7, max_tokens=8)
        out = model.generate(MSG, params, n=n)
        times.append(time.perf_counter() - start)
        assert [c.text for c in out] == [f"seed={rep * 100 + i}" for i in range(n)]
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=8, help="samples of the compared call")
    ap.add_argument("--latency", type=float, default=0.2, help="seconds per request")
    ap.add_argument("--reps", type=int, default=3, help="calls per side (median taken)")
    ap.add_argument("--concurrency", type=int, default=8, help="the endpoint's limit")
    args = ap.parse_args()
    httpd = serve(args.latency)
    base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    model = OpenAICompatibleModel("bench", base_url=base_url, key_env=None,
                                  concurrency=args.concurrency)
    median_wall(model, 1, 1)  # warm-up: connection set-up, SDK imports
    one = median_wall(model, 1, args.reps)
    many = median_wall(model, args.n, args.reps)
    httpd.shutdown()
    print(f"latency {args.latency * 1000:.0f} ms/request, concurrency {args.concurrency}, "
          f"{args.reps} reps (median)")
    print(f"n=1  {one:.3f} s")
    print(f"n={args.n}  {many:.3f} s")
    print(f"ratio n={args.n} / n=1: {many / one:.2f} (goal <= 1.5)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
