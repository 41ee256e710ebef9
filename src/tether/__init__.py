"""tether: grounded test-time compute.

Wraps a frozen model in harnesses whose feedback and score come from instruments
that observe the artifact itself. See DESIGN.md in the project for the vocabulary.
"""

__version__ = "0.1.0"
