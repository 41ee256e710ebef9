#!/bin/bash
# settings.ini comes from environment/files.
set -euo pipefail
test -f /app/settings.ini
