"""tether's version, in one place: `tether.__version__`, `tether --version` and each run's
record of the code it ran with read it from here (pyproject.toml states it for the wheel;
tests/test_root_face.py keeps the two equal). A module of its own so that the kernel
never imports the root package, which sits above every system."""

__version__ = "0.1.0"
