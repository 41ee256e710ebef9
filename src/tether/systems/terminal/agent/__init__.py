"""The bash agent: its action protocol (actions.py), the attempt loop (loop.py), its
prompts (templates.py), what its commands do (commands.py, shell_parse.py), the behaviour
labels of its trajectories (behaviours.py) and the `agent` strategy (strategy.py)."""
