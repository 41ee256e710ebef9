"""N-CLIP and LPIPS plumbing with tiny RANDOMLY INITIALISED ONNX networks built here (their
numbers mean nothing; the preprocessing, sessions and reporting are real), and
`unavailable` with the reason when no network is configured."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("cv2")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from tether.errors import ConfigError  # noqa: E402
from tether.systems.scene.learned import LearnedMetrics  # noqa: E402
from tether.systems.scene.metrics import UNAVAILABLE, mean_scores, score  # noqa: E402


def _save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def random_clip(path, dim: int = 8):
    """(1, 3, 224, 224) -> 3x3 conv with random weights -> global pool -> (1, dim)."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.normal(size=(dim, 3, 3, 3)).astype(np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"]),
             helper.make_node("GlobalAveragePool", ["c"], ["p"]),
             helper.make_node("Flatten", ["p"], ["y"])]
    graph = helper.make_graph(
        nodes, "clip_random",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 224, 224])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, dim])], [w])
    return _save(graph, path)


def random_lpips(path):
    """Two (1, 3, H, W) images -> random conv features -> mean squared difference."""
    rng = np.random.default_rng(1)
    w = numpy_helper.from_array(rng.normal(size=(4, 3, 3, 3)).astype(np.float32), "w")
    nodes = [helper.make_node("Conv", ["a", "w"], ["fa"]),
             helper.make_node("Conv", ["b", "w"], ["fb"]),
             helper.make_node("Sub", ["fa", "fb"], ["d"]),
             helper.make_node("Mul", ["d", "d"], ["d2"]),
             helper.make_node("ReduceMean", ["d2"], ["y"], keepdims=0)]
    dyn = [1, 3, "h", "w"]
    graph = helper.make_graph(
        nodes, "lpips_random",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, dyn),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, dyn)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])], [w])
    return _save(graph, path)


def _images():
    rng = np.random.default_rng(2)
    goal = rng.uniform(size=(32, 48, 3))
    near = np.clip(goal + rng.normal(0, 0.05, goal.shape), 0, 1)
    return goal, near, rng.uniform(size=(32, 48, 3))


def test_unconfigured_metrics_are_unavailable_with_the_reason(monkeypatch) -> None:
    monkeypatch.delenv("TETHER_CLIP_ONNX", raising=False)
    monkeypatch.delenv("TETHER_LPIPS_ONNX", raising=False)
    goal, near, _ = _images()
    s = score(near, goal, LearnedMetrics.configured())
    assert s.n_clip == UNAVAILABLE and s.lpips == UNAVAILABLE
    assert "TETHER_CLIP_ONNX" in s.unavailable["n_clip"]
    assert "TETHER_LPIPS_ONNX" in s.unavailable["lpips"]
    with pytest.raises(ConfigError, match="no CLIP image encoder ONNX file"):
        LearnedMetrics.configured(clip="/nonexistent.onnx")


def test_random_networks_give_n_clip_and_lpips_through_env_and_options(tmp_path,
                                                                        monkeypatch) -> None:
    clip, lp = random_clip(tmp_path / "clip.onnx"), random_lpips(tmp_path / "lpips.onnx")
    monkeypatch.setenv("TETHER_CLIP_ONNX", str(clip))
    learned = LearnedMetrics.configured(lpips=lp)
    assert learned == LearnedMetrics(clip, lp)
    goal, near, far = _images()
    same = score(goal, goal, learned)
    assert abs(same.n_clip) < 1e-6 and abs(same.lpips) < 1e-9 and same.unavailable == {}
    a, b = score(near, goal, learned), score(far, goal, learned)
    assert 0 <= a.n_clip <= 2 and 0 <= b.n_clip <= 2
    assert 0 < a.lpips < b.lpips  # squared feature distance grows with the noise
    both = mean_scores([a, b])
    assert both.views == 2 and both.lpips == pytest.approx((a.lpips + b.lpips) / 2)
    assert both.to_json()["n_clip"] == pytest.approx((a.n_clip + b.n_clip) / 2)


def test_cli_score_shows_the_learned_metrics(tmp_path, monkeypatch) -> None:
    import json

    import cv2
    from click.testing import CliRunner

    from tether.cli.hub import main

    goal, near, _ = _images()
    for name, img in (("g.png", goal), ("n.png", near)):
        cv2.imwrite(str(tmp_path / name), (img[..., ::-1] * 255).round().astype(np.uint8))
    monkeypatch.delenv("TETHER_CLIP_ONNX", raising=False)
    monkeypatch.delenv("TETHER_LPIPS_ONNX", raising=False)
    r = CliRunner().invoke(main, ["scene", "score", str(tmp_path / "n.png"),
                                  str(tmp_path / "g.png")])
    assert r.exit_code == 0 and "N-CLIP  unavailable" in r.output, r.output
    clip, lp = random_clip(tmp_path / "c.onnx"), random_lpips(tmp_path / "l.onnx")
    r = CliRunner().invoke(main, ["scene", "score", str(tmp_path / "n.png"),
                                  str(tmp_path / "g.png"), "--clip-onnx", str(clip),
                                  "--lpips-onnx", str(lp), "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert isinstance(out["n_clip"], float) and isinstance(out["lpips"], float)
