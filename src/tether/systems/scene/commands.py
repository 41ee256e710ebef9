"""The commands of the scene system:
for the command hub (entry-point group `tether.commands`).

Each is "module:attribute" of its click command and the first sentence of its help,
as `tether --help` lists it; this module imports nothing, so listing the commands
loads none of them (tests/cli/test_hub.py checks each summary against the help).
"""

COMMANDS: dict[str, tuple[str, str]] = {
    "scene": ("tether.systems.scene.cli.scene:scene",
        "Scene programs (VETR): Blender execution, write traces, render metrics."),
}
