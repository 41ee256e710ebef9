"""Start llama-cpp-python's OpenAI-compatible server on the embedded GGUF, for tests that
need a real HTTP model endpoint (a real tokenizer and model behind every number)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def llama_server(n_ctx: int, *extra: str) -> Iterator[str]:
    """Serve the embedded model on 127.0.0.1; yields the base URL (ending in /v1)."""
    from tether.models.local import embedded_gguf

    port = _free_port()
    threads = str(max(1, (os.cpu_count() or 2) // 2))
    # llama.cpp logs hundreds of KB: a pipe would fill up and block the server.
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(embedded_gguf()),
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
         "--n_threads", threads, *extra],
        stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 60
    try:
        while True:
            if proc.poll() is not None:
                log.seek(0)
                err = log.read().decode(errors="replace")[-2000:]
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}:\n{err}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=1) as r:
                    if r.status == 200 and json.load(r).get("data"):
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server not ready after 60 s")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
