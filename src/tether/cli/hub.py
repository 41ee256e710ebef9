"""The `tether` command: one group, one module per command group below it.

A command's module is imported only when that command runs (or its help is shown):
`tether --help` lists every command from the one-line summaries below, so it starts
without importing the models, instruments, runner or report that the commands use
(benchmarks/cli_startup.py times it). tests/cli/test_hub.py checks each summary
against its command's own help, so the two cannot drift apart.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import click

from tether import __version__
from tether.cli.group import TetherGroup
from tether.plugins import plugins
from tether.registry import Registry

# The kernel's own commands: plain functions with plain import statements (not
# import-by-string), so the import-linter layers and the module-cycle test see every
# edge. The systems' commands come from the entry points `tether.commands` (below).


def _experiments() -> click.Command:
    from tether.cli.experiments import experiments
    return experiments


def _export() -> click.Command:
    from tether.cli.export import export
    return export

def _instruments() -> click.Command:
    from tether.cli.reference import instruments
    return instruments


def _judge() -> click.Command:
    from tether.cli.judge import judge
    return judge

def _models() -> click.Command:
    from tether.cli.models import models
    return models


def _report() -> click.Command:
    from tether.cli.report import report
    return report


def _rescore() -> click.Command:
    from tether.cli.run import rescore
    return rescore


def _run() -> click.Command:
    from tether.cli.run import run
    return run


def _sandbox() -> click.Command:
    from tether.cli.sandbox import sandbox
    return sandbox

def _strategies() -> click.Command:
    from tether.cli.reference import strategies
    return strategies


def _suites() -> click.Command:
    from tether.cli.suites import suites
    return suites


#: name -> (loader, the first sentence of the command's help, as `tether --help` lists it)
LAZY_COMMANDS: dict[str, tuple[Callable[[], click.Command], str]] = {
    "experiments": (_experiments, "The experiments tether ships: list them, show one (each "
                    "runs by name)."),
    "export": (_export, "Write RUN_DIR's model calls as training examples, metadata beside "
               "each one."),
    "instruments": (_instruments, "The registered instruments: list them, show one's "
                    "parameters."),
    "judge": (_judge, "Judge every attempt of RUN_DIR's agent arms; attempts already judged "
              "are skipped."),
    "models": (_models, "Model specs: list the forms, ping a model."),
    "report": (_report, "Write the HTML report of RUN_DIR: summary, paired tests, plots, one "
               "page per trial."),
    "rescore": (_rescore, "Score the artifacts of RUN_DIR with another instrument (no model "
                "call) into a new run."),
    "run": (_run, "Run an experiment CONFIG (TOML, or a run's config.resolved.json) into a "
            "run directory."),
    "sandbox": (_sandbox, "Run commands in the sandbox that model-written code runs in."),
    "strategies": (_strategies, "The registered strategies: list them, show one's "
                   "parameters."),
    "suites": (_suites, "Task suites: bundled ones, foreign task files, tether suite files."),
}


#: a command as the hub keeps it: its loader and its one-line summary
CommandEntry = tuple[Callable[[], click.Command], str]


def _loader(target: str) -> Callable[[], click.Command]:
    """A loader of the click command at "module:attribute"."""
    module, _, attr = target.partition(":")

    def load() -> click.Command:
        command: click.Command = getattr(importlib.import_module(module), attr)
        return command

    return load


def plugin_commands() -> dict[str, CommandEntry]:
    """The commands the systems and the packages above them declare (entry points
    `tether.commands`: tables of {name: ("module:attribute", summary)}), loaded lazily."""
    found: dict[str, CommandEntry] = {}
    for table in plugins("tether.commands").values():
        for name, (target, summary) in table.items():
            found[name] = (_loader(target), summary)
    return found


def _load_declared() -> None:
    for name, entry in plugin_commands().items():
        COMMANDS.register(name, replace=False)(entry)  # the kernel's own keep their name


#: every command, name -> (loader, summary): the kernel's, registered here, and the
#: declared ones, read from the entry points on first use
COMMANDS: Registry[CommandEntry] = Registry("command", load=_load_declared)
for _name, _entry in LAZY_COMMANDS.items():
    COMMANDS.register(_name)(_entry)


def all_commands() -> dict[str, CommandEntry]:
    """Every command: the kernel's and the declared ones, name -> (loader, summary)."""
    return COMMANDS.entries()


class LazyTetherGroup(TetherGroup):
    """A TetherGroup whose commands (`all_commands`) load on first use; commands added
    with `add_command` work as in any click group."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(all_commands()))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        lazy = all_commands()
        if cmd_name not in self.commands and cmd_name in lazy:
            self.commands[cmd_name] = lazy[cmd_name][0]()
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:
            # click (8.4 on) suggests a name from the commands loaded so far: suggest one
            # from all of them
            name = getattr(exc, "command_name", None)
            if name is None:
                raise
            raise click.exceptions.NoSuchCommand(
                name, possibilities=self.list_commands(ctx), ctx=ctx) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The Commands section, as click writes it, from the summaries: listing the
        commands must not import them."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))
        rows = []
        for name in names:
            if name in self.commands:
                if self.commands[name].hidden:
                    continue
                text = self.commands[name].get_short_help_str(limit)
            else:
                # a bare command with the summary as its help shortens it as click would
                text = click.Command(name, help=all_commands()[name][1]).get_short_help_str(limit)
            rows.append((name, text))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyTetherGroup)
@click.version_option(__version__, prog_name="tether")
def main() -> None:
    """Grounded test-time compute: harnesses scored by instruments, not opinions."""
