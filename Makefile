# Two entry points, both idempotent on a fresh Debian machine (see README).
.PHONY: setup demo test test-fast lint bench

setup:
	bash scripts/setup.sh

demo: setup
	.venv/bin/tether demo

test: setup
	.venv/bin/ruff check src tests benchmarks
	.venv/bin/lint-imports
	.venv/bin/mypy
	NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet -d site
	.venv/bin/python -m pytest -q

# The development loop: unit tests without llama.cpp, Chromium, Ray or the slow checks
# (real image builds; bubblewrap stays: it is cheap). `make test` is the whole suite and
# what CI runs.
test-fast: setup
	.venv/bin/python -m pytest -q -m "not llama and not browser and not ray and not slow"

lint: setup
	.venv/bin/ruff check src tests benchmarks
	.venv/bin/lint-imports
	.venv/bin/mypy

bench: setup
	.venv/bin/python benchmarks/bench_sandbox.py
	.venv/bin/python benchmarks/bench_local.py
	.venv/bin/python benchmarks/execution.py
	.venv/bin/python benchmarks/geometry.py
	.venv/bin/python benchmarks/geometry_throughput.py
	.venv/bin/python benchmarks/parallel_samples.py
	.venv/bin/python benchmarks/scene_executor.py
	.venv/bin/python benchmarks/scene_render.py
	.venv/bin/python benchmarks/ocr_memo.py
	.venv/bin/python benchmarks/sandbox_worker.py
	.venv/bin/python benchmarks/harness_runtime.py
	.venv/bin/python benchmarks/scene_refine.py
	.venv/bin/python benchmarks/registry_lookup.py
	.venv/bin/python benchmarks/whole_eval.py --limit 40 --latency 0.5 --concurrency 8
	# the longest (about 17 min on 2 cores: 120 calls of the embedded student)
	nice -n 5 .venv/bin/python benchmarks/compile_overhead.py
