"""tether: grounded test-time compute.

Wraps a frozen model in harnesses whose feedback and score come from instruments
that observe the artifact itself. The concepts page of the documentation
(docs/concepts.md) names the vocabulary and the invariants.
"""

from tether import _aliases

__version__ = "0.1.0"

_aliases.install()
