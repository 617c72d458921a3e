#!/bin/sh
# Rebuild after/ and explained/ from before/ (bench/TRIAL_2026-12-07d.md), as trial_s24/make.sh does:
#   make.sh JAX_CODEMOD PYTHON_WITH_JAX JAX_VERSION DEST
here=$(cd "$(dirname "$0")" && pwd)
TRIAL_DIR=$here exec sh "$here/../chip/trial_s24/make.sh" "$@"
