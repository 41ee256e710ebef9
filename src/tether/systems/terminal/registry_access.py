"""The opt-in network of an attempt: the package registries, through the build proxy.

Off by default. The turn-level best-of-N paper's agents (and Terminal-Bench's oracle
solutions) had a network: a solution that runs `pip install` or `apt-get install`
cannot pass offline. With `registry_access = true` (a strategy parameter; `tether tasks
check --registry` for the gates) an attempt's agent commands, its setup and its solution
reach the package registries and nothing else, as an image build does
(`tether.systems.terminal.build_proxy`): the sandbox keeps its own network namespace
(loopback only); inside it the forwarder listens on 127.0.0.1:PROXY_PORT and hands each
connection to a unix socket bound in from the host, where `MirrorProxy` connects only to
the mirrors and logs every request, allowed or refused. The verifier never gets it.

The trial records the option and the requests (`RegistryAccess.record()`, the trial's
`extra["registry"]`), DESIGN invariant 4's one exception, recorded where it applies.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path
from typing import Any

from tether.systems.terminal.build_proxy import BUILD_MIRRORS, FORWARDER, PROXY_URL, MirrorProxy
from tether.systems.terminal.images import host_ca_bundle

#: where the forwarder, the proxy socket and the host's CA bundle are seen (read-only):
#: a top-level dir, so it can be made on any image (the sandbox's root is its own tmpfs)
NET_DIR = "/.tether-registry"
#: how a command reaches the registries: proxy variables for pip, apt, npm, curl, ...
PROXY_ENV = {"http_proxy": PROXY_URL, "https_proxy": PROXY_URL, "HTTP_PROXY": PROXY_URL,
             "HTTPS_PROXY": PROXY_URL, "no_proxy": "localhost,127.0.0.1",
             "NO_PROXY": "localhost,127.0.0.1"}  # fmt: skip
# Each command runs under the forwarder when the system has python3 (without it, no
# network: said on stderr, as an image build says it).
RUN_SH = f"""\
if [ -x /usr/bin/python3 ]; then
  exec /usr/bin/python3 -I {NET_DIR}/forward.py /bin/bash -c "$1"
fi
echo "tether: no /usr/bin/python3 here: this command has no registry access" >&2
exec /bin/bash -c "$1"
"""


class RegistryAccess:
    """The host side of one attempt's registry access: `with` it around the attempt."""

    def __init__(self, where: Path, mirrors: tuple[str, ...] = BUILD_MIRRORS) -> None:
        self.dir = where
        self.mirrors = mirrors
        self._proxy: MirrorProxy | None = None
        self.env: dict[str, str] = dict(PROXY_ENV)

    @property
    def binds(self) -> dict[str, str]:
        """Read-only binds of the sandbox: host dir -> NET_DIR."""
        return {str(self.dir): NET_DIR}

    def wrap(self, script: str) -> list[str]:
        """The argv that runs `script` (a bash script) under the forwarder."""
        return ["/bin/bash", f"{NET_DIR}/run.sh", script]

    def shell(self, script: str) -> str:
        """`wrap` as one shell command line (for callers that run a string)."""
        return " ".join(shlex.quote(a) for a in self.wrap(script))

    def start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "forward.py").write_text(FORWARDER, encoding="utf-8")
        (self.dir / "run.sh").write_text(RUN_SH, encoding="utf-8")
        ca = host_ca_bundle()
        if ca is not None:
            shutil.copyfile(ca, self.dir / "ca.crt")
            inside = f"{NET_DIR}/ca.crt"
            self.env.update({"PIP_CERT": inside, "SSL_CERT_FILE": inside,
                             "REQUESTS_CA_BUNDLE": inside, "CURL_CA_BUNDLE": inside,
                             "NODE_EXTRA_CA_CERTS": inside})
        for path in (self.dir, *self.dir.iterdir()):
            path.chmod(0o755 if path.is_dir() else 0o644)
        self._proxy = MirrorProxy(self.dir / "proxy.sock", self.mirrors).__enter__()

    def close(self) -> None:
        if self._proxy is not None:
            self._proxy.__exit__(None, None, None)

    def record(self) -> dict[str, Any]:
        """What the trial keeps: the option, the mirrors and every request made."""
        requests = [] if self._proxy is None else [r.to_json() for r in self._proxy.requests]
        return {"enabled": True, "mirrors": list(self.mirrors), "requests": requests,
                "refused": sum(1 for r in requests if not r["allowed"])}


#: what a trial records when the option is off
OFF: dict[str, Any] = {"enabled": False}
