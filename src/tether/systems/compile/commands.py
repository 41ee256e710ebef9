"""The commands of the compile system:
for the command hub (entry-point group `tether.commands`).

Each is "module:attribute" of its click command and the first sentence of its help,
as `tether --help` lists it; this module imports nothing, so listing the commands
loads none of them (tests/cli/test_hub.py checks each summary against the help).
"""

COMMANDS: dict[str, tuple[str, str]] = {
    "compile": ("tether.systems.compile.cli.compile:compile_",
        "Compile a harness: teacher rounds, the strict validation gate, then the test "
        "split."),
    "harness": ("tether.systems.compile.cli.harness:harness",
        "Compiled harnesses: identity and admissibility."),
    "settings": ("tether.systems.compile.cli.settings:settings",
        "Harness settings (`tether compile --setting NAME`): list them, show one."),
}
