"""The commands of the demo:
for the command hub (entry-point group `tether.commands`).

Each is "module:attribute" of its click command and the first sentence of its help,
as `tether --help` lists it; this module imports nothing, so listing the commands
loads none of them (tests/cli/test_hub.py checks each summary against the help).
"""

COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("tether.demo.cli:demo",
        "Single-shot vs best-of-4 picked by visible checks, scored by hidden checks; a "
        "report."),
}
