"""The `tether` command: one group, one module per command group below it.

A command's module is imported only when that command runs (or its help is shown):
`tether --help` lists every command from the one-line summaries below, so it starts
without importing the models, instruments, runner or report that the commands use
(benchmarks/cli_startup.py times it). tests/cli/test_main.py checks each summary
against its command's own help, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable

import click

from tether import __version__
from tether.cli.group import TetherGroup

# The loaders are plain functions with plain import statements (not import-by-string),
# so the import-linter layers and the module-cycle test still see every edge.


def _check_recorded() -> click.Command:
    from tether.cli.check_recorded import check_recorded
    return check_recorded


def _compile() -> click.Command:
    from tether.cli.compile import compile_
    return compile_


def _demo() -> click.Command:
    from tether.cli.demo import demo
    return demo


def _export() -> click.Command:
    from tether.cli.export import export
    return export


def _harness() -> click.Command:
    from tether.cli.harness import harness
    return harness


def _instruments() -> click.Command:
    from tether.cli.reference import instruments
    return instruments


def _judge() -> click.Command:
    from tether.cli.judge import judge
    return judge


def _measure() -> click.Command:
    from tether.cli.measure import measure
    return measure


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


def _scene() -> click.Command:
    from tether.cli.scene import scene
    return scene


def _strategies() -> click.Command:
    from tether.cli.reference import strategies
    return strategies


def _suites() -> click.Command:
    from tether.cli.suites import suites
    return suites


def _tasks() -> click.Command:
    from tether.cli.tasks import tasks
    return tasks


#: name -> (loader, the first sentence of the command's help, as `tether --help` lists it)
LAZY_COMMANDS: dict[str, tuple[Callable[[], click.Command], str]] = {
    "check-recorded": (_check_recorded, "Re-run FILE's programs with the study's rule "
                       "(program + test_code, exit 0 in 30 s)."),
    "compile": (_compile, "Compile a harness: teacher rounds, the strict validation gate, "
                "then the test split."),
    "demo": (_demo, "Single-shot vs proposer-reviewer on bundled code tasks, scored by "
             "execution; a report."),
    "export": (_export, "Write RUN_DIR's model calls as training examples, metadata beside "
               "each one."),
    "harness": (_harness, "Compiled harnesses: identity and admissibility."),
    "instruments": (_instruments, "The registered instruments: list them, show one's "
                    "parameters."),
    "judge": (_judge, "Judge every attempt of RUN_DIR's agent arms; attempts already judged "
              "are skipped."),
    "measure": (_measure, "Measure the rendered layout of an HTML file (or every .html file "
                "in a folder)."),
    "models": (_models, "Model specs: list the forms, ping a model."),
    "report": (_report, "Write the HTML report of RUN_DIR: summary, paired tests, plots, one "
               "page per trial."),
    "rescore": (_rescore, "Score the artifacts of RUN_DIR with another instrument (no model "
                "call) into a new run."),
    "run": (_run, "Run an experiment CONFIG (TOML, or a run's config.resolved.json) into a "
            "run directory."),
    "sandbox": (_sandbox, "Run commands in the sandbox that model-written code runs in."),
    "scene": (_scene, "Scene programs (VETR): Blender execution, write traces, render "
              "metrics."),
    "strategies": (_strategies, "The registered strategies: list them, show one's "
                   "parameters."),
    "suites": (_suites, "Task suites: bundled ones, foreign task files, tether suite files."),
    "tasks": (_tasks, "Terminal tasks in the Harbor layout: import (from Dockerfiles) and "
              "check them."),
}


class LazyTetherGroup(TetherGroup):
    """A TetherGroup whose commands in LAZY_COMMANDS load on first use; commands added
    with `add_command` work as in any click group."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(LAZY_COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in LAZY_COMMANDS:
            self.commands[cmd_name] = LAZY_COMMANDS[cmd_name][0]()
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
                text = click.Command(name, help=LAZY_COMMANDS[name][1]).get_short_help_str(limit)
            rows.append((name, text))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyTetherGroup)
@click.version_option(__version__, prog_name="tether")
def main() -> None:
    """Grounded test-time compute: harnesses scored by instruments, not opinions."""
