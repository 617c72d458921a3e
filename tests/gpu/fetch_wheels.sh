#!/usr/bin/env bash
# Download the project's runtime dependencies as Python 3.12 x86-64 wheels into .whl/ at the repo
# root, for the GPU machine (no network there; the device tool carries .whl/ and
# tests/gpu/README.md installs it with `pip install --no-index --no-deps --target /tmp/site`).
#
# The set is closed: libcst and typer with everything they need at run time on CPython 3.12 /
# Linux, pinned to the versions the test venv uses. Only libcst is missing from the GPU image;
# the rest are carried so the tool runs there on the versions tested here, not the image's.
# Usage: tests/gpu/fetch_wheels.sh   (or: make gpu-wheels)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PYTHON=${PYTHON:-python3}
WHEELS=.whl

# name==version, one a line: the closure of `libcst typer` on CPython 3.12, Linux.
PINS=(
  libcst==1.9.0            # compiled (native parser): cp312 manylinux wheel
  PyYAML==6.0.4            # libcst's one dependency on Python < 3.13; compiled: cp312 wheel
  typer==0.29.2            # vendors click; needs pydantic, shellingham, rich, annotated-doc
  annotated-doc==0.0.7
  shellingham==1.5.4
  rich==15.0.0
  markdown-it-py==4.3.0    # rich
  mdurl==0.1.2             # markdown-it-py
  Pygments==2.21.0         # rich
  pydantic==2.14.4         # typer
  pydantic-core==2.50.5    # pydantic; compiled: cp312 wheel
  annotated-types==0.8.0   # pydantic
  typing-inspection==0.4.5 # pydantic
  typing-extensions==4.16.0
)

# Keep the wheels out of git (they travel with the device tool's `carry`, never in a commit).
exclude=$(git rev-parse --git-path info/exclude 2>/dev/null || true)
if [ -n "$exclude" ]; then
  mkdir -p "$(dirname "$exclude")"
  grep -qxF "/$WHEELS/" "$exclude" 2>/dev/null || echo "/$WHEELS/" >>"$exclude"
fi

rm -rf "$WHEELS"
mkdir -p "$WHEELS"
"$PYTHON" -m pip download -q --no-deps --only-binary=:all: \
  --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux1_x86_64 \
  -d "$WHEELS" "${PINS[@]}"

# One version of each: two stop the whole install there.
dupes=$(ls "$WHEELS" | sed -E 's/-[0-9].*//' | tr 'A-Z-' 'a-z_' | sort | uniq -d)
if [ -n "$dupes" ]; then
  echo "more than one wheel of: $dupes" >&2
  exit 1
fi

# The set is closed: resolve libcst and typer from .whl/ alone (no index, no pip config), as a
# fresh --target install on this machine would. Skipped here when this Python is not 3.12.
if "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))'; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  PIP_CONFIG_FILE=/dev/null "$PYTHON" -m pip install -q --no-index --find-links "$WHEELS" \
    --no-compile --target "$scratch" libcst typer
  PYTHONPATH="$scratch" "$PYTHON" -c 'import libcst, typer, yaml; libcst.parse_module("x = 1\n")'
  echo "closed: libcst and typer install and import from $WHEELS/ alone"
fi

ls -l "$WHEELS" | awk 'NR > 1 { printf "%9d  %s\n", $5, $9 }'
du -sh "$WHEELS" | awk '{ print "total: " $1 " in '"$(ls "$WHEELS" | wc -l)"' wheels (the device tool carries at most 64 MiB)" }'
