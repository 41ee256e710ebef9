"""The TLS context made beside the SDK's import verifies as the HTTP package's own default.

The process's context is made once, so what depends on the environment (SSL_CERT_FILE)
runs in a fresh interpreter: a real HTTPS endpoint on 127.0.0.1 whose certificate a test
CA (trustme) issued is refused by the OpenAI-compatible backend, and answered once
SSL_CERT_FILE names that CA, as with the client's own default context.
"""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import httpx2
import openai
import pytest
import trustme

from tether.models.errors import CertificateRefused, certificate_refusal
from tether.models.openai_backend import OpenAICompatibleModel
from tether.models.retry import Retryable
from tether.models.tls import start_tls_context, tls_context_for

REPLY = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
         "choices": [{"index": 0, "finish_reason": "stop",
                      "message": {"role": "assistant", "content": "blue"}}],
         "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}

CALL = """
import sys
from tether.models import parse_model
model = parse_model(f"openai-compatible/m@{sys.argv[1]};timeout_s=5")
try:
    print(model.generate([{"role": "user", "content": "a colour?"}])[0].text)
except Exception as exc:
    print("refused:", type(exc).__name__, exc)
"""


def test_the_context_is_the_http_packages_default():
    start_tls_context()
    made = tls_context_for(openai.DefaultHttpxClient)
    assert isinstance(made, ssl.SSLContext)
    default = httpx2.create_ssl_context()
    assert made.verify_mode == ssl.CERT_REQUIRED and made.check_hostname
    assert made.cert_store_stats() == default.cert_store_stats()
    assert made.minimum_version == default.minimum_version
    assert made is tls_context_for(openai.DefaultHttpxClient)  # one per process


def test_clients_of_another_package_get_none():
    assert tls_context_for(httpx.Client) is None
    assert tls_context_for(object) is None


@pytest.fixture(scope="module")
def https_endpoint(tmp_path_factory):
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(server_ctx)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 (the http.server API)
            self.rfile.read(int(self.headers["Content-Length"]))
            data = json.dumps(REPLY).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.socket = server_ctx.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    ca_file = tmp_path_factory.mktemp("ca") / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    yield f"https://127.0.0.1:{httpd.server_address[1]}/v1", ca_file
    httpd.shutdown()
    httpd.server_close()


def _call(url: str, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    done = subprocess.run([sys.executable, "-c", CALL, url], capture_output=True, text=True,
                          env={**environ, "OPENAI_API_KEY": "k", **env}, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_an_endpoint_the_trust_store_does_not_vouch_for_is_refused(https_endpoint):
    url, _ = https_endpoint
    out = _call(url)
    # named for what it is, not "cannot reach", and not retried
    assert out == (f"refused: CertificateRefused openai-compatible/m@{url}: the TLS "
                   f"certificate of {url} was refused: unable to get local issuer certificate")


def test_ssl_cert_file_is_honoured(https_endpoint):
    url, ca_file = https_endpoint
    assert _call(url, SSL_CERT_FILE=str(ca_file)) == "blue"


def _verify_failure() -> Exception:
    cert_error = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED]")
    cert_error.verify_message = "self-signed certificate"
    try:
        try:
            raise cert_error
        except ssl.SSLError as exc:
            raise httpx2.ConnectError("handshake failed") from exc
    except httpx2.ConnectError as exc:
        error = openai.APIConnectionError(request=httpx2.Request("POST", "https://h/v1"))
        error.__cause__ = exc
        return error


def test_a_refused_certificate_is_named_and_not_retried():
    model = OpenAICompatibleModel("m", base_url="https://h/v1", key_env=None)
    classified = model._classify(_verify_failure())
    assert isinstance(classified, CertificateRefused)  # not Retryable: it stays refused
    assert classified.no_connection
    assert str(classified) == ("m@https://h/v1: the TLS certificate of "
                               "https://h/v1 was refused: self-signed certificate")
    assert "SSL_CERT_FILE" in classified.hint
    plain = openai.APIConnectionError(request=httpx2.Request("POST", "https://h/v1"))
    assert isinstance(model._classify(plain), Retryable)  # a refused connection is retried
    assert certificate_refusal(plain) is None


FORKED = """
import os, sys, threading, time
import httpx2
from tether.models import tls
# a context whose making never ends in this process, as if forked mid-way
tls._context = __import__("concurrent.futures").futures.Future()
pid = os.fork()
if pid == 0:
    tls.start_tls_context()
    made = tls.tls_context_for(httpx2.Client)
    os._exit(0 if made is not None else 3)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""


def test_a_forked_child_makes_its_own_context_instead_of_waiting_for_the_parents():
    done = subprocess.run([sys.executable, "-c", FORKED], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "0", done.stderr
