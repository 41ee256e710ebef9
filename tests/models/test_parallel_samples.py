"""`n > 1` on a remote backend: samples go out concurrently, bounded by `concurrency`.

Against the scripted OpenAI-compatible server of conftest.py (real HTTP, real SDK).
Concurrency is observed with a barrier in the server, never with timing: a request
is held until `concurrency` of them are held together, so a serial client can never
trip it and a client over its limit shows in `max_in_flight`.
"""

from __future__ import annotations

import json
import sqlite3
import threading

import pytest

import tether.models.retry as retry
from tether.models import (
    AuthenticationError,
    CachedModel,
    ContextLengthExceeded,
    RecordingModel,
    ResponseStore,
    request_key,
)
from tether.models.base import GenerateParams, make_params
from tether.models.fanout import map_samples, sample_concurrency
from tether.models.openai_backend import OpenAICompatibleModel
from tether.models.retry import RetryPolicy

MSG = [{"role": "user", "content": "pick an action"}]
FAST = RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.02)
SEED = 100


@pytest.fixture(autouse=True)
def own_endpoint_limits(monkeypatch):
    """Each test gets its own per-endpoint semaphores: a port reused by a later test's
    server must not inherit an earlier test's limit."""
    monkeypatch.setattr(retry, "_limits", {})


def make(server, concurrency):
    return OpenAICompatibleModel("fake", base_url=server.base_url, key_env=None,
                                 timeout_s=30.0, retry=FAST, concurrency=concurrency)


def hold(server, parties):
    server.barrier = threading.Barrier(parties, timeout=20)


def sample_threads():
    return [t for t in threading.enumerate() if t.name.startswith("tether-sample")]


def answer_by_seed(server, seeds):
    """Replies that depend on the seed only, so arrival order cannot change a text."""
    server.by_seed = {s: {"text": f"answer of seed {s}"} for s in seeds}


@pytest.mark.parametrize(("n", "concurrency"), [(8, 8), (6, 3), (2, 8)])
def test_samples_in_flight_reach_and_never_exceed_concurrency(fault_server, n, concurrency):
    hold(fault_server, min(n, concurrency))
    out = make(fault_server, concurrency).generate(MSG,
                                                   GenerateParams.of(seed=SEED, temperature=0.7),
                                                                     n=n)
    assert fault_server.max_in_flight == min(n, concurrency)
    assert len(fault_server.requests) == n
    assert sorted(r["seed"] for r in fault_server.requests) == [SEED + i for i in range(n)]
    assert [c.sample_index for c in out] == list(range(n))
    assert sample_threads() == []


def test_in_process_style_models_stay_serial(fault_server):
    # concurrency=1 is what llama.cpp and scripted models have: one sample at a time.
    out = make(fault_server, 1).generate(MSG, GenerateParams.of(seed=SEED), n=4)
    assert fault_server.max_in_flight == 1
    assert [r["seed"] for r in fault_server.requests] == [SEED + i for i in range(4)]
    assert len(out) == 4


def run_recorded(server, concurrency, store):
    log = []
    model = RecordingModel(CachedModel(make(server, concurrency), store), log, role="proposer")
    out = model.generate(MSG, GenerateParams.of(seed=SEED, temperature=0.7, max_tokens=32), n=8)
    return out, log


def stored(store):
    db = sqlite3.connect(store.path)
    rows = db.execute("SELECT key, request, completion FROM responses").fetchall()
    db.close()
    return {key: (request, json.loads(done)["text"]) for key, request, done in rows}


def test_concurrent_results_equal_a_serial_run(fault_server, tmp_path):
    answer_by_seed(fault_server, range(SEED, SEED + 8))
    serial_store = ResponseStore(tmp_path / "serial.sqlite")
    serial, serial_log = run_recorded(fault_server, 1, serial_store)
    assert fault_server.max_in_flight == 1

    # The endpoint's semaphore is sized by its first client (the serial one): start over.
    retry._limits.clear()
    hold(fault_server, 8)
    fresh_store = ResponseStore(tmp_path / "concurrent.sqlite")
    concurrent, concurrent_log = run_recorded(fault_server, 8, fresh_store)
    assert fault_server.max_in_flight == 8

    # Same text per sample index (sample i answered seed + i), output in index order.
    assert [c.text for c in concurrent] == [f"answer of seed {SEED + i}" for i in range(8)]
    assert [c.text for c in concurrent] == [c.text for c in serial]
    assert [c.sample_index for c in concurrent] == list(range(8))
    # One recorded call per sample, with the same request hashes, in the same order.
    assert [(r.sample_index, r.request_hash, r.output) for r in concurrent_log] == \
        [(r.sample_index, r.request_hash, r.output) for r in serial_log]
    # The same cache keys, each holding the same sample.
    assert stored(fresh_store) == stored(serial_store)
    params = make_params(32, 0.7, 1.0, SEED, None, None)
    assert set(stored(fresh_store)) == {
        request_key("fake@" + fault_server.base_url, MSG, params, sample_index=i)
        for i in range(8)}


