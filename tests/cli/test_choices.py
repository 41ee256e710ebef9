"""The option values written out in tether.cli.choices agree with the constants they mirror."""

from __future__ import annotations

from tether.cli import choices


def test_every_written_out_value_agrees_with_its_source() -> None:
    from tether.models import CACHE_MODES, DEFAULT_MODEL
    from tether.runs.export import FORMATS
    from tether.runs.judge import BUNDLED, DEFAULT_REPEATS, DEFAULT_TEMPERATURE
    from tether.sandbox import BACKENDS, DEFAULT_DISK_MB
    from tether.systems.compile import COMPARATORS
    from tether.systems.pages.geometry.profiles import MODALITIES, PROFILES
    from tether.systems.terminal.images import DEFAULT_IMAGE_DIR

    assert choices.SANDBOX_BACKENDS == BACKENDS
    assert choices.DEFAULT_DISK_MB == DEFAULT_DISK_MB
    assert choices.CACHE_MODES == CACHE_MODES
    assert choices.DEFAULT_MODEL == DEFAULT_MODEL
    assert choices.EXPORT_FORMATS == FORMATS
    assert choices.COMPARATORS == COMPARATORS
    assert choices.JUDGE_RUBRICS == tuple(BUNDLED)
    assert (choices.JUDGE_REPEATS, choices.JUDGE_TEMPERATURE) == (DEFAULT_REPEATS,
                                                                  DEFAULT_TEMPERATURE)
    assert choices.GEOMETRY_MODALITIES == MODALITIES
    assert choices.GEOMETRY_PROFILES == tuple(sorted(PROFILES))
    assert choices.DEFAULT_IMAGE_DIR == DEFAULT_IMAGE_DIR
