"""OCR by Debian's `tesseract` binary, cached by image digest in SQLite.

The cache key is the sha256 of the image bytes plus the OCR options, so a second pass over
the same items runs no tesseract process at all (`OcrEngine.calls` counts the processes;
a test checks it stays at zero on the second pass). Rows are JSON text, never pickle. WAL
mode lets several processes read while one writes.

Keying by the image means drawing the image, and drawing a page costs far more than the
lookup (a compile scores the same items under many proposals: 43 s of a 54 s build were
re-renders for cache hits). `OcrEngine.text_of(source, render)` therefore memoises the
text in process by `source`, the JSON of everything the drawing depends on (a page's
spec): within one process the drawing code and fonts are fixed, so the same source gives
the same image. The memo is never persisted: a new process draws each page once more and
keys the persistent cache by the bytes, so a changed renderer or font gets new keys.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tether.errors import ConfigError

#: texts memoised per engine (a few KB each; a compile touches a few hundred pages)
MEMO_SIZE = 4096
_SCHEMA = "CREATE TABLE IF NOT EXISTS ocr (key TEXT PRIMARY KEY, row TEXT NOT NULL)"


def default_cache_dir() -> Path:
    """$TETHER_CACHE/ocr when set, else ~/.cache/tether/ocr."""
    root = os.environ.get("TETHER_CACHE")
    base = Path(root) if root else Path.home() / ".cache" / "tether"
    return base / "ocr"


class OcrCache:
    """A key -> JSON row store in one SQLite file."""

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory else default_cache_dir()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / "ocr.sqlite3"
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(_SCHEMA)
        self._conn.commit()

    def get(self, key: str) -> dict | None:
        with self._lock:
            row = self._conn.execute("SELECT row FROM ocr WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, value: dict) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO ocr (key, row) VALUES (?, ?)",
                (key, json.dumps(value, sort_keys=True)),
            )
            self._conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM ocr").fetchone()[0])

    def close(self) -> None:
        self._conn.close()


class OcrEngine:
    """Runs `tesseract stdin stdout` on PNG bytes, through the cache."""

    def __init__(
        self,
        cache: OcrCache | None = None,
        *,
        psm: int = 6,
        lang: str = "eng",
        binary: str = "tesseract",
        timeout_s: float = 60.0,
    ) -> None:
        self.cache = cache if cache is not None else OcrCache()
        self.psm = psm
        self.lang = lang
        self.binary = binary
        self.timeout_s = timeout_s
        self.calls = 0  # tesseract processes started by this engine (cache misses)
        self.renders = 0  # images drawn by text_of (memo misses)
        self._memo: OrderedDict[str, str] = OrderedDict()
        self._memo_lock = threading.Lock()

    def key(self, image: bytes) -> str:
        options = f"tesseract|psm={self.psm}|lang={self.lang}"
        return hashlib.sha256(image).hexdigest() + "|" + options

    def text(self, image: bytes) -> str:
        key = self.key(image)
        hit = self.cache.get(key)
        if hit is not None:
            return str(hit["text"])
        text = self._run(image)
        self.cache.put(key, {"text": text, "engine": "tesseract", "psm": self.psm})
        return text

    def text_of(self, source: Any, render: Callable[[], bytes]) -> str:
        """The text of the image `render()` draws from `source` (JSON-able: everything
        the drawing depends on), memoised in this process (see the module docstring)."""
        key = hashlib.sha256(json.dumps(source, sort_keys=True, default=str)
                             .encode("utf-8")).hexdigest()
        with self._memo_lock:
            hit = self._memo.get(key)
            if hit is not None:
                self._memo.move_to_end(key)
                return hit
        self.renders += 1
        text = self.text(render())
        with self._memo_lock:
            self._memo[key] = text
            while len(self._memo) > MEMO_SIZE:
                self._memo.popitem(last=False)
        return text

    def clear_memo(self) -> None:
        """Forget the memoised texts (what a new process starts with)."""
        with self._memo_lock:
            self._memo.clear()

    def _run(self, image: bytes) -> str:
        exe = shutil.which(self.binary)
        if exe is None:
            raise ConfigError(
                "tesseract is not installed (the docs and slides settings need it)",
                hint="apt-get install tesseract-ocr, or run scripts/setup.sh",
            )
        self.calls += 1
        # One thread per process: the machine is shared and tesseract's OpenMP would
        # otherwise take every core for a receipt that needs well under a second.
        env = dict(os.environ, OMP_THREAD_LIMIT="1")
        proc = subprocess.run(
            [exe, "stdin", "stdout", "--psm", str(self.psm), "-l", self.lang],
            input=image,
            capture_output=True,
            timeout=self.timeout_s,
            env=env,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(
                f"tesseract exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-300:]}"
            )
        return proc.stdout.decode("utf-8", errors="replace").strip()


_default_engine: OcrEngine | None = None


def default_engine() -> OcrEngine:
    """One process-wide engine on the default cache directory."""
    global _default_engine
    if _default_engine is None:
        _default_engine = OcrEngine()
    return _default_engine


class WithOcrEngine:
    """A setting's OCR engine: the one it was given, else the shared cached engine, taken
    on first use (a setting whose OCR is never asked for starts none)."""

    _engine: OcrEngine | None

    @property
    def engine(self) -> OcrEngine:
        if self._engine is None:
            self._engine = default_engine()
        return self._engine