def test_cache_hits_make_no_requests_and_misses_go_out_together(fault_server, tmp_path):
    store = ResponseStore(tmp_path / "cache.sqlite")
    model = CachedModel(make(fault_server, 8), store)
    answer_by_seed(fault_server, range(SEED, SEED + 8))

    hold(fault_server, 4)
    first = model.generate(MSG, GenerateParams.of(seed=SEED, temperature=0.7), n=4)
    assert len(fault_server.requests) == 4

    # n=8 after n=4: the four cached samples are served, the other four go out at once.
    fault_server.max_in_flight = 0
    hold(fault_server, 4)
    second = model.generate(MSG, GenerateParams.of(seed=SEED, temperature=0.7), n=8)
    assert len(fault_server.requests) == 8
    assert sorted(r["seed"] for r in fault_server.requests[4:]) == [SEED + i for i in range(4, 8)]
    assert fault_server.max_in_flight == 4
    assert [c.cache_hit for c in second] == [True] * 4 + [False] * 4
    assert [c.text for c in second[:4]] == [c.text for c in first]
    assert [c.text for c in second] == [f"answer of seed {SEED + i}" for i in range(8)]

    # All eight cached: a third call makes no request at all.
    third = model.generate(MSG, GenerateParams.of(seed=SEED, temperature=0.7), n=8)
    assert len(fault_server.requests) == 8
    assert all(c.cache_hit for c in third)
    assert [c.text for c in third] == [c.text for c in second]
    assert [c.sample_index for c in third] == list(range(8))


def test_a_failing_sample_raises_its_typed_error_and_leaves_no_thread(fault_server, tmp_path):
    store = ResponseStore(tmp_path / "cache.sqlite")
    model = CachedModel(make(fault_server, 4), store)
    answer_by_seed(fault_server, range(SEED, SEED + 4))
    # Sample 3 fails first; sample 1 fails too, but only once sample 3's error is out.
    # The error raised is sample 1's, the one a serial loop would have met first.
    sample_3_failed = threading.Event()
    fault_server.by_seed[SEED + 1] = {"status": 401, "gate": sample_3_failed}
    fault_server.by_seed[SEED + 3] = {
        "status": 400, "json": {"error": {"message": "maximum context length exceeded"}},
        "opens": sample_3_failed}
    with pytest.raises(AuthenticationError):
        model.generate(MSG, GenerateParams.of(seed=SEED, temperature=0.7), n=4)
    assert sample_threads() == []
    # Every sample was asked once (neither error is retried), and the two that
    # succeeded were cached: asking again only sends the two failed samples.
    assert sorted(r["seed"] for r in fault_server.requests) == [SEED + i for i in range(4)]
    assert len(store) == 2
    del fault_server.by_seed[SEED + 1]
    with pytest.raises(ContextLengthExceeded):
        model.generate(MSG, GenerateParams.of(seed=SEED, temperature=0.7), n=4)
    assert sorted(r["seed"] for r in fault_server.requests[4:]) == [SEED + 1, SEED + 3]
    assert sample_threads() == []


def test_map_samples_raises_the_lowest_failing_index_whatever_finishes_first():
    late = threading.Event()
    ran = []

    def fn(i):
        ran.append(i)
        if i == 0:
            late.wait(30)  # fails only after sample 2 has failed
            raise ValueError("sample 0")
        if i == 2:
            late.set()
            raise KeyError("sample 2")
        return i

    with pytest.raises(ValueError, match="sample 0"):
        map_samples(fn, range(3), 3)
    assert sorted(ran) == [0, 1, 2]
    assert sample_threads() == []


def test_map_samples_keeps_index_order_and_serial_means_no_thread():
    seen = []

    def fn(i):
        seen.append(threading.current_thread().name)
        return i * 10

    assert map_samples(fn, [3, 1, 2], 1) == [30, 10, 20]
    assert seen == [threading.main_thread().name] * 3
    assert map_samples(fn, [3, 1, 2], 8) == [30, 10, 20]


def test_wrappers_pass_the_inner_concurrency_on(fault_server, tmp_path):
    inner = make(fault_server, 5)
    store = ResponseStore(tmp_path / "c.sqlite")
    assert sample_concurrency(RecordingModel(CachedModel(inner, store), [])) == 5
    assert sample_concurrency(object()) == 1
