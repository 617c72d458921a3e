#!/bin/sh
# Rebuild after/ and explained/ from before/ (bench/TRIAL_2026-12-07f.md), as trial_s24/make.sh does, each
# entry lowered by lower.py (its platform, an abstract TPU where its kernel asks which one):
#   make.sh JAX_CODEMOD PYTHON_WITH_JAX JAX_VERSION DEST
# after/: `--write --unsafe-fixes` twice; explained/: after/ then, for each entry whose lowering still
# fails, `explain --write --unsafe-fixes` on its traceback (twice over the entries); floor/: after/ then
# the answer JAX151's [manual] asks for (`--jax-floor 0.6.2 --write --unsafe-fixes`), so that the chip
# sees benchmarks/x64's JAX005 fixes, which pltpu.TPUCompilerParams' AttributeError hides in after/.
set -e
tool=$1; python=$2; version=$3; dest=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dest/after" "$dest/explained" "$dest/floor"
cp -r "$here/before" "$dest/after"
(cd "$dest/after" && "$tool" --jax-version "$version" --write --unsafe-fixes . && "$tool" --jax-version "$version" --write --unsafe-fixes .) || true
cp -r "$dest/after" "$dest/explained"
cp -r "$dest/after" "$dest/floor"
(cd "$dest/floor" && "$tool" --jax-version "$version" --jax-floor 0.6.2 --write --unsafe-fixes .) || true
cd "$dest/explained"
names=$(PYTHONPATH=. "$python" -c "import entry; print(' '.join(entry.ENTRIES))")
for round in 1 2; do
  for name in $names; do
    PYTHONPATH=. "$python" lower.py "$name" --raise > /dev/null 2> "$dest/$name.log" && continue
    "$tool" explain --jax-version "$version" --write --unsafe-fixes "$dest/$name.log" > /dev/null 2>&1 || true
  done
done
rm -f "$dest"/*.log
find "$dest/after" "$dest/explained" "$dest/floor" -name __pycache__ -prune -exec rm -rf {} +
