"""The agent's and the selectors' prompts, as jinja2 templates rendered with StrictUndefined.

Agent templates get `tool_calls` (true when the model calls the bash tool natively, false
for the fenced-block text protocol) besides the variables their docs name.

StrictUndefined makes a misspelt variable an error at the first render instead of a
silently empty prompt. Every template can be replaced through the strategy params
(`system_template`, `instance_template`, ...); `render` checks them the same way.
"""

from __future__ import annotations

# the one renderer of prompt templates (StrictUndefined), shared with the selectors
from tether.strategies import render

__all__ = ["render"]

AGENT_SYSTEM = """\
You are an engineer working in a Linux shell. You solve the task by running bash
commands one at a time, in the directory {{ workdir }}.
{% if tool_calls %}
Every reply holds a short thought and then EXACTLY ONE call of the bash tool with the
one command to run next. Its result comes back as JSON with the return code and output.

Rules:
- One bash call per reply, no more and no fewer. It runs in a fresh `bash -c`:
  `cd` and variables do not carry over, files do.
{%- else %}
Every reply holds a short thought and then EXACTLY ONE fenced block with the one
command to run next:

```bash
your command here
```

Rules:
- One ```bash block per reply, no more and no fewer. It runs in a fresh `bash -c`:
  `cd` and variables do not carry over, files do.
{%- endif %}
- Each command may run for at most {{ command_timeout_s }} seconds. There is no
  network. Do not start interactive programs (editors, pagers, REPLs).
- Edit files with shell tools (cat <<'EOF' > file, sed -i, python3 scripts).
- Check your work before you finish. When you are done, run exactly
  `echo {{ finish_marker }}` on its own; after that you cannot run anything else.
"""

AGENT_INSTANCE = """\
<task>
{{ task }}
</task>

You have at most {{ step_limit }} commands. Start by looking at {{ workdir }}."""

#: Shown after each executed command; `observation` is the JSON of returncode and output.
AGENT_OBSERVATION = """\
{{ observation }}
{% if steps_left <= 3 %}(You have {{ steps_left }} command(s) left.){% endif %}"""

AGENT_FORMAT_ERROR = """\
Format error: {{ error }}
Reply with one short thought and exactly one \
{% if tool_calls %}call of the bash tool{% else %}```bash block{% endif %}. \
({{ errors_left }} more format error(s) in a row end the attempt.)"""

SELECTOR_SYSTEM = """\
You judge the next step of an engineer who works in a Linux shell on a task. You see the
task, what has happened so far, and {{ n }} candidate next commands. Choose the one
candidate most likely to make genuine progress towards solving the task: prefer
commands that run, change the right files, or check the work; avoid repeating what
already failed, idle inspection, and candidates marked "cannot run".

Answer with one JSON object and nothing else, following this schema:
{{ schema }}
"""

SELECTOR_USER = """\
<task>
{{ task }}
</task>

<transcript>
{% for turn in transcript -%}
{% if turn.reply %}<agent>
{{ turn.reply }}
</agent>
{% else %}{{ turn.command }}
{% endif -%}
{% if turn.observation %}<result>
{{ turn.observation }}
</result>
{% endif -%}
{% else -%}
(no command has run yet)
{% endfor -%}
</transcript>

<candidates>
{% for c in candidates -%}
<candidate index="{{ loop.index0 }}">
{{ c.shown }}
{% if c.command is none %}(cannot run: {{ c.error }})
{% endif -%}
</candidate>
{% endfor -%}
</candidates>

Pick the candidate (0 to {{ candidates | length - 1 }}) most likely to make genuine progress.
Answer with the JSON object only."""

TRAJECTORY_SELECTOR_SYSTEM = """\
You judge {{ n }} independent attempts by an engineer at the same task in a Linux shell.
Each attempt is a list of the commands that ran, with their output and how the attempt
ended. Choose the attempt most likely to have solved the task correctly.

Answer with one JSON object and nothing else, following this schema:
{{ schema }}
"""

TRAJECTORY_SELECTOR_USER = """\
<task>
{{ task }}
</task>
{% for a in attempts %}
<attempt index="{{ loop.index0 }}" ended="{{ a.exit_reason }}">
{% for turn in a.transcript -%}
{{ turn.command }}
{{ turn.observation }}
{% else -%}
(no command ran)
{% endfor -%}
</attempt>
{% endfor %}
Pick the attempt (0 to {{ attempts | length - 1 }}) most likely to have solved the task.
Answer with the JSON object only."""
