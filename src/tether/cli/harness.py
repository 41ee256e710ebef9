"""`tether harness ...`: the compiled-harness artifact from the shell.

    tether harness hash HARNESS.json                    # its sha256 identity
    tether harness check HARNESS.json --setting docs [--json]

`check` exits 0 when the harness is admissible, 1 when not (one line per violation),
2 when the file cannot be read as JSON or the setting is unknown.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from tether.compile.admissibility import check_harness
from tether.compile.harness import load_harness, read_harness_document
from tether.compile.setting import get_setting


@click.group()
def harness() -> None:
    """Compiled harnesses: identity and admissibility."""


@harness.command("hash")
@click.argument("path", type=click.Path(path_type=Path))
def hash_(path: Path) -> None:
    """Print the harness's identity: sha256 of its canonical JSON."""
    click.echo(load_harness(path).hash)


@harness.command("check")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--setting", "setting_name", help="setting to check on (default: the harness's)")
@click.option("--seed", type=int, default=0, show_default=True, help="split seed")
@click.option("--json", "as_json", is_flag=True, help="one JSON object on stdout")
def check(path: Path, setting_name: str | None, seed: int, as_json: bool) -> None:
    """Check admissibility: schema, hook whitelist, hard-coded answers, smoke, determinism."""
    document = read_harness_document(path)
    if setting_name is None:
        named = document.get("setting") if isinstance(document, dict) else None
        setting_name = named if isinstance(named, str) else ""
    setting = get_setting(setting_name)
    report = check_harness(document, setting, seed=seed)
    if as_json:
        click.echo(json.dumps(report.to_json()))
    elif report.admissible:
        click.echo(f"admissible on {setting.name}: {report.hash}")
    else:
        for violation in report.violations:
            click.echo(f"{violation.check}: {violation.detail}")
    sys.exit(0 if report.admissible else 1)
