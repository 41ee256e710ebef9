"""The build proxy's pieces that need no sandbox: the forwarder's relay function."""

from __future__ import annotations

import ast
import socket
import threading
from typing import Any

from tether.systems.terminal.build_proxy import FORWARDER


def _forwarder_functions() -> dict[str, Any]:
    """FORWARDER's imports and function definitions, run without its top-level code (which
    binds the proxy port and runs a command)."""
    tree = ast.parse(FORWARDER)
    tree.body = [n for n in tree.body if isinstance(n, ast.Import | ast.FunctionDef)]
    env: dict[str, Any] = {"__file__": "forward.py"}
    exec(compile(tree, "forward.py", "exec"), env)
    return env


def test_the_forwarder_relays_bytes_and_half_closes_the_other_side():
    pipe = _forwarder_functions()["_pipe"]
    src_near, src_far = socket.socketpair()
    dst_near, dst_far = socket.socketpair()
    with src_near, src_far, dst_near, dst_far:
        relay = threading.Thread(target=pipe, args=(src_far, dst_near))
        relay.start()
        src_near.sendall(b"GET / HTTP/1.1\r\n\r\n")
        src_near.shutdown(socket.SHUT_WR)
        relay.join(timeout=10)
        received = b""
        while chunk := dst_far.recv(65536):  # ends at the relay's shutdown(SHUT_WR)
            received += chunk
    assert not relay.is_alive()
    assert received == b"GET / HTTP/1.1\r\n\r\n"


def test_the_forwarder_defines_what_its_top_level_code_calls():
    names = _forwarder_functions()
    assert {"_pipe", "serve", "accept"} <= names.keys()
