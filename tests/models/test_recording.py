from tether.models import RecordingModel, Usage, total_usage
from tether.models.base import GenerateParams
from tether.testing import ScriptedModel


def test_every_completion_is_recorded_with_role_and_hash():
    log = []
    m = RecordingModel(ScriptedModel(["a b", "c", "d e f"]), log, role="proposer")
    m.generate([{"role": "user", "content": "hi"}], n=2)
    m.generate([{"role": "user", "content": "hi"}], role="reviewer")
    assert [r.role for r in log] == ["proposer", "proposer", "reviewer"]
    assert [r.sample_index for r in log] == [0, 1, 0]
    assert log[0].request_hash != log[1].request_hash  # sample index is part of the key
    assert total_usage(log, "proposer") == Usage(2, 3, 0)
    assert total_usage(log) == Usage(3, 6, 0)


def test_each_record_keeps_the_sampling_parameters_of_its_request():
    from pydantic import TypeAdapter

    from tether.models import CallRecord

    log = []
    m = RecordingModel(ScriptedModel(["a", "b"]), log, role="proposer")
    m.generate([{"role": "user", "content": "x"}],
               GenerateParams.of(temperature=0.7, top_p=0.9, seed=3, max_tokens=64), n=2)
    assert [r.params["temperature"] for r in log] == [0.7, 0.7]
    assert log[0].params == {"max_tokens": 64, "temperature": 0.7, "top_p": 0.9, "seed": 3,
                             "stop": None, "thinking_budget": None, "tool_choice": None}
    assert log[0].to_json()["params"]["seed"] == 3
    # records stored before the parameters were kept still load, with none
    old = {k: v for k, v in log[0].to_json().items() if k != "params"}
    assert TypeAdapter(CallRecord).validate_python(old).params == {}
