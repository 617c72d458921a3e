#!/usr/bin/env bash
# Make scratch_tpu/ ready for bench/chip/unshared.sh: two revisions of the tool side by side on the TPU machine's idle
# 13-core host, in one run, so that the README's and docs/speed.md's figures come from one side-by-side run.
#   bash bench/chip/side_by_side.sh [BASE [NOW]]     # here, from the repository root (default: f95c3ae and HEAD)
# then, through the `device` tool's `run` with carry [".whl-tpu", "scratch_tpu"] (`make tpu-wheels` builds .whl-tpu):
#   JOBS="1 2 8" PARSES=1 bash scratch_tpu/unshared.sh
# PARSES=1 adds, for each revision, one cold --jobs 1 run over the trees through NOW's bench/cold_phases.py: its CPU,
# the main process's peak memory and how many modules were parsed, and how many times (the parse floor parses each
# file that passes the rules' byte test once). Each command must end within the tool's 10 minutes: at
# REPEAT=1 the rows of both revisions took about 4 minutes there (2026-12-06), PARSES about 2 more.
set -euo pipefail
BASE=${1:-f95c3ae}
NOW=${2:-HEAD}
mkdir -p scratch_tpu
tar -cJf scratch_tpu/trees.tar.xz -C /work/scratch trees
git archive --format=tar "$BASE" | xz -c > scratch_tpu/base.tar.xz
git archive --format=tar "$NOW" | xz -c > scratch_tpu/now.tar.xz
cp bench/chip/unshared.sh scratch_tpu/
echo "scratch_tpu/ ready: base $(git rev-parse --short "$BASE"), now $(git rev-parse --short "$NOW")"
