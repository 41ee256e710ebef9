"""The `tether` command line (one module per command group)."""

from tether.cli.main import main

__all__ = ["main"]
