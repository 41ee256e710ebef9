#!/bin/bash
# The package and its visible tests come from environment/files.
set -euo pipefail
test -d /app/inventory && test -d /app/tests
