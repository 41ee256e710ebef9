# Two entry points, both idempotent on a fresh Debian machine (see README).
.PHONY: setup demo test lint bench

setup:
	bash scripts/setup.sh

demo: setup
	.venv/bin/tether demo

test: setup
	.venv/bin/ruff check src tests benchmarks
	.venv/bin/lint-imports
	.venv/bin/python -m pytest -q

lint: setup
	.venv/bin/ruff check src tests benchmarks
	.venv/bin/lint-imports

bench: setup
	.venv/bin/python benchmarks/bench_sandbox.py
	.venv/bin/python benchmarks/bench_local.py
	.venv/bin/python benchmarks/execution.py
	.venv/bin/python benchmarks/geometry.py
	.venv/bin/python benchmarks/parallel_samples.py
	.venv/bin/python benchmarks/scene_executor.py
