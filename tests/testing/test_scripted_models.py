import pytest

from tether.models import Completion, ModelError, Usage
from tether.models.base import GenerateParams
from tether.testing import ScriptedModel


def test_list_script_answers_in_order_then_fails_loudly():
    m = ScriptedModel(["a b", "c"])
    assert m.generate([{"role": "user", "content": "x y z"}])[0].usage == Usage(3, 2, 0)
    assert m.generate([])[0].text == "c"
    with pytest.raises(ModelError, match="exhausted"):
        m.generate([])


def test_callable_sees_sample_index_params_and_role():
    seen = []

    def script(messages, info):
        seen.append((info.call_number, info.sample_index, info.params.seed, info.role))
        return f"sample {info.sample_index}"

    out = ScriptedModel(script).generate([], GenerateParams.of(seed=10), n=2, role="reviewer")
    assert [c.text for c in out] == ["sample 0", "sample 1"]
    assert seen == [(0, 0, 10, "reviewer"), (1, 1, 10, "reviewer")]


def test_completion_passthrough_and_truncation():
    c = Completion(text="x", usage=Usage(1, 2, 3))
    m = ScriptedModel([c, "one two three four"])
    assert m.generate([])[0].usage == Usage(1, 2, 3)
    cut = m.generate([], GenerateParams.of(max_tokens=2))[0]
    assert cut.text == "one two" and cut.finish_reason == "length"
