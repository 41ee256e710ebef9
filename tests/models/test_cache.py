"""Response cache and cassettes: keys per sample and scope, modes, replay, the SQLite file."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tether.models import (
    CachedModel,
    ReplayMiss,
    ReplayModel,
    ResponseStore,
    parse_model,
    with_cache,
)
from tether.models.base import GenerateParams
from tether.models.openai_backend import OpenAICompatibleModel
from tether.models.retry import RetryPolicy
from tether.testing import ScriptedModel

MSG = [{"role": "user", "content": "pick a number"}]


def by_seed(messages, info):
    """Answer depends on seed and sample index, like a real sampler."""
    return f"seed={info.params.seed} sample={info.sample_index} call={info.call_number}"


@pytest.fixture
def inner():
    return ScriptedModel(by_seed, model_id="scripted-by-seed")


@pytest.fixture
def store(tmp_path):
    s = ResponseStore(tmp_path / "cache.sqlite")
    yield s
    s.close()


def test_n_samples_are_n_entries_and_n_outputs(inner, store):
    out = CachedModel(inner, store).generate(MSG, GenerateParams.of(seed=5, temperature=0.7), n=3)
    assert len(store) == 3
    assert [c.sample_index for c in out] == [0, 1, 2]
    assert len({c.text for c in out}) == 3
    # Sample i of a cached call is asked of the inner model as seed+i, n=1.
    assert [c.text.split()[0] for c in out] == ["seed=5", "seed=6", "seed=7"]
    assert not any(c.cache_hit for c in out)
    assert inner.calls == 3


def test_read_mode_serves_hits_with_zero_inner_calls(inner, store):
    first = CachedModel(inner, store, "readwrite").generate(MSG, GenerateParams.of(seed=5), n=3)
    assert inner.calls == 3
    fresh = ScriptedModel(by_seed, model_id="scripted-by-seed")
    again = CachedModel(fresh, store, "read").generate(MSG, GenerateParams.of(seed=5), n=3)
    assert fresh.calls == 0
    assert [c.text for c in again] == [c.text for c in first]
    assert [c.sample_index for c in again] == [0, 1, 2]
    assert all(c.cache_hit for c in again)
    # A usage count survives the round trip (it is the provider's, not re-estimated).
    assert [c.usage for c in again] == [c.usage for c in first]


def test_read_mode_never_writes(inner, store):
    CachedModel(inner, store, "read").generate(MSG, GenerateParams.of(seed=1), n=2)
    assert inner.calls == 2
    assert len(store) == 0


def test_a_larger_n_reuses_the_cached_prefix(inner, store):
    CachedModel(inner, store).generate(MSG, GenerateParams.of(seed=1), n=2)
    out = CachedModel(inner, store).generate(MSG, GenerateParams.of(seed=1), n=4)
    assert inner.calls == 4  # 2 first, then only samples 2 and 3
    assert [c.cache_hit for c in out] == [True, True, False, False]
    assert len(store) == 4


def test_write_mode_always_calls_and_overwrites(inner, store):
    model = CachedModel(inner, store, "write")
    a = model.generate(MSG, GenerateParams.of(seed=1))[0]
    b = model.generate(MSG, GenerateParams.of(seed=1))[0]
    assert inner.calls == 2
    assert a.text != b.text  # call numbers differ: the second really was a call
    assert len(store) == 1
    assert CachedModel(inner, store, "read").generate(MSG,
                                                      GenerateParams.of(seed=1))[0].text == b.text


def test_off_mode_passes_through(inner, store):
    model = CachedModel(inner, store, "off")
    out = model.generate(MSG, GenerateParams.of(seed=1), n=2)
    model.generate(MSG, GenerateParams.of(seed=1), n=2)
    assert inner.calls == 4
    assert len(store) == 0
    assert not any(c.cache_hit for c in out)


def test_with_cache_off_is_the_model_itself(inner, tmp_path):
    assert with_cache(inner, cache=tmp_path / "c.sqlite", mode="off") is inner
    assert with_cache(inner) is inner


def test_bad_mode_is_rejected(inner, store):
    with pytest.raises(ValueError, match="cache mode"):
        CachedModel(inner, store, "sometimes")  # type: ignore[arg-type]


def test_scope_separates_keys(inner, store):
    a = CachedModel(inner, store, scope="experiment-a").generate(MSG, GenerateParams.of(seed=1))[0]
    b = CachedModel(inner, store, scope="experiment-b").generate(MSG, GenerateParams.of(seed=1))[0]
    assert inner.calls == 2
    assert len(store) == 2
    assert a.text != b.text
    again = CachedModel(inner, store, scope="experiment-a").generate(MSG,
                                                                     GenerateParams.of(seed=1))[0]
    assert again.cache_hit and again.text == a.text
    assert inner.calls == 2


@pytest.mark.parametrize(
    "change",
    [{"seed": 2}, {"temperature": 0.5}, {"max_tokens": 10}, {"stop": ["\n"]}, {"top_p": 0.9}],
)
def test_any_param_change_is_a_miss(inner, store, change):
    model = CachedModel(inner, store)
    model.generate(MSG, GenerateParams.of(seed=1))
    model.generate(MSG, GenerateParams.of(**{'seed': 1, **change}))
    assert inner.calls == 2


def test_role_is_not_part_of_the_key(inner, store):
    model = CachedModel(inner, store)
    model.generate(MSG, GenerateParams.of(seed=1), role="proposer")
    assert model.generate(MSG, GenerateParams.of(seed=1), role="reviewer")[0].cache_hit


def test_different_models_do_not_share_entries(store):
    a = ScriptedModel(lambda m, i: "from a", model_id="a")
    b = ScriptedModel(lambda m, i: "from b", model_id="b")
    CachedModel(a, store).generate(MSG)
    assert CachedModel(b, store).generate(MSG)[0].text == "from b"
    assert len(store) == 2


# -- cassettes -----------------------------------------------------------------------


def test_record_then_replay(inner, tmp_path):
    cassette = tmp_path / "session.cassette"
    recorded = with_cache(inner, record=cassette).generate(MSG,
                                                           GenerateParams.of(seed=9,
                                                                             max_tokens=50), n=2)
    replay = ReplayModel(cassette)
    out = replay.generate(MSG, GenerateParams.of(seed=9, max_tokens=50), n=2)
    assert [c.text for c in out] == [c.text for c in recorded]
    assert all(c.cache_hit for c in out)
    assert inner.calls == 2


def test_replay_miss_has_a_clear_message(inner, tmp_path):
    cassette = tmp_path / "session.cassette"
    with_cache(inner, record=cassette).generate(MSG, GenerateParams.of(seed=9))
    replay = ReplayModel(cassette)
    with pytest.raises(ReplayMiss, match="no recording of this request") as info:
        replay.generate([{"role": "user", "content": "something never asked"}],
                        GenerateParams.of(seed=9))
    assert "something never asked" in str(info.value)
    assert info.value.hint and "--record" in info.value.hint
    # Same prompt, a sample that was never recorded.
    with pytest.raises(ReplayMiss, match="sample 1"):
        replay.generate(MSG, GenerateParams.of(seed=9), n=2)


def test_replay_of_a_missing_file(tmp_path):
    with pytest.raises(ReplayMiss, match="cassette not found"):
        ReplayModel(tmp_path / "nope.cassette")
    with pytest.raises(ReplayMiss):
        parse_model(f"replay:{tmp_path / 'nope.cassette'}")


def test_parse_model_replay_spec(inner, tmp_path):
    cassette = tmp_path / "c.sqlite"
    (rec,) = with_cache(inner, record=cassette).generate(MSG, GenerateParams.of(seed=4))
    model = parse_model(f"replay:{cassette}")
    assert model.model_id == f"replay:{cassette}"
    (c,) = model.generate(MSG, GenerateParams.of(seed=4))
    assert c.text == rec.text and c.cache_hit


def test_record_on_top_of_a_cache_records_hits_too(inner, tmp_path):
    cache, cassette = tmp_path / "cache.sqlite", tmp_path / "tape.sqlite"
    with_cache(inner, cache=cache).generate(MSG, GenerateParams.of(seed=1))
    with_cache(inner, cache=cache, record=cassette).generate(MSG, GenerateParams.of(seed=1))
    assert inner.calls == 1  # the second run was a cache hit ...
    # ... and is on the tape
    assert ReplayModel(cassette).generate(MSG, GenerateParams.of(seed=1))[0].text


# -- the SQLite file ------------------------------------------------------------------


def test_rows_are_json_and_wal_is_on(inner, tmp_path):
    path = tmp_path / "cache.sqlite"
    store = ResponseStore(path)
    CachedModel(inner, store, scope="s").generate(MSG, GenerateParams.of(seed=3), n=2)
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
        rows = db.execute("SELECT key, model_id, request, completion FROM responses").fetchall()
    finally:
        db.close()
    assert len(rows) == 2
    for key, model_id, request, completion in rows:
        assert len(key) == 64 and model_id == "scripted-by-seed"
        req = json.loads(request)
        assert req["messages"] == MSG and req["scope"] == "s"
        assert req["params"]["seed"] == 3
        row = json.loads(completion)
        assert row["text"].startswith("seed=")
        assert set(row["usage"]) == {"input_tokens", "output_tokens", "reasoning_tokens"}
    assert sorted(json.loads(r[2])["sample_index"] for r in rows) == [0, 1]
    store.close()


def test_store_survives_reopen(inner, tmp_path):
    path = tmp_path / "cache.sqlite"
    s1 = ResponseStore(path)
    CachedModel(inner, s1).generate(MSG, GenerateParams.of(seed=1))
    s1.close()
    s2 = ResponseStore(path)
    assert len(s2) == 1
    assert CachedModel(inner, s2, "read").generate(MSG, GenerateParams.of(seed=1))[0].cache_hit
    s2.close()


# -- over real HTTP: count the requests the server saw -----------------------------


def test_cached_http_model_makes_no_requests_on_a_hit(fault_server, tmp_path):
    def http_model():
        return OpenAICompatibleModel("fake", base_url=fault_server.base_url, key_env=None,
                                     timeout_s=5, retry=RetryPolicy(max_attempts=1))

    cache = tmp_path / "http.sqlite"
    first = with_cache(http_model(), cache=cache).generate(MSG, GenerateParams.of(seed=20), n=3)
    assert len(fault_server.requests) == 3
    # Sent concurrently, so in any order.
    assert sorted(r["seed"] for r in fault_server.requests) == [20, 21, 22]
    again = with_cache(http_model(), cache=cache, mode="read").generate(MSG,
                                                                        GenerateParams.of(seed=20),
                                                                                          n=3)
    assert len(fault_server.requests) == 3  # zero new HTTP calls
    assert [c.text for c in again] == [c.text for c in first]
    assert [c.usage.input_tokens for c in again] == [11, 11, 11]
    with_cache(http_model(), cache=cache, mode="write").generate(MSG,
                                                                 GenerateParams.of(seed=20), n=3)
    assert len(fault_server.requests) == 6
