#!/bin/bash
# Nothing to prepare: /app starts empty.
set -euo pipefail
rm -f /app/hello.txt
