"""Model-call failures, typed so strategies can classify outcomes.

`ContextLengthExceeded` is its own type because later strategies record it as the
end state "out of context" rather than as an infrastructure error (invariant 6).
"""

from __future__ import annotations

import ssl

from tether.errors import ConfigError, TetherError


class ModelError(TetherError):
    """A model call failed (after any retries)."""


class UnknownModelError(ConfigError):
    """The spec names no backend or the provider does not know the model."""


class AuthenticationError(ModelError):
    """The provider rejected the API key (or none was given)."""

    hint = "check the API key environment variable named in the model spec"


class EndpointUnreachable(ModelError):
    """Could not connect, or every retry timed out.

    `no_connection` is True when no connection could be made at all (refused, no route,
    no such host): the server is not there, for every request alike. A timeout says the
    server was reached but too slow for this request, which another request may not be.
    """

    def __init__(self, message: str, *, hint: str | None = None,
                 no_connection: bool = False) -> None:
        super().__init__(message, hint=hint)
        self.no_connection = no_connection


class RateLimited(ModelError):
    """Still rate-limited (HTTP 429) after the retry cap."""


class ServerError(ModelError):
    """The provider kept answering 5xx, or sent a malformed response."""


class ContextLengthExceeded(ModelError):
    """The request does not fit the model's context window."""


class ReplayMiss(ModelError):
    """A replay cassette has no recording of this request."""

    hint = "record it first with --record CASSETTE against a real model"


#: what to do about a certificate the client does not trust
TLS_HINT = ("a server whose certificate comes from a CA of its own: name that CA's PEM file "
            "in SSL_CERT_FILE (or use http:// for a server on this machine)")


class CertificateRefused(EndpointUnreachable):
    """The server's TLS certificate was not trusted: no connection, and none to come from
    retrying (the reason is in the message, what to do in the hint)."""

    hint = TLS_HINT

    def __init__(self, message: str) -> None:
        super().__init__(message, no_connection=True)


def certificate_refusal(exc: BaseException) -> str | None:
    """Why the server's TLS certificate was refused, when that is what `exc` (an SDK's
    connection error) comes from: the first certificate error of its causes. A refused
    certificate stays refused, so such an error is not worth retrying, and it is named:
    "cannot reach" alone would send the user looking for a server that is there."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, ssl.SSLCertVerificationError):
            return cause.verify_message or str(cause)
        cause = cause.__cause__ or cause.__context__
    return None
