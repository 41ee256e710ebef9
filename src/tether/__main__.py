"""`python -m tether`: the same CLI as the `tether` script, for environments where the
script's directory is not on PATH (a venv not activated, a notebook's kernel)."""

from tether.cli import main

main()
