"""A dead endpoint: after N trials in a row could not connect, its other trials never start.

The endpoint is a real local TCP port that refuses connections (bound, then closed),
reached through the real OpenAI-compatible backend; only its retry delays are set to
zero so the failing trials end at once. Counts, never times, are asserted.
"""

from __future__ import annotations

import functools
import json
import socket
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.core.trial import TrialRecord, TrialSpec
from tether.errors import ConfigError
from tether.instruments.base import InstrumentEnv
from tether.models import openai_backend
from tether.models.retry import RetryPolicy
from tether.runs.breaker import SKIPPED_KIND, EndpointBreaker, endpoint_of
from tether.runs.launch import RunRequest, execute, prepare
from tether.runs.runner import CachingModelFactory, LocalExecutor, make_trial_fn
from tether.runs.store import RunStore

from .conftest import SCRIPTED, write_config, write_suite

TASKS = [(f"t{i}", "alpha", "alpha") for i in range(6)]


@pytest.fixture
def dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture(autouse=True)
def _no_retry_delays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openai_backend, "RetryPolicy",
                        functools.partial(RetryPolicy, base_delay_s=0.0))


def _experiment(tmp_path: Path, dead_url: str, *, concurrency: int = 1, extra_run: str = "",
                scripted_too: bool = False) -> Path:
    write_suite(tmp_path / "suite.json", tasks=TASKS)
    dead = f"openai-compatible/m@{dead_url};timeout_s=5"
    cfg = write_config(tmp_path, models=dead, seeds="[0]", concurrency=concurrency)
    text = cfg.read_text().replace(f"[models]\nproposer = '{dead}'",
                                   f"[[models]]\nlabel = 'dead'\nproposer = '{dead}'")
    if scripted_too:
        text = text.replace("[[strategies]]", f"[[models]]\nlabel = 'live'\n"
                                              f"proposer = '{SCRIPTED}'\n\n[[strategies]]", 1)
    cfg.write_text(text + extra_run)
    return cfg


def _kinds(records: list[TrialRecord]) -> list[str | None]:
    return [r.error_kind for r in sorted(records, key=lambda r: r.index)]


def test_after_three_refused_trials_the_rest_are_not_started(tmp_path: Path,
                                                             dead_url: str) -> None:
    cfg = _experiment(tmp_path, dead_url)
    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["run", str(cfg), "--out", str(out), "--json"])
    assert res.exit_code == 1, res.output
    body = json.loads(res.stdout)
    assert body["endpoints_down"] == [dead_url]
    down = [line for line in res.output.splitlines() if line.startswith("endpoint down")]
    assert len(down) == 1 and dead_url in down[0] and "--retry-errors" in down[0]
    with RunStore.open(out, readonly=True) as store:
        records = store.trials()
    assert _kinds(records) == ["EndpointUnreachable"] * 3 + [SKIPPED_KIND] * 3
    started = [r for r in records if r.error_kind != SKIPPED_KIND]
    assert all(dead_url in (r.error_message or "") for r in started)

    # plain --resume keeps them (they ended in error); --retry-errors starts them again
    again = CliRunner().invoke(main, ["run", "--resume", str(out), "--json"])
    assert json.loads(again.stdout)["ran_now"] == 0
    retried = CliRunner().invoke(main, ["run", "--resume", str(out), "--retry-errors", "--json"])
    assert json.loads(retried.stdout)["ran_now"] == 6
    with RunStore.open(out, readonly=True) as store:
        assert _kinds(store.trials()) == ["EndpointUnreachable"] * 3 + [SKIPPED_KIND] * 3


def test_the_python_api_names_the_endpoint_down_and_retries_its_errors(
        tmp_path: Path, dead_url: str) -> None:
    import tether

    cfg = _experiment(tmp_path, dead_url)
    out = tmp_path / "run"
    outcome = tether.run(cfg, out=out)
    assert outcome.endpoints_down == [dead_url] and outcome.errored == 6
    assert outcome.to_dict()["endpoints_down"] == [dead_url]
    assert f"not reached: {dead_url}" in str(outcome) and "retry_errors=True" in str(outcome)
    with pytest.raises(ConfigError, match="retry_errors=True needs resume=True"):
        tether.run(cfg, out=tmp_path / "other", retry_errors=True)
    assert tether.run(cfg, out=out, resume=True).errored == 6  # kept: they ended in error
    retried = tether.run(cfg, out=out, resume=True, retry_errors=True)
    assert retried.endpoints_down == [dead_url]  # still down: tried again, refused again
    with RunStore.open(out, readonly=True) as store:
        assert len(store.trials()) == 6  # each trial once, its latest attempt


