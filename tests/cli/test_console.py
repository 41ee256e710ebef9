"""CLI consoles never wrap a line, whatever the terminal (or its absence) is."""

from __future__ import annotations

from tether.cli.console import make_console


def test_off_a_terminal_lines_are_not_wrapped_and_tables_get_200_columns(capsys):
    console = make_console()
    assert console.width == 200 and console.soft_wrap
    path = "/a/" + "very_long_directory_name/" * 12 + "page.html"
    console.print(f"[bold]{path}[/]: 3 defect(s) (overflow 2, out_of_bounds 1)")
    out = capsys.readouterr().out
    assert out == f"{path}: 3 defect(s) (overflow 2, out_of_bounds 1)\n"


def test_stderr_console_writes_to_stderr(capsys):
    make_console(stderr=True).print("hint: tether run --resume /x")
    captured = capsys.readouterr()
    assert captured.err == "hint: tether run --resume /x\n" and captured.out == ""


def test_bracketed_words_in_errors_and_hints_print_literally() -> None:
    import click
    from click.testing import CliRunner
    from rich.table import Table

    from tether.cli.console import add_literal_row
    from tether.cli.group import TetherGroup
    from tether.errors import ConfigError

    @click.group(cls=TetherGroup)
    def group() -> None:
        pass

    @group.command()
    def fail() -> None:
        raise ConfigError("no [[models]] table in [run]", hint="pip install 'tether[local]'")

    result = CliRunner().invoke(group, ["fail"])
    assert result.exit_code == 2
    assert "error: no [[models]] table in [run]" in result.output
    assert "hint: pip install 'tether[local]'" in result.output

    table = Table()
    table.add_column("needs")
    add_literal_row(table, "extra [local]")
    console = make_console()
    with console.capture() as cap:
        console.print(table)
    assert "extra [local]" in cap.get()
