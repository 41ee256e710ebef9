"""The commands of the studies:
for the command hub (entry-point group `tether.commands`).

Each is "module:attribute" of its click command and the first sentence of its help,
as `tether --help` lists it; this module imports nothing, so listing the commands
loads none of them (tests/cli/test_hub.py checks each summary against the help).
"""

COMMANDS: dict[str, tuple[str, str]] = {
    "check-recorded": ("tether.studies.interaction_scaling.cli:check_recorded",
        "Re-run FILE's programs with the study's rule (program + test_code, exit 0 in "
        "30 s)."),
    "reproduce": ("tether.studies.cli:reproduce",
        "Recompute a paper's table from its recorded data (`list` names them)."),
}
