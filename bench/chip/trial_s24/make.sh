#!/bin/sh
# Rebuild after/ and explained/ from before/ (bench/TRIAL_2026-12-07b.md):
#   make.sh JAX_CODEMOD PYTHON_WITH_JAX JAX_VERSION DEST
# after/: `--write --unsafe-fixes` twice; explained/: after/ then, for each entry whose lowering for
# TPU still fails, `explain --write --unsafe-fixes` on its traceback (twice over the entries).
set -e
tool=$1; python=$2; version=$3; dest=$4
here=${TRIAL_DIR:-$(cd "$(dirname "$0")" && pwd)}  # a later trial (trial_s25/make.sh) names its own folder
rm -rf "$dest/after" "$dest/explained"
cp -r "$here/before" "$dest/after"
(cd "$dest/after" && "$tool" --jax-version "$version" --write --unsafe-fixes . && "$tool" --jax-version "$version" --write --unsafe-fixes .) || true
cp -r "$dest/after" "$dest/explained"
cd "$dest/explained"
names=$(PYTHONPATH=. "$python" -c "import entry; print(' '.join(entry.ENTRIES))")
for round in 1 2; do
  for name in $names; do
    PYTHONPATH=. "$python" -c "
import jax, entry
fn, args = entry.load('$name')
jax.export.export(jax.jit(fn), platforms=['tpu'])(*args)" 2> "$dest/$name.log" && continue
    "$tool" explain --jax-version "$version" --write --unsafe-fixes "$dest/$name.log" > /dev/null 2>&1 || true
  done
done
rm -f "$dest"/*.log
