"""Response cache and cassettes: SQLite (WAL) holding JSON rows, nothing pickled.

The key is the canonical request plus the sample index plus a scope (invariant 7),
so n samples stay n different samples and two experiments that want independent
samples of one prompt can ask for it with different scopes.

Modes: `off` (pass through), `read` (serve hits, never write), `write` (always call,
store the answer: this is `--record CASSETTE`), `readwrite` (serve hits, store
misses). A cassette is a cache file; `replay:CASSETTE` serves it and refuses misses.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Literal

from tether.models.base import (
    DEFAULT_PARAMS,
    Completion,
    GenerateParams,
    Message,
    Model,
    request_key,
    sample_seed,
    wrapped_traits,
)
from tether.models.errors import ReplayMiss
from tether.models.fanout import map_samples

CacheMode = Literal["off", "read", "write", "readwrite"]
CACHE_MODES: tuple[str, ...] = ("off", "read", "write", "readwrite")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model_id TEXT NOT NULL,
    request TEXT NOT NULL,
    completion TEXT NOT NULL,
    created REAL NOT NULL
)
"""


class ResponseStore:
    """The SQLite file behind a cache or a cassette. Safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        self._lock = threading.Lock()

    def get(self, key: str) -> Completion | None:
        with self._lock:
            row = self._db.execute(
                "SELECT completion FROM responses WHERE key = ?", (key,)
            ).fetchone()
        return Completion.from_json(json.loads(row[0])) if row else None

    def put(self, key: str, model_id: str, request: dict, completion: Completion) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?)",
                (key, model_id, json.dumps(request, sort_keys=True),
                 json.dumps(completion.to_json()), time.time()),
            )

    def has_tool_requests(self) -> bool:
        """Whether any stored request offered native tools."""
        with self._lock:
            return self._db.execute(
                "SELECT 1 FROM responses WHERE json_extract(request, '$.params.tools') "
                "IS NOT NULL LIMIT 1").fetchone() is not None

    def model_ids(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT DISTINCT model_id FROM responses")]

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachedModel:
    """Wraps a model with a response store; sample i of a request is cached on its own.

    Hits are served without a request; the misses of one call are asked of the inner
    model concurrently, up to its `concurrency`, and each is stored when it arrives.
    """

    def __init__(
        self, inner: Model, store: ResponseStore, mode: CacheMode = "readwrite", scope: str = ""
    ) -> None:
        if mode not in CACHE_MODES:
            raise ValueError(f"cache mode must be one of {CACHE_MODES}, got {mode!r}")
        self.inner = inner
        self.store = store
        self.mode = mode
        self.scope = scope
        self.model_id, self.supports_tools, self.accepts_images, self.concurrency = (
            wrapped_traits(inner))

    def generate(self, messages: list[Message], params: GenerateParams = DEFAULT_PARAMS, *,
                 n: int = 1, role: str | None = None) -> list[Completion]:
        if self.mode == "off":
            return self.inner.generate(messages, params, n=n, role=role)
        keys = [request_key(self.model_id, messages, params, sample_index=i, scope=self.scope)
                for i in range(n)]
        hits: dict[int, Completion] = {}
        if self.mode in ("read", "readwrite"):
            for i, key in enumerate(keys):
                hit = self.store.get(key)
                if hit is not None:
                    hits[i] = replace(hit, sample_index=i, cache_hit=True)

        def fetch(i: int) -> Completion:
            # Sample i of an uncached call uses seed+i; ask for exactly that sample.
            sample = replace(params, seed=sample_seed(params.seed, i))
            (fresh,) = self.inner.generate(messages, sample, n=1, role=role)
            fresh = replace(fresh, sample_index=i)
            if self.mode in ("write", "readwrite"):
                # Stored as soon as it arrives: a sibling sample failing later keeps it.
                request = {"messages": messages, "params": params.to_json(), "sample_index": i,
                           "scope": self.scope}
                self.store.put(keys[i], self.model_id, request, fresh)
            return fresh

        # Only the misses go out, concurrently as far as the inner model allows.
        misses = [i for i in range(n) if i not in hits]
        fetched = dict(zip(misses, map_samples(fetch, misses, self.concurrency), strict=True))
        return [hits[i] if i in hits else fetched[i] for i in range(n)]


class ReplayModel:
    """Serves a cassette recorded with `--record`; an unseen request is an error."""

    def __init__(self, cassette: str | Path, *, scope: str = "") -> None:
        path = Path(cassette)
        if not path.is_file():
            raise ReplayMiss(f"cassette not found: {path}")
        self.store = ResponseStore(path)
        self._recorded = self.store.model_ids()
        self.scope = scope
        self.model_id = f"replay:{path}"
        #: a cassette answers what was recorded; it is treated as text-only
        self.accepts_images = False
        # A cassette of a tool-using session replays only if the agent offers tools again.
        self.supports_tools = self.store.has_tool_requests()

    def generate(self, messages: list[Message], params: GenerateParams = DEFAULT_PARAMS, *,
                 n: int = 1, role: str | None = None) -> list[Completion]:
        out = []
        for i in range(n):
            hit = None
            for model_id in self._recorded:
                key = request_key(model_id, messages, params, sample_index=i, scope=self.scope)
                hit = self.store.get(key)
                if hit is not None:
                    break
            if hit is None:
                preview = json.dumps(messages[-1:], ensure_ascii=False)[:120] if messages else ""
                raise ReplayMiss(
                    f"{self.model_id}: no recording of this request (sample {i}): {preview}"
                )
            out.append(replace(hit, sample_index=i, cache_hit=True))
        return out


def with_cache(
    model: Model,
    *,
    cache: str | Path | None = None,
    mode: CacheMode = "readwrite",
    record: str | Path | None = None,
    scope: str = "",
) -> Model:
    """Apply `--cache PATH --cache-mode MODE` and `--record CASSETTE` to a model.

    Recording wraps outermost so the cassette holds every call the caller made,
    cache hits included, and `replay:` can serve the whole session later.
    """
    if cache is not None and mode != "off":
        model = CachedModel(model, ResponseStore(cache), mode, scope)
    if record is not None:
        model = CachedModel(model, ResponseStore(record), "write", scope)
    return model
