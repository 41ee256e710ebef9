"""The data setting (`jsonl:PATH`, `csv:PATH`): rows, splits, observations, bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.errors import ConfigError
from tether.systems.compile.setting import check_splits, get_setting
from tether.systems.compile.settings.data import DataSetting, canonical_spec


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def rows(n: int = 12) -> list[dict]:
    return [{"id": f"r{k}", "question": f"What is token {k}?", "answer": f"Quux{k}",
             "context": f"Quux{k}", "source": "atlas"} for k in range(n)]


def test_rows_become_items_with_resources_from_the_other_fields(tmp_path: Path) -> None:
    setting = get_setting(f"jsonl:{write_rows(tmp_path / 'd.jsonl', rows())}")
    assert isinstance(setting, DataSetting) and len(setting) == 12
    assert setting.offered_resources == ("context", "source")
    item = setting.items[3]
    assert setting.observation(item, {}) == {"item_id": "r3", "question": "What is token 3?"}
    assert setting.observation(item, {"context": True}) == {
        "item_id": "r3", "question": "What is token 3?", "context": "Quux3"}
    assert setting.gold(item) == ["Quux3"] and setting.image(item) is None
    assert setting.score("quux3", item) == 1.0 and setting.score("Quux4", item) == 0.0
    with pytest.raises(ConfigError, match="offers no resource 'ocr'"):
        setting.observation(item, {"ocr": True})


def test_splits_are_seeded_disjoint_and_short_when_the_file_is(tmp_path: Path) -> None:
    setting = get_setting(f"jsonl:{write_rows(tmp_path / 'd.jsonl', rows())}")
    sizes = {"probe": 4, "validation": 4, "test": 4}
    splits = setting.splits(0, sizes)
    ids = [i.item_id for s in splits.values() for i in s]
    assert len(ids) == len(set(ids)) == 12
    assert splits == setting.splits(0, sizes) and splits != setting.splits(1, sizes)
    check_splits(setting, splits, sizes)
    big = {"probe": 4, "validation": 4, "test": 20}
    assert len(setting.splits(0, big)["test"]) == 4
    with pytest.raises(ConfigError, match=r"has 12 items; probe 4 \+ validation 4 \+ test 20"):
        check_splits(setting, setting.splits(0, big), big)


def test_overlapping_splits_are_refused() -> None:
    toy = get_setting("toy")
    splits = toy.splits(0, {"probe": 3, "validation": 3, "test": 3})
    splits["test"] = [*splits["test"][:2], splits["probe"][0]]
    with pytest.raises(ConfigError, match="both the probe and the test split"):
        check_splits(toy, splits, {"probe": 3, "validation": 3, "test": 3})


def test_answers_may_be_lists_and_numbers(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "d.jsonl", [
        {"id": 1, "question": "q?", "answer": ["Golden City", "Birnin Zana"]},
        {"id": 2, "question": "n?", "answer": 42}])
    setting = DataSetting(f"jsonl:{path}")
    assert [setting.gold(i) for i in setting.items] == [["Golden City", "Birnin Zana"], ["42"]]
    assert setting.score("birnin zana", setting.items[0]) == 1.0


def test_csv_rows_and_list_cells(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text('id,question,answer,context\na,Who?,"[""Ann"", ""Anne""]",Ann wrote it\n'
                    "b,When?,1999,\n", encoding="utf-8")
    setting = get_setting(f"csv:{path}")
    assert [setting.gold(i) for i in setting.items] == [["Ann", "Anne"], ["1999"]]
    assert setting.offered_resources == ("context",)
    assert setting.observation(setting.items[1], {"context": True}) == {
        "item_id": "b", "question": "When?"}


def test_images_are_read_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "a.png").write_bytes(b"\x89PNG fake")
    path = write_rows(tmp_path / "d.jsonl",
                      [{"id": "a", "question": "What colour?", "answer": "red",
                        "image": "img/a.png"}])
    setting = DataSetting(f"jsonl:{path}")
    assert setting.image(setting.items[0]) == b"\x89PNG fake"
    assert "image" not in setting.offered_resources


@pytest.mark.parametrize(("lines", "message"), [
    (['{"id": "a", "question": "q", "answer": "x"}', "{not json"], r"d.jsonl:2: not JSON"),
    (['{"id": "a", "question": "q"}'], r"d.jsonl:1: missing 'answer'"),
    (['{"id": "a", "question": "q", "answer": "x"}', "",
      '{"id": "a", "question": "r", "answer": "y"}'],
     r"d.jsonl:3: duplicate id 'a' \(first on line 1\)"),
    (['{"id": "a", "question": "q", "answer": "x", "image": "nope.png"}'],
     r"d.jsonl:1: image 'nope.png' does not exist"),
    (['{"id": "a", "question": "q", "answer": []}'], r"d.jsonl:1: 'answer' must be"),
    (['[1, 2]'], r"d.jsonl:1: a row must be a JSON object"),
    ([], r"no rows"),
])
def test_bad_files_name_the_line(tmp_path: Path, lines: list[str], message: str) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        DataSetting(f"jsonl:{path}")


def test_a_missing_file_and_a_bad_metric_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such data file"):
        get_setting(f"jsonl:{tmp_path / 'none.jsonl'}")
    path = write_rows(tmp_path / "d.jsonl", rows(2))
    with pytest.raises(ConfigError, match="unknown metric 'bleu'"):
        get_setting(f"jsonl:{path};metric=bleu")


def test_the_canonical_spec_is_absolute_and_carries_the_metric(tmp_path: Path,
                                                               monkeypatch) -> None:
    write_rows(tmp_path / "d.jsonl", rows(2))
    monkeypatch.chdir(tmp_path)
    assert canonical_spec("jsonl:d.jsonl") == f"jsonl:{tmp_path.resolve()}/d.jsonl"
    spec = canonical_spec("jsonl:d.jsonl", metric="f1")
    assert spec.endswith("d.jsonl;metric=f1")
    graded = get_setting(spec)
    assert graded.aggregation == "mean_score" and graded.name == spec
    assert get_setting(canonical_spec("jsonl:d.jsonl")).aggregation == "pass_rate"


def test_the_old_metric_spelling_is_read_with_a_one_line_notice(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch) -> None:
    from tether import specs

    monkeypatch.setattr(specs, "_ANNOUNCED", set())
    path = write_rows(tmp_path / "d.jsonl", rows(2))
    with caplog.at_level("WARNING", logger="tether.specs"):
        old = get_setting(f"jsonl:{path}?metric=f1")
        again = get_setting(f"jsonl:{path}?metric=f1")
    new = get_setting(f"jsonl:{path};metric=f1")
    assert old.name == again.name == new.name == f"jsonl:{path};metric=f1"
    assert old.metric.name == "f1" and old.aggregation == "mean_score"
    notices = [r.getMessage() for r in caplog.records if r.name == "tether.specs"]
    assert notices == ["notice: ?metric=f1 is an old spelling, still read; write ;metric=f1"]
    assert canonical_spec(f"jsonl:{path}?metric=f1") == f"jsonl:{path.resolve()};metric=f1"


def test_a_data_spec_takes_only_its_metric_option(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "d.jsonl", rows(2))
    with pytest.raises(ConfigError, match=r"unknown option\(s\) \['metrc'\]"):
        get_setting(f"jsonl:{path};metrc=f1")
    assert get_setting(f"jsonl:{path};metric=exact").name == f"jsonl:{path}"


def test_a_harness_that_names_its_setting_the_old_way_still_matches_it(tmp_path: Path) -> None:
    from tether.systems.compile.admissibility import check_harness
    from tether.systems.compile.harness import bare_harness
    from tether.systems.compile.setting import same_setting

    path = write_rows(tmp_path / "d.jsonl", rows(12))
    old, new = f"jsonl:{path}?metric=f1", f"jsonl:{path};metric=f1"
    assert same_setting(old, new) and same_setting(new, new)
    assert not same_setting(old, f"jsonl:{path}") and not same_setting("docs", "shapes")
    document = bare_harness(old).document()  # as a harness compiled before stores it
    assert document["setting"] == old
    report = check_harness(document, get_setting(new))
    assert report.admissible, report.violations
    other = check_harness(document, get_setting(f"jsonl:{path}"))  # another metric
    assert [v.detail.split(":")[0] for v in other.violations] == ["setting"]


def test_the_teacher_reads_a_description_of_the_file(tmp_path: Path) -> None:
    from tether.systems.compile.compiler.prompts import setting_text

    text = setting_text(get_setting(f"jsonl:{write_rows(tmp_path / 'd.jsonl', rows(3))}"))
    assert "d.jsonl (3 rows)" in text and "context, source" in text
    assert "exact (pass/fail per item)" in text
    assert "Quux" not in text  # no gold in the description


def test_deployed_tasks_of_an_empty_split_are_refused(tmp_path: Path) -> None:
    from tether.systems.compile.tasks import parse_suite_spec, setting_tasks

    spec = f"jsonl:{write_rows(tmp_path / 'd.jsonl', rows(12))};metric=f1"
    assert parse_suite_spec(f"harness-{spec}:probe") == (spec, "probe")
    assert parse_suite_spec(f"harness-{spec}") == (spec, "test")
    # default sizes fitted to the 12 rows, as a compile without size flags fits them
    assert [len(setting_tasks(spec, s)) for s in ("probe", "validation", "test")] == [3, 3, 6]
    assert setting_tasks(spec, "test")[0].data["sizes"] == {"probe": 3, "validation": 3,
                                                             "test": 6}
    assert "@seed" not in setting_tasks(spec, "test")[0].suite
    with pytest.raises(ConfigError, match="the test split of setting .* is empty: its 12"):
        setting_tasks(spec, "test", sizes={"probe": 12})


def test_a_deployments_rows_may_be_unlabelled_and_keep_only_the_fields_used(
        tmp_path: Path) -> None:
    """`labels="optional"`: a row without `answer` (or with a null one) is read as
    unlabelled (never scored); `keep` leaves out fields the harness does not use, so
    one that a compile would refuse (an object) does not stop the file."""
    data = write_rows(tmp_path / "d.jsonl", [
        {"id": "a", "question": "Q a?", "context": "Ca", "meta": {"k": 1}},
        {"id": "b", "question": "Q b?", "context": "Cb", "answer": "Cb", "meta": {}},
        {"id": "c", "question": "Q c?", "context": "Cc", "answer": None, "meta": {}}])
    with pytest.raises(ConfigError, match=r"d.jsonl:1: missing 'answer'"):
        DataSetting(f"jsonl:{data}")
    setting = DataSetting(f"jsonl:{data}", labels="optional", keep=frozenset({"context"}))
    assert [setting.labelled(i) for i in setting.items] == [False, True, False]
    assert setting.offered_resources == ("context",)
    assert setting.where(setting.items[2]) == f"{data}:3"
    assert setting.score("cb", setting.items[1]) == 1.0
    with pytest.raises(ConfigError, match="has no answer to score"):
        setting.score("Ca", setting.items[0])
    labelled = setting.restricted([i for i in setting.items if setting.labelled(i)])
    assert [i.item_id for i in labelled.items] == ["b"] and len(setting) == 3
    missing = write_rows(tmp_path / "m.jsonl", [{"id": "a", "context": "x"}])
    with pytest.raises(ConfigError, match="missing 'question'") as refused:
        DataSetting(f"jsonl:{missing}", labels="optional")
    assert refused.value.hint == "a row needs id and question (answer where it is labelled)"
