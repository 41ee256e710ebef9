"""Not starting trials on an endpoint that keeps refusing connections.

A dead model server costs each trial its whole retry schedule before it ends in
`error`, so a run against it would take minutes per trial only to record errors.
After `threshold` trials in a row failed to connect to one endpoint (error kind
`EndpointUnreachable`, a model error after every retry, or `CertificateRefused`, a TLS
certificate the client does not trust), the trials still to start that use that
endpoint are not started: each is recorded at once as an `error` of
kind `skipped:EndpointUnreachable`, so `tether run --resume RUN --retry-errors` runs
them once the server is back. Trials already in flight end normally. Only
connection failures count: a rate limit, a server error or a rejected key says the
server is there. A trial of that endpoint that ends any other way resets its count.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from tether.core import Artifact, TrialRecord

if TYPE_CHECKING:  # expand imports the config, which imports this module's default
    from tether.runs.expansion import PlannedTrial

#: error kinds (tether.models.errors type names) that say the endpoint could not be reached
CONNECTION_ERRORS = frozenset({"EndpointUnreachable", "CertificateRefused"})
SKIPPED_KIND = "skipped:EndpointUnreachable"
DEFAULT_FAILURES = 3

#: the default endpoints of providers whose specs name none
_PROVIDER_URLS = {"openai": "https://api.openai.com", "anthropic": "https://api.anthropic.com"}


def endpoint_of(spec: str) -> str | None:
    """The server a model spec talks to; None for in-process models (scripted, local)."""
    head, *options = (part.strip() for part in spec.strip().split(";"))
    for option in options:
        key, _, value = option.partition("=")
        if key.strip() == "base_url" and value.strip():
            return value.strip()
    provider, _, rest = head.partition("/")
    if provider == "openai-compatible":
        return rest.rpartition("@")[2] or None
    return _PROVIDER_URLS.get(provider)


def _mentions(message: str, endpoint: str) -> bool:
    host = urlparse(endpoint).netloc
    return endpoint in message or bool(host) and host in message


class EndpointBreaker:
    """Counts connection failures per endpoint, in the order trials end.

    A `runs.runner.TrialGate`: executors ask `before_start` (from any worker thread)
    before a trial starts and tell `ended` how each started trial ended.
    """

    def __init__(self, threshold: int = DEFAULT_FAILURES,
                 on_open: Callable[[str, int], None] | None = None) -> None:
        self.threshold = threshold  # 0: never stop starting trials
        self.on_open = on_open
        self._failures: dict[str, int] = {}
        self._open: list[str] = []
        self._lock = threading.Lock()

    @property
    def open_endpoints(self) -> list[str]:
        """Endpoints whose trials are no longer started, in the order they tripped."""
        with self._lock:
            return list(self._open)

    def _endpoints(self, record_or_trial: TrialRecord | PlannedTrial) -> set[str]:
        specs = record_or_trial.spec.models.values()
        return {e for e in map(endpoint_of, specs) if e is not None}

    def before_start(self, planned: PlannedTrial) -> tuple[TrialRecord, dict[str, Artifact]] | None:
        """None to start the trial; else the record of a trial not started (no artifacts)."""
        with self._lock:
            down = [e for e in self._open if e in self._endpoints(planned)]
        if not down:
            return None
        record = TrialRecord(
            trial_id=planned.spec.trial_id, index=planned.index, spec=planned.spec,
            status="error", error_kind=SKIPPED_KIND,
            error_message=f"not started: {down[0]} could not be reached by "
                          f"{self.threshold} trials in a row")
        return record, {}

    def ended(self, record: TrialRecord) -> None:
        if self.threshold <= 0:
            return
        endpoints = self._endpoints(record)
        blamed: set[str] = set()
        if record.error_kind in CONNECTION_ERRORS:
            message = record.error_message or ""
            blamed = {e for e in endpoints if _mentions(message, e)}
            if not blamed and len(endpoints) == 1:
                blamed = set(endpoints)  # the only server the trial talked to
        tripped: list[tuple[str, int]] = []
        with self._lock:
            for e in endpoints:
                self._failures[e] = self._failures.get(e, 0) + 1 if e in blamed else 0
                if e in blamed and self._failures[e] >= self.threshold and e not in self._open:
                    self._open.append(e)
                    tripped.append((e, self._failures[e]))
        for endpoint, n in tripped:
            if self.on_open is not None:
                self.on_open(endpoint, n)
