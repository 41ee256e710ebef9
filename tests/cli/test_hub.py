import json

from click.testing import CliRunner

from tether.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_models_list_names_every_form():
    res = run("models", "list", "--json")
    assert res.exit_code == 0
    patterns = [f["pattern"] for f in json.loads(res.output)]
    assert "local/smollm2-135m" in patterns and "replay:CASSETTE" in patterns


def test_ping_scripted_json_reports_text_and_tokens():
    res = run("models", "ping", 'scripted:["hello there"]', "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["text"] == "hello there"
    assert out["usage"]["output_tokens"] == 2


def test_unknown_spec_is_one_line_and_exit_2():
    res = run("models", "ping", "nonsense")
    assert res.exit_code == 2
    assert "Traceback" not in res.output
    assert "unknown model spec" in res.output


def test_record_then_replay_round_trip(tmp_path):
    cassette = tmp_path / "c.sqlite"
    first = run("models", "ping", 'scripted:["recorded answer"]', "--record", str(cassette),
                "--json")
    assert first.exit_code == 0, first.output
    # replay: the scripted id is part of the key, and the cassette knows it
    again = run("models", "ping", f"replay:{cassette}", "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.output)["text"] == "recorded answer"
    miss = run("models", "ping", f"replay:{cassette}", "--prompt", "something else")
    assert miss.exit_code == 2 and "no recording" in miss.output


def test_importing_the_cli_loads_no_plotting_or_statistics_library() -> None:
    """`tether --help` and every command's help start fast: matplotlib and scipy.stats load
    only in the commands that use them (timed in benchmarks/cli_startup.py)."""
    import subprocess
    import sys

    code = ("import sys, tether.cli; "
            "print(sorted(m for m in ('matplotlib', 'scipy.stats') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"


def test_help_lists_each_command_with_its_own_summary() -> None:
    """`tether --help` lists the commands from summaries written beside their loaders
    (the kernel's) or in the systems' command tables (entry points `tether.commands`):
    listing must not import them, and each agrees with the command's own help."""
    import click

    from tether.cli.hub import LAZY_COMMANDS, all_commands

    commands = all_commands()
    ctx = click.Context(main)
    assert main.list_commands(ctx) == sorted(commands)
    # every system with commands declares them; the kernel's own stay in the hub
    assert {"compile", "harness", "settings", "scene", "tasks", "measure", "demo",
            "check-recorded"} <= set(commands) - set(LAZY_COMMANDS)
    for name, (_, summary) in commands.items():
        command = main.get_command(ctx, name)
        assert command is not None and command.name == name
        assert summary == command.get_short_help_str(1000), name
    listed = run("--help").output
    assert all(f"  {name} " in listed for name in commands)


def test_a_misspelt_command_gets_a_suggestion_from_every_command() -> None:
    res = run("rn")
    assert res.exit_code == 2 and "No such command 'rn'. Did you mean 'run'?" in res.output


def test_help_of_every_command_imports_no_model_runner_or_instrument() -> None:
    """`tether --help`, each command's and each subcommand's `--help` load click and rich
    only: the packages behind the commands (and pydantic, numpy) load when one runs. What
    may load is the command layer: the hub and the registry it keeps the commands in, the
    package faces (lazy), the systems' command tables and their command modules."""
    import subprocess
    import sys

    code = r"""
import sys, click
from tether.cli import main
def helps(group, path):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        yield path + [name]
        sub = group.get_command(ctx, name)
        if isinstance(sub, click.Group):
            yield from helps(sub, path + [name])
shown = 0
for args in [[]] + list(helps(main, [])):
    try:
        main(args + ["--help"], standalone_mode=False)
    except SystemExit:
        pass
    shown += 1
import re
command_layer = re.compile(r"tether([.](_aliases|errors|lazy|plugins|registry)|[.]cli([.].*)?"
                           r"|[.]systems([.]\w+)?|([.]\w+)*[.]commands|([.]\w+)*[.]cli([.].*)?"
                           r"|[.]demo|[.]studies([.]interaction_scaling)?)?$")
heavy = [m for m in sys.modules if m.startswith(("pydantic", "numpy"))
         or (m.startswith("tether") and not command_layer.match(m))]
print(shown, sorted(heavy))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    shown, loaded = done.stdout.strip().splitlines()[-1].split(" ", 1)
    assert int(shown) > 30 and loaded == "[]", done.stdout
