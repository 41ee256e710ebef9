import hashlib
import json

import pytest
from pydantic import ValidationError

from tether.errors import ConfigError
from tether.systems.compile.harness import (
    Harness,
    TemplateError,
    bare_harness,
    canonical_json,
    load_harness,
    render_template,
    template_fields,
)

DOC = {"schema": "tether-harness/1", "setting": "toy",
       "prompts": {"answer": "Q: {question}\nHint: {hint}"},
       "decode": {"max_tokens": 32, "temperature": 0.0},
       "resources": {"hint": True}, "answer_mode": "defer",
       "hooks": {"parse": "def parse(text, item):\n    return text.strip()\n"}}


def test_a_document_round_trips_and_its_hash_is_the_canonical_sha256():
    harness = Harness.model_validate(DOC)
    assert harness.document() == DOC
    expected = hashlib.sha256(
        json.dumps(DOC, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert harness.hash == expected


def test_the_hash_ignores_key_order_and_spelled_out_defaults():
    short = {k: v for k, v in DOC.items() if k not in ("answer_mode",)}
    reordered = dict(reversed(list(DOC.items())))
    assert Harness.model_validate(short).hash == Harness.model_validate(DOC).hash
    assert Harness.model_validate(reordered).hash == Harness.model_validate(DOC).hash
    changed = {**DOC, "decode": {"max_tokens": 33, "temperature": 0.0}}
    assert Harness.model_validate(changed).hash != Harness.model_validate(DOC).hash


@pytest.mark.parametrize("bad", [
    {**DOC, "extra": 1},
    {**DOC, "schema": "tether-harness/2"},
    {**DOC, "decode": {"max_tokens": 32, "top_p": 0.9}},
    {**DOC, "hooks": {"rout": "def rout(obs, state): pass"}},
    {**DOC, "answer_mode": "always"},
])
def test_unknown_keys_and_values_are_rejected(bad):
    with pytest.raises(ValidationError):
        Harness.model_validate(bad)


def test_bare_harness_is_the_plain_question_with_nothing_else():
    doc = bare_harness("toy").document()
    assert doc["prompts"] == {"answer": "{question}"}
    assert doc["resources"] == {} and doc["hooks"] == {}


def test_load_harness_reports_unreadable_and_invalid_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_harness(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ConfigError, match="not JSON"):
        load_harness(tmp_path / "bad.json")
    (tmp_path / "h.json").write_text(json.dumps({**DOC, "x": 1}))
    with pytest.raises(ConfigError, match="x: Extra inputs"):
        load_harness(tmp_path / "h.json")
    (tmp_path / "ok.json").write_text(json.dumps(DOC))
    assert load_harness(tmp_path / "ok.json").hash == Harness.model_validate(DOC).hash


def test_templates_substitute_known_names_once():
    out = render_template("{question} / {n} / {cands}",
                          {"question": "has {braces}", "n": 3, "cands": [{"name": "a"}]})
    assert out == 'has {braces} / 3 / [{"name": "a"}]'
    assert template_fields("a {x} b {y_2}") == ["x", "y_2"]


@pytest.mark.parametrize("template", [
    "{question:>10}", "{obs.question}", "{pages[0]}", "{{question}}", "a } b", "{ question }",
    "{0}", "{}", "open {",
])
def test_any_other_brace_is_an_error(template):
    with pytest.raises(TemplateError):
        template_fields(template)
    with pytest.raises(TemplateError):
        render_template(template, {"question": "q", "obs": {}, "pages": [], "0": "x"})


def test_a_missing_field_is_an_error_not_an_empty_string():
    with pytest.raises(TemplateError, match="no value for {ocr}"):
        render_template("{question} {ocr}", {"question": "q"})


def test_canonical_json_is_compact_and_sorted():
    assert canonical_json({"b": 1, "a": [1, 2]}) == '{"a":[1,2],"b":1}'
