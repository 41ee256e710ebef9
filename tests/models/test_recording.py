from tether.models import RecordingModel, ScriptedModel, Usage, total_usage


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
