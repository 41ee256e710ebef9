"""The five systems built on the kernel, each whole in its own package.

code (execution and static instruments, code suites), pages (DOM geometry, temporal
geometry, the screenshot judge, visual suites, `tether measure`), terminal (Harbor tasks,
the bash agent, turn-level and trajectory best-of-N), compile (harness compilation) and
scene (Blender scene programs and VETR). Each registers into the kernel only through
entry points (pyproject.toml); none imports another (tests/test_layers.py).
"""