def test_trials_on_other_models_still_run(tmp_path: Path, dead_url: str) -> None:
    cfg = _experiment(tmp_path, dead_url, scripted_too=True)
    run = prepare(RunRequest(config=str(cfg), out=str(tmp_path / "run")))
    result = execute(run)
    run.store.close()
    live = [r for r in result.records if r.spec.models["proposer"] == SCRIPTED]
    dead = [r for r in result.records if r.spec.models["proposer"] != SCRIPTED]
    assert len(live) == 6 and all(r.status == "ok" for r in live)
    assert sorted(_kinds(dead), key=str) == ["EndpointUnreachable"] * 3 + [SKIPPED_KIND] * 3


def test_with_trials_in_flight_no_trial_starts_after_the_breaker_opens(
        tmp_path: Path, dead_url: str) -> None:
    # 12 trials, 3 in flight: those already started when it opens still end; no more start
    cfg = _experiment(tmp_path, dead_url, concurrency=3)
    cfg.write_text(cfg.read_text().replace("seeds = [0]", "seeds = [0, 1]"))
    run = prepare(RunRequest(config=str(cfg), out=str(tmp_path / "run")))
    started: list[str] = []
    lock = threading.Lock()
    inner = make_trial_fn(CachingModelFactory(), InstrumentEnv(sandbox="subprocess"))

    def counting(p):
        with lock:
            started.append(p.spec.trial_id)
        return inner(p)

    opened: list[str] = []
    result = execute(run, executor=LocalExecutor(3, counting),
                     on_endpoint_down=lambda e, n: opened.append(e))
    run.store.close()
    assert opened == [dead_url]
    kinds = _kinds(result.records)
    assert len(kinds) == 12
    assert 3 <= len(started) <= 3 + 2  # the threshold, plus at most the others in flight
    assert kinds.count("EndpointUnreachable") == len(started)
    assert kinds.count(SKIPPED_KIND) == 12 - len(started)


def test_zero_never_stops_starting_trials(tmp_path: Path, dead_url: str) -> None:
    cfg = _experiment(tmp_path, dead_url, extra_run="endpoint_failures = 0\n")
    run = prepare(RunRequest(config=str(cfg), out=str(tmp_path / "run")))
    result = execute(run)
    run.store.close()
    assert _kinds(result.records) == ["EndpointUnreachable"] * 6
    assert result.endpoints_down == []


def _record(spec: str, kind: str | None, message: str = "") -> TrialRecord:
    s = TrialSpec(suite="s", task_id="t", strategy="single_shot", models={"proposer": spec})
    return TrialRecord(trial_id=s.trial_id, index=0, spec=s,
                       status="error" if kind else "ok", error_kind=kind, error_message=message)


def test_only_consecutive_connection_failures_count() -> None:
    url = "http://127.0.0.1:9/v1"
    spec = f"openai-compatible/m@{url}"
    breaker = EndpointBreaker(3)
    for kind in ("EndpointUnreachable", "EndpointUnreachable", None,  # a success resets
                 "EndpointUnreachable", "RateLimited", "ServerError",  # the server is there
                 "EndpointUnreachable", "EndpointUnreachable"):
        breaker.ended(_record(spec, kind, f"{spec}: cannot reach {url}"))
    assert breaker.open_endpoints == []
    breaker.ended(_record(spec, "EndpointUnreachable", f"{spec}: cannot reach {url}"))
    assert breaker.open_endpoints == [url]


def test_a_refused_certificate_counts_as_a_connection_failure() -> None:
    url = "https://127.0.0.1:8443/v1"
    spec = f"openai-compatible/m@{url}"
    breaker = EndpointBreaker(2)
    message = f"{spec}: the TLS certificate of {url} was refused: self-signed certificate"
    for _ in range(2):
        breaker.ended(_record(spec, "CertificateRefused", message))
    assert breaker.open_endpoints == [url]


def test_endpoint_of_specs() -> None:
    assert endpoint_of("openai-compatible/m@http://h:1/v1;timeout_s=5") == "http://h:1/v1"
    assert endpoint_of("openai/gpt-4o-mini") == "https://api.openai.com"
    assert endpoint_of("anthropic/claude;base_url=https://proxy/x") == "https://proxy/x"
    assert endpoint_of(SCRIPTED) is None and endpoint_of("local/smollm2-135m") is None
