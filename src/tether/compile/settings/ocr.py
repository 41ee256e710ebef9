"""OCR by Debian's `tesseract` binary, cached by image digest in SQLite.

The cache key is the sha256 of the image bytes plus the OCR options, so a second pass over
the same items runs no tesseract process at all (`OcrEngine.calls` counts the processes;
a test checks it stays at zero on the second pass). Rows are JSON text, never pickle. WAL
mode lets several processes read while one writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import threading
from pathlib import Path

from tether.errors import ConfigError

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
