#!/bin/bash
# Sources and a broken Makefile come from environment/files.
set -euo pipefail
test -f /app/Makefile
