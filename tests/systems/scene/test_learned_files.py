"""CLIP and LPIPS ONNX files that are not what they claim (another rank, a non-square
CLIP input, a wrong number of inputs, a run onnxruntime cannot allocate, an LPIPS value
below 0) are one error line naming the file: never a traceback, never a number. The
networks are tiny RANDOMLY INITIALISED graphs built here (test doubles)."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("cv2")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from tests.systems.scene.test_learned import _images, _save, random_clip  # noqa: E402
from tether.errors import ConfigError  # noqa: E402
from tether.systems.scene.learned import LearnedMetrics  # noqa: E402
from tether.systems.scene.metrics import score  # noqa: E402


def flat_clip(path):
    """A 'CLIP encoder' over a flat vector: rank 2, not images."""
    w = numpy_helper.from_array(np.ones((150528, 4), np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "flat",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 150528])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], [w])
    return _save(graph, path)


def shaped_clip(path, inputs):
    """A pooled 'encoder' with the given input shapes (summed when there are two)."""
    names = [f"x{i}" for i in range(len(inputs))]
    nodes = [helper.make_node("GlobalAveragePool", [names[0]], ["p"])]
    if len(names) == 2:
        nodes = [helper.make_node("Add", names, ["s"]),
                 helper.make_node("GlobalAveragePool", ["s"], ["p"])]
    nodes.append(helper.make_node("Flatten", ["p"], ["y"]))
    graph = helper.make_graph(
        nodes, "shaped", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
                          for n, s in zip(names, inputs, strict=True)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])])
    return _save(graph, path)


def constant_lpips(path, value: float):
    """An 'LPIPS network' that returns `value` whatever the images."""
    c = numpy_helper.from_array(np.array(value, np.float32), "c")
    nodes = [helper.make_node("ReduceMean", ["a"], ["m"], keepdims=0),
             helper.make_node("Mul", ["m", "zero"], ["z"]),
             helper.make_node("Add", ["z", "c"], ["y"])]
    zero = numpy_helper.from_array(np.array(0.0, np.float32), "zero")
    dyn = [1, 3, "h", "w"]
    graph = helper.make_graph(
        nodes, "const", [helper.make_tensor_value_info("a", TensorProto.FLOAT, dyn),
                         helper.make_tensor_value_info("b", TensorProto.FLOAT, dyn)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])], [c, zero])
    return _save(graph, path)


def huge_lpips(path):
    """An 'LPIPS network' that asks for a tensor no machine can allocate."""
    shape = numpy_helper.from_array(np.array([10**8, 10**8], np.int64), "shape")
    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["big"]),
             helper.make_node("ReduceMean", ["big"], ["y"], keepdims=0)]
    dyn = [1, 3, "h", "w"]
    graph = helper.make_graph(
        nodes, "huge", [helper.make_tensor_value_info("a", TensorProto.FLOAT, dyn),
                        helper.make_tensor_value_info("b", TensorProto.FLOAT, dyn)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])], [shape])
    return _save(graph, path)


@pytest.mark.parametrize("make, says", [
    (flat_clip, "takes images of shape (N, 3, H, W)"),
    (lambda p: shaped_clip(p, [[1, 3, 224, 160]]), "takes square images"),
    (lambda p: shaped_clip(p, [[1, 3, 224, 224]] * 2), "takes 1 image input(s), this one "
                                                       "takes 2"),
], ids=["wrong-rank", "non-square", "two-inputs"])
def test_a_clip_file_of_the_wrong_shape_is_one_line(tmp_path, make, says):
    goal, near, _ = _images()
    with pytest.raises(ConfigError) as info:
        score(near, goal, LearnedMetrics(clip=make(tmp_path / "clip.onnx")))
    assert says in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("make, says", [
    (lambda p: constant_lpips(p, -5.0), "returned -5, outside a distance's range"),
    (huge_lpips, "onnxruntime could not run it"),
    (lambda p: random_clip(p), "takes 2 image input(s), this one takes 1"),
], ids=["negative", "failed-allocation", "one-input"])
def test_an_lpips_file_that_misbehaves_is_one_line(tmp_path, make, says):
    goal, near, _ = _images()
    with pytest.raises(ConfigError) as info:
        score(near, goal, LearnedMetrics(lpips=make(tmp_path / "lpips.onnx")))
    assert says in str(info.value) and "\n" not in str(info.value)


def test_a_misbehaving_file_is_one_line_from_the_cli(tmp_path):
    import cv2
    from click.testing import CliRunner

    from tether.cli.hub import main

    goal, near, _ = _images()
    for name, img in (("g.png", goal), ("n.png", near)):
        cv2.imwrite(str(tmp_path / name), (img[..., ::-1] * 255).round().astype(np.uint8))
    res = CliRunner().invoke(main, ["scene", "score", str(tmp_path / "n.png"),
                                    str(tmp_path / "g.png"), "--lpips-onnx",
                                    str(constant_lpips(tmp_path / "l.onnx", -5.0))])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert [ln for ln in res.output.splitlines() if ln.startswith("error:")]
