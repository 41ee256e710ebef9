"""Images in call messages are stored once, as blobs, and read back as they were sent."""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path

from tether.core.trial import TrialRecord, TrialSpec
from tether.models import CallRecord, Usage, png_data_url, request_key
from tether.models.base import GenerateParams
from tether.runs.call_images import ARTIFACT_KEY, externalize_calls, inline_calls
from tether.runs.rebuild import read_log, restore_missing
from tether.runs.store import LOG_NAME, RunStore

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40  # 10 KB, not compressible to a hint


def _messages(png: bytes) -> list[dict]:
    return [{"role": "system", "content": "read the page"},
            {"role": "user", "content": [
                {"type": "text", "text": "What is the total?"},
                {"type": "image_url", "image_url": {"url": png_data_url(png),
                                                    "detail": "high"}}]}]


def _call(messages: list[dict]) -> CallRecord:
    return CallRecord(role="student", model_id="m", request_hash=request_key(
        "m", messages, GenerateParams()), sample_index=0, usage=Usage(output_tokens=3),
        latency_s=0.2, cache_hit=False, messages=messages, output="$12.00")


def _record(calls: list[CallRecord], index: int = 0) -> TrialRecord:
    spec = TrialSpec(suite="s", task_id=f"t{index}", strategy="single_shot",
                     models={"student": "m"})
    return TrialRecord(trial_id=spec.trial_id, index=index, spec=spec, status="ok",
                       calls=calls)


def test_a_committed_image_is_a_blob_and_reads_back_as_it_was_sent(tmp_path: Path) -> None:
    sent = _messages(PNG)
    call = _call(sent)
    with RunStore(tmp_path / "run", create=True) as store:
        # two trials showing the same page: one blob
        store.commit_trial(_record([call], 0))
        store.commit_trial(_record([call, _call([{"role": "user", "content": "hi"}])], 1))
        first, second = store.trials()
        assert first.calls[0].messages == sent and second.calls[0].messages == sent
        assert second.calls[1].messages == [{"role": "user", "content": "hi"}]
        # the hash recorded when the call was made still names what the record holds
        assert request_key("m", first.calls[0].messages, GenerateParams()) == (
            call.request_hash)
        # a reader of facts only gets the reference, not the bytes
        part = store.trials(images=False)[0].calls[0].messages[1]["content"][1]
        assert set(part["image_url"]) == {ARTIFACT_KEY, "media_type", "detail"}
        assert store.artifact_path(part["image_url"][ARTIFACT_KEY]).read_bytes() == PNG
    assert call.messages == sent  # the caller's record is left as it was
    log = (tmp_path / "run" / LOG_NAME).read_text()
    assert base64.b64encode(PNG).decode() not in log
    assert log.count(f"\"{ARTIFACT_KEY}\":\"") == 2
    assert len(list((tmp_path / "run" / "artifacts").glob("*/*.png"))) == 1


def test_a_store_rebuilt_from_the_log_puts_the_images_back(tmp_path: Path) -> None:
    with RunStore(tmp_path / "run", create=True) as store:
        store.commit_trial(_record([_call(_messages(PNG))]))
    (tmp_path / "run" / "run.sqlite").unlink()
    with RunStore(tmp_path / "run", create=True) as store:
        assert restore_missing(store, read_log(tmp_path / "run")) == 1
        (rec,) = store.trials()
    assert rec.calls[0].messages == _messages(PNG)


def test_an_old_run_with_inline_images_reads_back_unchanged(tmp_path: Path) -> None:
    record = _record([_call(_messages(PNG))])
    with RunStore(tmp_path / "run", create=True) as store:
        # what an earlier tether wrote: the data URL inside the row itself
        store.import_records([record])
        (rec,) = store.trials()
    assert rec.calls[0].messages == _messages(PNG)


def test_a_missing_blob_leaves_the_reference_and_no_error() -> None:
    (stored,) = externalize_calls([_call(_messages(PNG))], lambda data, media: "d" * 64)
    (read,) = inline_calls([stored], lambda digest: None)
    part = read.messages[1]["content"][1]["image_url"]
    assert part == {ARTIFACT_KEY: "d" * 64, "media_type": "image/png", "detail": "high"}


def test_only_a_data_url_that_reads_back_the_same_is_taken_out() -> None:
    odd = [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "https://example.org/page.png"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,not base64!"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk"}}]}]
    call = _call(odd)
    stored: list[bytes] = []
    (out,) = externalize_calls([call], lambda data, media: stored.append(data) or "x")
    assert out is call and stored == []  # unchanged records are the same objects
    assert dataclasses.asdict(out) == dataclasses.asdict(call)
