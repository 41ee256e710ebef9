"""The `tether` command: one group, one module per command group below it."""

from __future__ import annotations

import click

from tether import __version__
from tether.cli.check_recorded import check_recorded
from tether.cli.compile import compile_
from tether.cli.demo import demo
from tether.cli.export import export
from tether.cli.group import TetherGroup
from tether.cli.harness import harness
from tether.cli.judge import judge
from tether.cli.measure import measure
from tether.cli.models import models
from tether.cli.reference import instruments, strategies
from tether.cli.report import report
from tether.cli.run import rescore, run
from tether.cli.sandbox import sandbox
from tether.cli.scene import scene
from tether.cli.settings import settings
from tether.cli.suites import suites
from tether.cli.tasks import tasks


@click.group(cls=TetherGroup)
@click.version_option(__version__, prog_name="tether")
def main() -> None:
    """Grounded test-time compute: harnesses scored by instruments, not opinions."""


for _command in (models, sandbox, suites, demo, run, rescore, report, tasks, measure,
                 check_recorded, harness, scene, export, judge, compile_, strategies,
                 instruments, settings):
    main.add_command(_command)
