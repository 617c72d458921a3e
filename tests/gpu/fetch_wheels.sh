#!/usr/bin/env bash
# Download the project's runtime dependencies as x86-64 wheels for one CPython version into a
# folder at the repo root, for an accelerator machine (no network there; the device tool carries
# the folder and tests/gpu/README.md, tests/tpu/README.md install it with
# `pip install --no-index --no-deps --target /tmp/site`).
#
# The set is closed: libcst and typer with everything they need at run time on that CPython /
# Linux, pinned to the versions the test venvs use (typer < 0.29, as pyproject.toml says).
# Usage: tests/gpu/fetch_wheels.sh   (make gpu-wheels: CPython 3.12 into .whl/;
#        make tpu-wheels: PY_VERSION=3.11 WHEELS=.whl-tpu, the TPU machine's Python)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PYTHON=${PYTHON:-python3}
PY_VERSION=${PY_VERSION:-3.12}
WHEELS=${WHEELS:-.whl}

# name==version, one a line: the closure of `libcst typer` on CPython 3.11 and 3.12, Linux.
PINS=(
  libcst==1.9.0            # compiled (native parser): a cpXY manylinux wheel
  PyYAML==6.0.4            # libcst's one dependency on Python < 3.13; compiled: a cpXY wheel
  typer==0.28.0            # the CLI (0.29 coerces options through pydantic: pyproject.toml keeps < 0.29)
  click==8.5.1             # typer
  annotated-doc==0.0.7     # typer
  shellingham==1.5.4       # typer
  rich==15.0.0             # typer
  markdown-it-py==4.3.0    # rich
  mdurl==0.1.2             # markdown-it-py
  Pygments==2.21.0         # rich
  typing-extensions==4.16.0
  ${EXTRA_PINS:-}          # what else one machine lacks (make tpu-wheels: absl-py, which Mosaic GPU imports)
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
  --python-version "$PY_VERSION" --implementation cp \
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
# fresh --target install on this machine would. Skipped here when this Python is not PY_VERSION.
if "$PYTHON" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$PY_VERSION'.split('.'))))"; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  PIP_CONFIG_FILE=/dev/null "$PYTHON" -m pip install -q --no-index --find-links "$WHEELS" \
    --no-compile --target "$scratch" libcst typer
  PYTHONPATH="$scratch" "$PYTHON" -c 'import libcst, typer, yaml; libcst.parse_module("x = 1\n")'
  echo "closed: libcst and typer install and import from $WHEELS/ alone"
fi

ls -l "$WHEELS" | awk 'NR > 1 { printf "%9d  %s\n", $5, $9 }'
du -sh "$WHEELS" | awk '{ print "total: " $1 " in '"$(ls "$WHEELS" | wc -l)"' wheels (the device tool carries at most 64 MiB)" }'
